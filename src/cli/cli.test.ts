// The operators' CLI, run as a process against a real database, as an operator would.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../auth/password.js';
import { openDatabase, type Database } from '../db/database.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../testkit/database.js';
import { openEventStream } from '../testkit/event-stream.js';
import { startServerProcess, type ServerProcess } from '../testkit/server-process.js';

let env: Record<string, string>;
let testDb: TestDatabase | undefined;
let dataDir: string | undefined;
let uploadDir: string;

beforeAll(async () => {
  uploadDir = mkdtempSync(path.join(tmpdir(), 'cli-test-uploads-'));
  if (testDatabaseUrl) {
    testDb = await createTestDatabase();
    env = { DATABASE_URL: testDb.url!, UPLOAD_DIR: uploadDir };
  } else {
    dataDir = mkdtempSync(path.join(tmpdir(), 'cli-test-'));
    env = { DATA_DIR: dataDir, UPLOAD_DIR: uploadDir };
  }
});
afterAll(async () => {
  await testDb?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  rmSync(uploadDir, { recursive: true, force: true });
});

function cli(...args: string[]) {
  return cliWith(env, ...args);
}

/** The CLI as a process with `environment` (the database it works on, Redis). */
function cliWith(environment: Record<string, string>, ...args: string[]) {
  const tsx = path.resolve('node_modules/.bin/tsx');
  const { PATH, HOME } = process.env;
  return spawnSync(tsx, ['src/cli/main.ts', ...args], { encoding: 'utf8', env: { PATH, HOME, LOG_LEVEL: 'silent', ...environment } });
}

/** The JSON a successful command printed (its stderr empty). */
function ok(run: ReturnType<typeof cli>) {
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout);
}

async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const db = testDb ? testDb.database : await openDatabase({ dataDir: dataDir!, poolSize: 1 });
  try {
    return await work(db);
  } finally {
    if (!testDb) await db.close();
  }
}

describe('cli user create', () => {
  it('creates a user with a role and a personal team, printing JSON', async () => {
    const run = cli('user', 'create', '--email', 'Ops@Example.com', '--password', 'operator-pass', '--role', 'superadmin', '--first-name', 'Op', '--json');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toEqual({ id: expect.any(String), email: 'ops@example.com', role: 'superadmin', teamId: expect.any(String) });
    const owner = await withDatabase((db) => db.prisma.teamMember.findFirst({ where: { userId: out.id } }));
    expect(owner).toMatchObject({ teamId: out.teamId, role: 'owner' });
  }, 300_000); // the first CLI process migrates a new database: over 60 s on a loaded machine

  it('refuses a duplicate e-mail with a clear error and a non-zero exit', () => {
    const run = cli('user', 'create', '--email', 'ops@example.com', '--password', 'operator-pass');
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('already exists');
  }, 120_000);

  it.each([
    [['user', 'create', '--email', 'x@example.com'], /password/],
    [['user', 'create', '--email', 'not-mail', '--password', 'operator-pass'], /email/],
    [['user', 'create', '--email', 'y@example.com', '--password', 'operator-pass', '--role', 'king'], /role/],
    [['user', 'create', '--bogus'], /bogus/],
    [['user', 'delete'], /Usage/],
  ])('rejects %j', (args, message) => {
    const run = cli(...args);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(message);
  }, 120_000);
});

describe('cli user set-password and disable-2fa', () => {
  it('sets a password, ending the sessions, and turns two-factor off, for an operator', async () => {
    const created = JSON.parse(cli('user', 'create', '--email', 'locked-out@example.com', '--password', 'forgotten-pass', '--json').stdout);
    await withDatabase(async (db) => {
      await db.prisma.session.create({ data: { userId: created.id, tokenHash: 'f'.repeat(64), expiresAt: new Date(Date.now() + 3_600_000) } });
      await db.prisma.userTotp.create({ data: { userId: created.id, secretSealed: 'plain:JBSWY3DPEHPK3PXP', enabledAt: new Date() } });
    });
    const set = cli('user', 'set-password', '--email', 'Locked-Out@example.com', '--password', 'a new operator pass', '--json');
    expect(set.stderr).toBe('');
    expect(JSON.parse(set.stdout)).toEqual({ id: created.id, email: 'locked-out@example.com', endedSessions: 1 });
    const off = cli('user', 'disable-2fa', '--email', 'locked-out@example.com');
    expect(off.stdout).toContain('Two-factor sign-in turned off for locked-out@example.com');
    expect(cli('user', 'disable-2fa', '--email', 'locked-out@example.com').stdout).toContain('was not on');
    await withDatabase(async (db) => {
      const user = await db.prisma.user.findUniqueOrThrow({ where: { id: created.id } });
      expect(await verifyPassword(user.passwordHash, 'a new operator pass')).toBe(true);
      expect(await db.prisma.session.count({ where: { userId: created.id } })).toBe(0);
      expect(await db.prisma.userTotp.count({ where: { userId: created.id } })).toBe(0);
    });
  }, 300_000); // four CLI processes on a loaded machine: over 90 s

  it.each([
    [['user', 'set-password', '--email', 'nobody@example.com', '--password', 'long enough pass'], /No user with e-mail/],
    [['user', 'set-password', '--email', 'locked-out@example.com', '--password', 'short'], /password/],
    [['user', 'disable-2fa'], /--email is required/],
  ])('rejects %j', (args, message) => {
    const run = cli(...args);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(message);
  }, 120_000);
});

describe('apikey create', () => {
  it('mints a key for an existing user within their role, printing {id,key,...} once', async () => {
    expect(cli('user', 'create', '--email', 'keys@example.com', '--password', 'operator-pass').status).toBe(0);
    const res = cli('apikey', 'create', '--email', 'keys@example.com', '--name', 'deploy', '--scopes', 'teams:read,teams:*', '--json');
    expect(res.status).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({ name: 'deploy', scopes: ['teams:read', 'teams:*'], status: 'active', keyPrefix: out.key.slice(0, 12) });
    expect(out.key).toMatch(/^sk_test_[A-Za-z0-9_-]{40}$/);
    const stored = await withDatabase((db) => db.prisma.apiKey.findUnique({ where: { id: out.id } }));
    expect(stored?.keyPrefix).toBe(out.key.slice(0, 12));

    const wildcard = cli('apikey', 'create', '--email', 'keys@example.com', '--name', 'all', '--scopes', '*');
    expect(wildcard.status).not.toBe(0);
    expect(wildcard.stderr).toMatch(/reserved for superadmins/);
    const unknown = cli('apikey', 'create', '--email', 'nobody@example.com', '--name', 'x', '--scopes', 'teams:read');
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toMatch(/No user/);
  }, 120_000); // five CLI processes, each loading the app: over 30 s on a loaded machine
});

describe('listings', () => {
  it('lists users, keys (never their secret), teams and members, as JSON and as a table', async () => {
    const created = JSON.parse(cli('user', 'create', '--email', 'lister@example.com', '--password', 'operator-pass', '--json').stdout);
    const key = JSON.parse(cli('apikey', 'create', '--email', 'lister@example.com', '--name', 'reporting', '--scopes', 'teams:read', '--json').stdout);

    const users = JSON.parse(cli('user', 'list', '--json').stdout);
    expect(users).toContainEqual(expect.objectContaining({ id: created.id, email: 'lister@example.com', role: 'member' }));
    const keys = cli('apikey', 'list', '--email', 'Lister@Example.com', '--json');
    expect(keys.status).toBe(0);
    expect(JSON.parse(keys.stdout)).toEqual([expect.objectContaining({ id: key.id, owner: 'lister@example.com', name: 'reporting', keyPrefix: key.keyPrefix, scopes: ['teams:read'], status: 'active' })]);
    expect(keys.stdout).not.toContain(key.key);
    const teams = JSON.parse(cli('team', 'list', '--json').stdout);
    expect(teams).toContainEqual(expect.objectContaining({ id: created.teamId, members: 1 }));
    const members = cli('team', 'members', '--team', created.teamId);
    expect(members.status).toBe(0);
    expect(members.stdout.split('\n')[0]).toMatch(/^userId\s+email\s+role\s+joinedAt$/);
    expect(members.stdout).toMatch(new RegExp(`${created.id}\\s+lister@example.com\\s+owner`));

    for (const [args, message] of [
      [['apikey', 'list', '--email', 'nobody@example.com'], /No user with e-mail/],
      [['team', 'members', '--team', 'not-an-id'], /--team must be a team id/],
      [['team', 'members', '--team', '00000000-0000-4000-8000-000000000000'], /No team with id/],
      [['user', 'list', '--verbose'], /Unknown option/],
    ] as const) {
      const run = cli(...args);
      expect(run.status, args.join(' ')).not.toBe(0);
      expect(run.stderr).toMatch(message);
    }
  }, 600_000); // a dozen CLI processes, each loading the app: over 180 s on a loaded machine

  it('tells which migrations are applied, applying none', async () => {
    const status = cli('migrations', 'status', '--json');
    expect(status.status).toBe(0);
    const rows = JSON.parse(status.stdout) as { migration: string; state: string; appliedAt: string | null }[];
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.every((r) => r.state === 'applied' && r.appliedAt)).toBe(true);
    // One forgotten as if it were new: pending, and still pending after the status (nothing applied).
    const last = rows.at(-1)!.migration;
    await withDatabase((db) => db.prisma.$executeRawUnsafe(`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '${last}'`));
    try {
      const text = cli('migrations', 'status');
      expect(text.stdout).toMatch(new RegExp(`${last}\\s+pending`));
      expect(text.stdout).toContain('1 not applied');
      expect(cli('migrations', 'status').stdout).toContain('1 not applied');
    } finally {
      await withDatabase((db) => db.prisma.$executeRawUnsafe(`UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = '${last}'`));
    }
  }, 120_000);
});

describe('user set-role, disable and enable', () => {
  it('changes roles and disables a user (sessions end), keeping an enabled superadmin', async () => {
    const created = ok(cli('user', 'create', '--email', 'roles@example.com', '--password', 'operator-pass', '--json'));
    expect(ok(cli('user', 'set-role', '--email', 'Roles@example.com', '--role', 'developer', '--json'))).toMatchObject({ id: created.id, role: 'developer', previousRole: 'member' });
    await withDatabase((db) => db.prisma.session.create({ data: { userId: created.id, tokenHash: 'e'.repeat(64), expiresAt: new Date(Date.now() + 3_600_000) } }));
    const disabled = ok(cli('user', 'disable', '--email', 'roles@example.com', '--json'));
    expect(disabled).toEqual({ id: created.id, email: 'roles@example.com', disabledAt: expect.any(String), wasDisabled: false, endedSessions: 1, cacheEviction: testDb ? 'no-redis' : 'not-needed' });
    expect(cli('user', 'disable', '--email', 'roles@example.com').stdout).toContain('Already disabled');
    const listed = ok(cli('user', 'list', '--json')) as { email: string; disabledAt: string | null }[];
    expect(listed.find((u) => u.email === 'roles@example.com')?.disabledAt).toBe(disabled.disabledAt);
    expect(ok(cli('user', 'enable', '--email', 'roles@example.com', '--json'))).toEqual({ id: created.id, email: 'roles@example.com', disabledAt: null, wasDisabled: true });
    await withDatabase(async (db) => {
      expect(await db.prisma.session.count({ where: { userId: created.id } })).toBe(0);
      expect((await db.prisma.user.findUniqueOrThrow({ where: { id: created.id } })).disabledAt).toBeNull();
    });

    // ops@example.com is the only superadmin: neither demoted nor disabled, until another is made.
    for (const args of [['user', 'set-role', '--email', 'ops@example.com', '--role', 'member'], ['user', 'disable', '--email', 'ops@example.com']]) {
      const refused = cli(...args);
      expect(refused.status).not.toBe(0);
      expect(refused.stderr.trim()).toBe('Error: ops@example.com is the last enabled superadmin: make another user superadmin first');
    }
    ok(cli('user', 'set-role', '--email', 'roles@example.com', '--role', 'superadmin', '--json'));
    ok(cli('user', 'disable', '--email', 'ops@example.com', '--json'));
    const last = cli('user', 'set-role', '--email', 'roles@example.com', '--role', 'member');
    expect(last.stderr).toMatch(/roles@example.com is the last enabled superadmin/);
    ok(cli('user', 'enable', '--email', 'ops@example.com', '--json'));
    ok(cli('user', 'set-role', '--email', 'roles@example.com', '--role', 'member', '--json'));

    for (const [args, message] of [
      [['user', 'set-role', '--email', 'roles@example.com', '--role', 'king'], /--role must be member, developer or superadmin/],
      [['user', 'disable', '--email', 'nobody@example.com'], /No user with e-mail nobody@example.com/],
      [['user', 'enable'], /--email is required/],
    ] as const) {
      const run = cli(...args);
      expect(run.status, args.join(' ')).not.toBe(0);
      expect(run.stderr).toMatch(message);
    }
  }, 600_000); // some twenty CLI processes, each loading the app
});

describe('apikey revoke', () => {
  it('revokes by id or prefix, as the API does (audited), and says so once', async () => {
    ok(cli('user', 'create', '--email', 'revoker@example.com', '--password', 'operator-pass', '--json'));
    const first = ok(cli('apikey', 'create', '--email', 'revoker@example.com', '--name', 'one', '--scopes', 'teams:read', '--json'));
    const second = ok(cli('apikey', 'create', '--email', 'revoker@example.com', '--name', 'two', '--scopes', 'teams:read', '--json'));
    expect(ok(cli('apikey', 'revoke', '--id', first.id, '--json'))).toEqual({
      id: first.id, keyPrefix: first.keyPrefix, name: 'one', owner: 'revoker@example.com', status: 'inactive', wasActive: true, cacheEviction: testDb ? 'no-redis' : 'not-needed',
    });
    expect(cli('apikey', 'revoke', '--prefix', second.keyPrefix).stdout).toMatch(/^Revoked: key sk_test_.{4}… \(two\) of revoker@example.com/);
    expect(cli('apikey', 'revoke', '--id', first.id).stdout).toMatch(/^Already inactive/);
    await withDatabase(async (db) => {
      const keys = await db.prisma.apiKey.findMany({ where: { id: { in: [first.id, second.id] } } });
      expect(keys.map((k) => [k.status, Boolean(k.revokedAt)])).toEqual([['inactive', true], ['inactive', true]]);
      expect(await db.prisma.apiKeyAudit.count({ where: { keyId: first.id, action: 'revoked' } })).toBeGreaterThanOrEqual(1);
    });
    for (const [args, message] of [
      [['apikey', 'revoke'], /give --id or --prefix/],
      [['apikey', 'revoke', '--id', 'nope'], /--id must be a key id/],
      [['apikey', 'revoke', '--id', '00000000-0000-4000-8000-000000000000'], /No API key with id/],
      [['apikey', 'revoke', '--prefix', 'sk_test_none'], /No API key with prefix sk_test_none/],
    ] as const) {
      const run = cli(...args);
      expect(run.status, args.join(' ')).not.toBe(0);
      expect(run.stderr).toMatch(message);
    }
  }, 300_000);
});

describe('migrations apply and scheduled actions', () => {
  it('applies what is pending, once', () => {
    // A database with nothing applied yet: a new embedded one (the runner is the same on PostgreSQL,
    // where the status test above reads what the server's start-up applied).
    const fresh = mkdtempSync(path.join(tmpdir(), 'cli-test-fresh-'));
    try {
      const there = { DATA_DIR: fresh, UPLOAD_DIR: uploadDir };
      const pending = ok(cliWith(there, 'migrations', 'status', '--json')) as { migration: string; state: string }[];
      expect(pending.every((r) => r.state === 'pending')).toBe(true);
      expect(ok(cliWith(there, 'migrations', 'apply', '--json'))).toEqual({ applied: pending.map((r) => r.migration) });
      expect(ok(cliWith(there, 'migrations', 'apply', '--json'))).toEqual({ applied: [] });
      expect(cliWith(there, 'migrations', 'apply').stdout.trim()).toBe('Database is up to date.');
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  }, 300_000);

  it('lists actions whose last run failed and puts a failed one back to run now', async () => {
    const [failed, retrying, done] = await withDatabase(async (db) => {
      const at = new Date(Date.now() - 60_000);
      const make = (data: { status: string; attempts: number; errorMessage: string | null; scheduledAt: Date }) =>
        db.prisma.scheduledAction.create({ data: { actionType: 'webhook:send', payload: {}, slotAt: data.scheduledAt, maxRetries: 3, createdAt: at, updatedAt: at, ...data } });
      return Promise.all([
        make({ status: 'failed', attempts: 3, errorMessage: 'HTTP 500 from the endpoint', scheduledAt: at }),
        make({ status: 'pending', attempts: 1, errorMessage: 'timed out after 30000 ms', scheduledAt: new Date(Date.now() + 120_000) }),
        make({ status: 'completed', attempts: 1, errorMessage: null, scheduledAt: at }),
      ]);
    });
    const listed = ok(cli('actions', 'failed', '--json')) as { id: string }[];
    expect(listed).toEqual(expect.arrayContaining([
      { id: failed.id, actionType: 'webhook:send', status: 'failed', teamId: null, failures: 3, maxRetries: 3, lastError: 'HTTP 500 from the endpoint', lastFailedAt: expect.any(String), nextRunAt: null },
      expect.objectContaining({ id: retrying.id, status: 'pending', failures: 1, lastError: 'timed out after 30000 ms', nextRunAt: retrying.scheduledAt.toISOString() }),
    ]));
    expect(listed.map((a) => a.id)).not.toContain(done.id);
    expect(cli('actions', 'failed').stdout).toMatch(new RegExp(`${failed.id}\\s+webhook:send\\s+failed`));

    expect(ok(cli('actions', 'retry', '--id', failed.id, '--json'))).toEqual({ id: failed.id, actionType: 'webhook:send', status: 'pending', attempts: 0, scheduledAt: expect.any(String) });
    const row = await withDatabase((db) => db.prisma.scheduledAction.findUniqueOrThrow({ where: { id: failed.id } }));
    expect(row).toMatchObject({ status: 'pending', attempts: 0 });
    expect(row.scheduledAt.getTime()).toBeLessThanOrEqual(Date.now());
    for (const [args, message] of [
      [['actions', 'retry', '--id', retrying.id], /Only failed actions can be retried; this one is pending/],
      [['actions', 'retry', '--id', '00000000-0000-4000-8000-000000000000'], /No scheduled action with id/],
      [['actions', 'retry'], /--id is required/],
      [['actions', 'failed', '--limit', '0'], /--limit must be/],
    ] as const) {
      const run = cli(...args);
      expect(run.status, args.join(' ')).not.toBe(0);
      expect(run.stderr).toMatch(message);
    }
  }, 300_000);
});

describe('seed', () => {
  let server: ServerProcess | undefined;
  afterAll(async () => server?.stop());

  it('loads demo data once; the printed key lists the seeded tasks from a real server', async () => {
    const seeded = ok(cli('seed', '--json'));
    expect(seeded.team).toEqual({ id: expect.any(String), name: 'Demo team' });
    expect(seeded.users.map((u: { email: string; teamRole: string }) => [u.email, u.teamRole])).toEqual([
      ['ada.demo@example.com', 'owner'], ['bob.demo@example.com', 'admin'], ['cleo.demo@example.com', 'member'],
    ]);
    expect(seeded.records).toEqual({ customers: 3, tasks: 6, projects: 1 });
    expect(seeded.media).toHaveLength(2);
    const again = cli('seed');
    expect(again.status).not.toBe(0);
    expect(again.stderr.trim()).toBe('Error: Already seeded: ada.demo@example.com exists (the seed runs once per database; nothing was changed)');

    // The server on the same database and upload directory (on PGlite, once the CLI let go of it).
    server = await startServerProcess(testDb ? { DATABASE_URL: testDb.url!, UPLOAD_DIR: uploadDir } : { DATA_DIR: dataDir!, UPLOAD_DIR: uploadDir });
    const auth = { authorization: `Bearer ${seeded.apiKey.key}` };
    const tasks = await fetch(`${server.origin}/api/v1/tasks?limit=100`, { headers: auth });
    expect(tasks.status).toBe(200);
    const titles = ((await tasks.json()) as { data: { title: string }[] }).data.map((t) => t.title);
    expect(titles).toHaveLength(5); // Ada's own (tasks are their creator's)
    expect(titles).toContain('Call Acme about the renewal');
    const customers = (await (await fetch(`${server.origin}/api/v1/customers`, { headers: auth })).json()) as { data: unknown[] };
    expect(customers.data).toHaveLength(3);
    const rendition = await fetch(`${server.origin}/api/v1/media/${seeded.media[0].id}/render?w=64`, { headers: auth });
    expect(rendition.status).toBe(200);
    expect(rendition.headers.get('content-type')).toMatch(/^image\//);
    const signIn = await fetch(`${server.origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bob.demo@example.com', password: seeded.users[1].password }) });
    expect(signIn.status).toBe(200);

    if (!testDb) {
      // While the server holds the embedded database, every command is refused, clearly.
      const refused = cli('user', 'disable', '--email', 'bob.demo@example.com');
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toMatch(/^Error: the server is running on this data directory: stop it first \(the API does not offer this\)/);
    }
  }, 600_000);
});

// The CLI beside running servers on PostgreSQL: what it changes is refused by the very next request,
// the key having just been used (cached). The servers hear the CLI's evictions over Redis.
const redisUrl = process.env.TEST_REDIS_URL;
describe.runIf(testDatabaseUrl && redisUrl)('beside a running server (PostgreSQL and Redis)', () => {
  let server: ServerProcess;
  let near: Record<string, string>;
  beforeAll(async () => {
    server = await startServerProcess({ REDIS_URL: redisUrl!, API_KEY_CACHE_TTL_SECONDS: '300', RATE_LIMIT_ENABLED: 'false' });
    near = { DATABASE_URL: server.databaseUrl!, REDIS_URL: redisUrl!, UPLOAD_DIR: uploadDir };
  }, 200_000);
  afterAll(async () => server?.stop());

  const teams = (headers: Record<string, string>) => fetch(`${server.origin}/api/v1/teams`, { headers }).then((r) => r.status);

  it('apikey revoke: the next request with the cached key is 401', async () => {
    ok(cliWith(near, 'user', 'create', '--email', 'live@example.com', '--password', 'operator-pass', '--json'));
    const key = ok(cliWith(near, 'apikey', 'create', '--email', 'live@example.com', '--name', 'live', '--scopes', 'teams:read', '--json'));
    const auth = { authorization: `Bearer ${key.key}` };
    expect(await teams(auth)).toBe(200);
    expect(await teams(auth)).toBe(200); // cached now
    expect(ok(cliWith(near, 'apikey', 'revoke', '--id', key.id, '--json')).cacheEviction).toBe('published');
    expect(await teams(auth)).toBe(401);
  }, 300_000);

  it('user disable: the next requests with the session and the cached key are 401; sign-in is 403 ACCOUNT_DISABLED; enable restores the key', async () => {
    ok(cliWith(near, 'user', 'create', '--email', 'leaver@example.com', '--password', 'operator-pass', '--json'));
    const key = ok(cliWith(near, 'apikey', 'create', '--email', 'leaver@example.com', '--name', 'live', '--scopes', 'teams:read,tasks:read', '--json'));
    const login = () => fetch(`${server.origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'leaver@example.com', password: 'operator-pass' }) });
    const signedIn = await login();
    expect(signedIn.status).toBe(200);
    const cookie = { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0]! };
    const auth = { authorization: `Bearer ${key.key}` };
    expect([await teams(cookie), await teams(auth), await teams(auth)]).toEqual([200, 200, 200]);
    const streams = [await openEventStream(`${server.origin}/api/v1/tasks/events`, cookie), await openEventStream(`${server.origin}/api/v1/tasks/events`, auth)];
    expect(streams.map((s) => s.status)).toEqual([200, 200]);

    expect(ok(cliWith(near, 'user', 'disable', '--email', 'leaver@example.com', '--json'))).toMatchObject({ endedSessions: 1, cacheEviction: 'published' });
    expect([await teams(cookie), await teams(auth)]).toEqual([401, 401]);
    // Open subscriptions end at their next credentials check (REALTIME_RECHECK_MS).
    for (const stream of streams) {
      expect((await stream.next(30_000)).data).toMatchObject({ type: 'END', code: 'UNAUTHENTICATED' });
      stream.close();
    }
    const refused = await login();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ success: false, code: 'ACCOUNT_DISABLED' });

    ok(cliWith(near, 'user', 'enable', '--email', 'leaver@example.com', '--json'));
    expect(await teams(auth)).toBe(200);
    expect(await teams(cookie)).toBe(401); // the session ended for good
  }, 300_000);
});
