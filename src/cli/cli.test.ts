// The operators' CLI against a real database, as an operator would use it. The tests build on each
// other, in order, on the file's one database (migrated by the first; its superadmin, ops@example.com,
// made by the second).
// Commands run in this process through runCli (run.ts), which the CLI's process (main.ts) runs with its
// environment, stdout and stderr: the same exit status and lines, without a process and a database
// opened anew for each of some sixty commands (about 1 s of CPU each): they share the file's database,
// held open (Cli.database; on PGlite let go while a server holds the data directory, when commands
// open it themselves and are refused). The process itself (main.ts, from the run's build) runs where
// only it shows: migrating a fresh database, and a usage error's exit.
// On PostgreSQL, commands that do not depend on each other run at once; on PGlite one at a time, as
// only one holder at a time may open the data directory.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../auth/password.js';
import { openDatabase, type Database } from '../db/database.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../testkit/database.js';
import { openEventStream } from '../testkit/event-stream.js';
import { entryArguments } from '../testkit/processes.js';
import { startServerProcess, type ServerProcess } from '../testkit/server-process.js';
import { runCli } from './run.js';

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
  await letGo();
  await testDb?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  rmSync(uploadDir, { recursive: true, force: true });
});

interface Run {
  /** The exit status (null when killed by a signal). */
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The file's embedded database, held open between commands (opening it costs ~0.4 s of CPU), unless let go. */
let held: Database | undefined;
let holding = true;

/** The file's database for the next command: the test database on PostgreSQL; on PGlite the held one, or none while let go. */
async function fileDatabase(): Promise<Database | undefined> {
  if (testDb) return testDb.database;
  if (!holding) return undefined;
  held ??= await openDatabase({ dataDir: dataDir!, poolSize: 2, holder: 'cli' });
  return held;
}

/** Closes the held embedded database, so that a server (or a command of its own) can open the data directory; `hold()` takes it back. */
async function letGo(): Promise<void> {
  holding = false;
  await held?.close();
  held = undefined;
}
const hold = () => void (holding = true);

/** A command on the file's database. */
async function cli(...args: string[]): Promise<Run> {
  return runIn(env, await fileDatabase(), args);
}

/** A command with `environment` (the database it works on, Redis), which it opens itself. */
function cliWith(environment: Record<string, string>, ...args: string[]): Promise<Run> {
  return runIn(environment, undefined, args);
}

/** A command run in this process, as main.ts runs it: with `environment`, on `database` when given. */
async function runIn(environment: Record<string, string>, database: Database | undefined, args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, { env: { LOG_LEVEL: 'silent', ...environment }, database, out: (line) => void (stdout += `${line}\n`), err: (line) => void (stderr += `${line}\n`) });
  return { status, stdout, stderr };
}

/** The CLI as a process (main.ts) with `environment`. */
function cliProcess(environment: Record<string, string>, ...args: string[]): Promise<Run> {
  const { PATH, HOME } = process.env;
  const child = spawn(process.execPath, [...entryArguments('src/cli/main.ts'), ...args], { env: { PATH, HOME, LOG_LEVEL: 'silent', ...environment }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Several commands: at once on PostgreSQL; one after another on PGlite (one process at a time holds the data directory). */
async function cliAll(commands: readonly (readonly string[])[]): Promise<Run[]> {
  if (testDb) return Promise.all(commands.map((args) => cli(...args)));
  const runs = [];
  for (const args of commands) runs.push(await cli(...args));
  return runs;
}

/** Each command fails (non-zero exit) with its message on stderr. */
async function expectRefused(cases: readonly (readonly [readonly string[], RegExp])[]): Promise<void> {
  const runs = await cliAll(cases.map(([args]) => args));
  for (const [i, run] of runs.entries()) {
    const [args, message] = cases[i]!;
    expect(run.status, args.join(' ')).not.toBe(0);
    expect(run.stderr, args.join(' ')).toMatch(message);
  }
}

/** The JSON a successful command printed (its stderr empty). */
function ok(run: Run) {
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout);
}

/** `work` on the file's database (held open on PGlite). */
async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  return work((await fileDatabase())!);
}

describe('migrations apply', () => {
  it('applies what is pending, once', async () => {
    // A database with nothing applied yet: on PGlite the file's own, whose data directory the first
    // command makes (the tests after this one work on it); on PostgreSQL, where the file's database is
    // migrated already, a new embedded one (the runner is the same).
    const fresh = testDb ? mkdtempSync(path.join(tmpdir(), 'cli-test-fresh-')) : undefined;
    try {
      const there = fresh ? { DATA_DIR: fresh, UPLOAD_DIR: uploadDir } : env;
      // As processes: what an operator's shell sees, the exit status and the output.
      const pending = ok(await cliProcess(there, 'migrations', 'status', '--json')) as { migration: string; state: string }[];
      expect(pending.length).toBeGreaterThan(5);
      expect(pending.every((r) => r.state === 'pending')).toBe(true);
      expect(ok(await cliProcess(there, 'migrations', 'apply', '--json'))).toEqual({ applied: pending.map((r) => r.migration) });
      expect(ok(await cliWith(there, 'migrations', 'apply', '--json'))).toEqual({ applied: [] });
      expect((await cliProcess(there, 'migrations', 'apply')).stdout.trim()).toBe('Database is up to date.');
      // A usage error: the usage on stderr, exit status 2; an unknown option: one line, exit status 1.
      const [unknown, bogus] = [await cliProcess(there, 'user', 'delete'), await cliProcess(there, 'user', 'create', '--bogus')];
      expect({ status: unknown.status, stdout: unknown.stdout, usage: unknown.stderr.split('\n')[0] }).toEqual({ status: 2, stdout: '', usage: expect.stringMatching(/^Usage: npm run -s cli -- <command>/) });
      expect({ status: bogus.status, stdout: bogus.stdout, stderr: bogus.stderr }).toEqual({ status: 1, stdout: '', stderr: "Error: Unknown option '--bogus'\n" });
    } finally {
      if (fresh) rmSync(fresh, { recursive: true, force: true });
    }
  }, 300_000);
});

describe('cli user create', () => {
  it('creates a user with a role and a personal team, printing JSON', async () => {
    const run = await cli('user', 'create', '--email', 'Ops@Example.com', '--password', 'operator-pass', '--role', 'superadmin', '--first-name', 'Op', '--json');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toEqual({ id: expect.any(String), email: 'ops@example.com', role: 'superadmin', teamId: expect.any(String) });
    const owner = await withDatabase((db) => db.prisma.teamMember.findFirst({ where: { userId: out.id } }));
    expect(owner).toMatchObject({ teamId: out.teamId, role: 'owner' });
  }, 120_000);

  it('refuses a duplicate e-mail with a clear error and a non-zero exit', async () => {
    const run = await cli('user', 'create', '--email', 'ops@example.com', '--password', 'operator-pass');
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('already exists');
  }, 120_000);

  it('rejects a missing password, a bad e-mail or role, an unknown option and an unknown command', async () => {
    await expectRefused([
      [['user', 'create', '--email', 'x@example.com'], /password/],
      [['user', 'create', '--email', 'not-mail', '--password', 'operator-pass'], /email/],
      [['user', 'create', '--email', 'y@example.com', '--password', 'operator-pass', '--role', 'king'], /role/],
      [['user', 'create', '--bogus'], /bogus/],
      [['user', 'delete'], /Usage/],
    ]);
  }, 120_000);
});

describe('cli user set-password and disable-2fa', () => {
  it('sets a password, ending the sessions, and turns two-factor off, for an operator', async () => {
    const created = ok(await cli('user', 'create', '--email', 'locked-out@example.com', '--password', 'forgotten-pass', '--json'));
    await withDatabase(async (db) => {
      await db.prisma.session.create({ data: { userId: created.id, tokenHash: 'f'.repeat(64), expiresAt: new Date(Date.now() + 3_600_000) } });
      await db.prisma.userTotp.create({ data: { userId: created.id, secretSealed: 'plain:JBSWY3DPEHPK3PXP', enabledAt: new Date() } });
    });
    const set = await cli('user', 'set-password', '--email', 'Locked-Out@example.com', '--password', 'a new operator pass', '--json');
    expect(set.stderr).toBe('');
    expect(JSON.parse(set.stdout)).toEqual({ id: created.id, email: 'locked-out@example.com', endedSessions: 1 });
    const off = await cli('user', 'disable-2fa', '--email', 'locked-out@example.com');
    expect(off.stdout).toContain('Two-factor sign-in turned off for locked-out@example.com');
    expect((await cli('user', 'disable-2fa', '--email', 'locked-out@example.com')).stdout).toContain('was not on');
    await withDatabase(async (db) => {
      const user = await db.prisma.user.findUniqueOrThrow({ where: { id: created.id } });
      expect(await verifyPassword(user.passwordHash, 'a new operator pass')).toBe(true);
      expect(await db.prisma.session.count({ where: { userId: created.id } })).toBe(0);
      expect(await db.prisma.userTotp.count({ where: { userId: created.id } })).toBe(0);
    });
  }, 300_000);

  it('rejects an unknown user, a short password and a missing e-mail', async () => {
    await expectRefused([
      [['user', 'set-password', '--email', 'nobody@example.com', '--password', 'long enough pass'], /No user with e-mail/],
      [['user', 'set-password', '--email', 'locked-out@example.com', '--password', 'short'], /password/],
      [['user', 'disable-2fa'], /--email is required/],
    ]);
  }, 120_000);
});

// keys@example.com and its key "deploy", made here, are listed and revoked by the tests after this one.
let keyOwner: { id: string; teamId: string };
let deployKey: { id: string; key: string; keyPrefix: string };

describe('apikey create', () => {
  it('mints a key for an existing user within their role, printing {id,key,...} once', async () => {
    const made = await cli('user', 'create', '--email', 'keys@example.com', '--password', 'operator-pass');
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    const [, id, teamId] = /^Created member keys@example\.com \(id ([0-9a-f-]{36}), team ([0-9a-f-]{36})\)\n$/.exec(made.stdout) ?? [];
    expect(id && teamId, made.stdout).toBeTruthy();
    keyOwner = { id: id!, teamId: teamId! };
    const res = await cli('apikey', 'create', '--email', 'keys@example.com', '--name', 'deploy', '--scopes', 'teams:read,teams:*', '--json');
    expect(res.status).toBe(0);
    const out = JSON.parse(res.stdout);
    deployKey = out;
    expect(out).toMatchObject({ name: 'deploy', scopes: ['teams:read', 'teams:*'], status: 'active', keyPrefix: out.key.slice(0, 12) });
    expect(out.key).toMatch(/^sk_test_[A-Za-z0-9_-]{40}$/);
    const stored = await withDatabase((db) => db.prisma.apiKey.findUnique({ where: { id: out.id } }));
    expect(stored?.keyPrefix).toBe(out.key.slice(0, 12));

    await expectRefused([
      [['apikey', 'create', '--email', 'keys@example.com', '--name', 'all', '--scopes', '*'], /reserved for superadmins/],
      [['apikey', 'create', '--email', 'nobody@example.com', '--name', 'x', '--scopes', 'teams:read'], /No user/],
    ]);
  }, 120_000);
});

describe('listings', () => {
  it('lists users, keys (never their secret), teams and members, as JSON and as a table', async () => {
    const [users, keys, teams, members] = await cliAll([['user', 'list', '--json'], ['apikey', 'list', '--email', 'Keys@Example.com', '--json'], ['team', 'list', '--json'], ['team', 'members', '--team', keyOwner.teamId]]);
    expect(ok(users!)).toContainEqual(expect.objectContaining({ id: keyOwner.id, email: 'keys@example.com', role: 'member' }));
    expect(ok(keys!)).toEqual([expect.objectContaining({ id: deployKey.id, owner: 'keys@example.com', name: 'deploy', keyPrefix: deployKey.keyPrefix, scopes: ['teams:read', 'teams:*'], status: 'active' })]);
    expect(keys!.stdout).not.toContain(deployKey.key);
    expect(ok(teams!)).toContainEqual(expect.objectContaining({ id: keyOwner.teamId, members: 1 }));
    expect(members!.status).toBe(0);
    expect(members!.stdout.split('\n')[0]).toMatch(/^userId\s+email\s+role\s+joinedAt$/);
    expect(members!.stdout).toMatch(new RegExp(`${keyOwner.id}\\s+keys@example.com\\s+owner`));

    await expectRefused([
      [['apikey', 'list', '--email', 'nobody@example.com'], /No user with e-mail/],
      [['team', 'members', '--team', 'not-an-id'], /--team must be a team id/],
      [['team', 'members', '--team', '00000000-0000-4000-8000-000000000000'], /No team with id/],
      [['user', 'list', '--verbose'], /Unknown option/],
    ]);
  }, 300_000);

  it('tells which migrations are applied, applying none', async () => {
    const rows = ok(await cli('migrations', 'status', '--json')) as { migration: string; state: string; appliedAt: string | null }[];
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.every((r) => r.state === 'applied' && r.appliedAt)).toBe(true);
    // One forgotten as if it were new: pending, and still pending after the status (nothing applied).
    const last = rows.at(-1)!.migration;
    await withDatabase((db) => db.prisma.$executeRawUnsafe(`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '${last}'`));
    try {
      const text = await cli('migrations', 'status');
      expect(text.stdout).toMatch(new RegExp(`${last}\\s+pending`));
      expect(text.stdout).toContain('1 not applied');
      const appliedSince = await withDatabase((db) => db.prisma.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM _prisma_migrations WHERE migration_name = '${last}' AND rolled_back_at IS NULL`));
      expect(appliedSince).toEqual([]);
    } finally {
      await withDatabase((db) => db.prisma.$executeRawUnsafe(`UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = '${last}'`));
    }
  }, 120_000);
});

describe('user set-role, disable and enable', () => {
  it('changes roles and disables a user (sessions end), keeping an enabled superadmin', async () => {
    const created = ok(await cli('user', 'create', '--email', 'roles@example.com', '--password', 'operator-pass', '--json'));
    expect(ok(await cli('user', 'set-role', '--email', 'Roles@example.com', '--role', 'developer', '--json'))).toMatchObject({ id: created.id, role: 'developer', previousRole: 'member' });
    await withDatabase((db) => db.prisma.session.create({ data: { userId: created.id, tokenHash: 'e'.repeat(64), expiresAt: new Date(Date.now() + 3_600_000) } }));
    const disabled = ok(await cli('user', 'disable', '--email', 'roles@example.com', '--json'));
    expect(disabled).toEqual({ id: created.id, email: 'roles@example.com', disabledAt: expect.any(String), wasDisabled: false, endedSessions: 1, cacheEviction: testDb ? 'no-redis' : 'not-needed' });
    const [again, list] = await cliAll([['user', 'disable', '--email', 'roles@example.com'], ['user', 'list', '--json']]);
    expect(again!.stdout).toContain('Already disabled');
    const listed = ok(list!) as { email: string; disabledAt: string | null }[];
    expect(listed.find((u) => u.email === 'roles@example.com')?.disabledAt).toBe(disabled.disabledAt);
    expect(ok(await cli('user', 'enable', '--email', 'roles@example.com', '--json'))).toEqual({ id: created.id, email: 'roles@example.com', disabledAt: null, wasDisabled: true });
    await withDatabase(async (db) => {
      expect(await db.prisma.session.count({ where: { userId: created.id } })).toBe(0);
      expect((await db.prisma.user.findUniqueOrThrow({ where: { id: created.id } })).disabledAt).toBeNull();
    });

    // ops@example.com is the only superadmin: neither demoted nor disabled, until another is made.
    for (const refused of await cliAll([['user', 'set-role', '--email', 'ops@example.com', '--role', 'member'], ['user', 'disable', '--email', 'ops@example.com']])) {
      expect(refused.status).not.toBe(0);
      expect(refused.stderr.trim()).toBe('Error: ops@example.com is the last enabled superadmin: make another user superadmin first');
    }
    ok(await cli('user', 'set-role', '--email', 'roles@example.com', '--role', 'superadmin', '--json'));
    ok(await cli('user', 'disable', '--email', 'ops@example.com', '--json'));
    const last = await cli('user', 'set-role', '--email', 'roles@example.com', '--role', 'member');
    expect(last.stderr).toMatch(/roles@example.com is the last enabled superadmin/);
    ok(await cli('user', 'enable', '--email', 'ops@example.com', '--json'));
    ok(await cli('user', 'set-role', '--email', 'roles@example.com', '--role', 'member', '--json'));

    await expectRefused([
      [['user', 'set-role', '--email', 'roles@example.com', '--role', 'king'], /--role must be member, developer or superadmin/],
      [['user', 'disable', '--email', 'nobody@example.com'], /No user with e-mail nobody@example.com/],
      [['user', 'enable'], /--email is required/],
    ]);
  }, 600_000); // some twenty commands
});

describe('audit list', () => {
  it("lists a team's log: an operator's ending of a member's sessions, by the system", async () => {
    const user = (ok(await cli('user', 'list', '--json')) as { id: string; email: string }[]).find((u) => u.email === 'roles@example.com')!;
    const { teamId } = await withDatabase((db) => db.prisma.teamMember.findFirstOrThrow({ where: { userId: user.id }, select: { teamId: true } }));
    const [json, text, bad] = await cliAll([['audit', 'list', '--team', teamId, '--action', 'sessions.*', '--json'], ['audit', 'list', '--team', teamId], ['audit', 'list', '--team', 'nope']]);
    expect(ok(json!)).toContainEqual(expect.objectContaining({ action: 'sessions.revoked', userId: user.id, actorUserId: null, details: { count: 1, reason: 'account disabled by an operator' } }));
    expect(text!.stdout.split('\n')[0]).toMatch(/^createdAt\s+action\s+actor\s+apiKey\s+target\s+member\s+details$/);
    expect(bad!.stderr.trim()).toBe('Error: Invalid arguments: --team must be a team id (team list shows them)');
  }, 120_000);
});

describe('apikey revoke', () => {
  it('revokes by id or prefix, as the API does (audited), and says so once', async () => {
    const first = deployKey;
    const second = ok(await cli('apikey', 'create', '--email', 'keys@example.com', '--name', 'two', '--scopes', 'teams:read', '--json'));
    expect(ok(await cli('apikey', 'revoke', '--id', first.id, '--json'))).toEqual({
      id: first.id, keyPrefix: first.keyPrefix, name: 'deploy', owner: 'keys@example.com', status: 'inactive', wasActive: true, cacheEviction: testDb ? 'no-redis' : 'not-needed',
    });
    const [byPrefix, again] = await cliAll([['apikey', 'revoke', '--prefix', second.keyPrefix], ['apikey', 'revoke', '--id', first.id]]);
    expect(byPrefix!.stdout).toMatch(/^Revoked: key sk_test_.{4}… \(two\) of keys@example.com/);
    expect(again!.stdout).toMatch(/^Already inactive/);
    await withDatabase(async (db) => {
      const keys = await db.prisma.apiKey.findMany({ where: { id: { in: [first.id, second.id] } } });
      expect(keys.map((k) => [k.status, Boolean(k.revokedAt)])).toEqual([['inactive', true], ['inactive', true]]);
      expect(await db.prisma.apiKeyAudit.count({ where: { keyId: first.id, action: 'revoked' } })).toBeGreaterThanOrEqual(1);
    });
    await expectRefused([
      [['apikey', 'revoke'], /give --id or --prefix/],
      [['apikey', 'revoke', '--id', 'nope'], /--id must be a key id/],
      [['apikey', 'revoke', '--id', '00000000-0000-4000-8000-000000000000'], /No API key with id/],
      [['apikey', 'revoke', '--prefix', 'sk_test_none'], /No API key with prefix sk_test_none/],
    ]);
  }, 300_000);
});

describe('scheduled actions', () => {
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
    const [asJson, asTable] = await cliAll([['actions', 'failed', '--json'], ['actions', 'failed']]);
    const listed = ok(asJson!) as { id: string }[];
    expect(listed).toEqual(expect.arrayContaining([
      { id: failed.id, actionType: 'webhook:send', status: 'failed', teamId: null, failures: 3, maxRetries: 3, lastError: 'HTTP 500 from the endpoint', lastFailedAt: expect.any(String), nextRunAt: null },
      expect.objectContaining({ id: retrying.id, status: 'pending', failures: 1, lastError: 'timed out after 30000 ms', nextRunAt: retrying.scheduledAt.toISOString() }),
    ]));
    expect(listed.map((a) => a.id)).not.toContain(done.id);
    expect(asTable!.stdout).toMatch(new RegExp(`${failed.id}\\s+webhook:send\\s+failed`));

    expect(ok(await cli('actions', 'retry', '--id', failed.id, '--json'))).toEqual({ id: failed.id, actionType: 'webhook:send', status: 'pending', attempts: 0, scheduledAt: expect.any(String) });
    const row = await withDatabase((db) => db.prisma.scheduledAction.findUniqueOrThrow({ where: { id: failed.id } }));
    expect(row).toMatchObject({ status: 'pending', attempts: 0 });
    expect(row.scheduledAt.getTime()).toBeLessThanOrEqual(Date.now());
    await expectRefused([
      [['actions', 'retry', '--id', retrying.id], /Only failed actions can be retried; this one is pending/],
      [['actions', 'retry', '--id', '00000000-0000-4000-8000-000000000000'], /No scheduled action with id/],
      [['actions', 'retry'], /--id is required/],
      [['actions', 'failed', '--limit', '0'], /--limit must be/],
    ]);
  }, 300_000);
});

describe('seed', () => {
  let server: ServerProcess | undefined;
  afterAll(async () => server?.stop());
  /** The server on the CLI's database and upload directory. */
  const serverEnv = (): Record<string, string> => (testDb ? { DATABASE_URL: testDb.url!, UPLOAD_DIR: uploadDir } : { DATA_DIR: dataDir!, UPLOAD_DIR: uploadDir });

  it('loads demo data once; the printed key lists the seeded tasks from a real server', async () => {
    const seeded = ok(await cli('seed', '--json'));
    expect(seeded.team).toEqual({ id: expect.any(String), name: 'Demo team' });
    expect(seeded.users.map((u: { email: string; teamRole: string }) => [u.email, u.teamRole])).toEqual([
      ['ada.demo@example.com', 'owner'], ['bob.demo@example.com', 'admin'], ['cleo.demo@example.com', 'member'],
    ]);
    expect(seeded.records).toEqual({ customers: 3, tasks: 6, projects: 1, orders: 2 });
    expect(seeded.media).toHaveLength(2);
    const again = await cli('seed');
    expect(again.status).not.toBe(0);
    expect(again.stderr.trim()).toBe('Error: Already seeded: ada.demo@example.com exists (the seed runs once per database; nothing was changed)');

    // The server on the same database and upload directory (on PGlite, once the CLI let go of it).
    await letGo();
    server = await startServerProcess(serverEnv());
    const auth = { authorization: `Bearer ${seeded.apiKey.key}` };
    const tasks = await fetch(`${server.origin}/api/v1/tasks?limit=100`, { headers: auth });
    expect(tasks.status).toBe(200);
    const seededTasks = ((await tasks.json()) as { data: { id: string; title: string }[] }).data;
    const titles = seededTasks.map((t) => t.title);
    expect(titles).toHaveLength(5); // Ada's own (tasks are their creator's)
    expect(titles).toContain('Call Acme about the renewal');
    // Each kept its creation's version, made through the CLI's face by Ada (no key).
    const versions = (await (await fetch(`${server.origin}/api/v1/tasks/${seededTasks[0]!.id}/versions`, { headers: auth })).json()) as { data: Record<string, unknown>[] };
    expect(versions.data.map((v) => [v.version, v.operation, v.face, v.apiKeyId])).toEqual([[1, 'create', 'cli', null]]);
    expect(versions.data[0]!.userId).toBe(seeded.users[0].id);
    const customers = (await (await fetch(`${server.origin}/api/v1/customers`, { headers: auth })).json()) as { data: unknown[] };
    expect(customers.data).toHaveLength(3);
    // The seed wrote through the entities' hooks: numbered, the paid one stamped, the virtual count filled.
    const orders = (await (await fetch(`${server.origin}/api/v1/orders?sortBy=number&sortOrder=asc`, { headers: auth })).json()) as { data: Record<string, unknown>[] };
    expect(orders.data.map((o) => [o.number, o.status, typeof o.paidAt, o.lineCount])).toEqual([['ORD-0001', 'placed', 'object', 1], ['ORD-0002', 'paid', 'string', 2]]);
    const rendition = await fetch(`${server.origin}/api/v1/media/${seeded.media[0].id}/render?w=64`, { headers: auth });
    expect(rendition.status).toBe(200);
    expect(rendition.headers.get('content-type')).toMatch(/^image\//);
    const signIn = await fetch(`${server.origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bob.demo@example.com', password: seeded.users[1].password }) });
    expect(signIn.status).toBe(200);

    if (!testDb) {
      // While the server holds the embedded database, every command is refused, clearly.
      const refused = await cli('user', 'disable', '--email', 'bob.demo@example.com');
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toMatch(/^Error: the server is running on this data directory: stop it first \(the API does not offer this\)/);
    }
  }, 600_000);

  it('mail outbox: a reset link the server only recorded (no SMTP_URL) is listed for the operator, and it works', async () => {
    const bob = 'bob.demo@example.com';
    const post = (route: string, body: unknown) => fetch(`${server!.origin}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/api/auth/password-reset', { email: bob })).status).toBe(202);
    // The reset is mailed after the answer. On PGlite the server lets go of the data directory for the
    // CLI, stopped as an operator stops it (SIGTERM: its shutdown waits for that work), and comes back
    // after; on PostgreSQL the CLI reads beside it.
    if (!testDb) {
      const exited = new Promise((resolve) => server!.child.once('exit', resolve));
      server!.child.kill('SIGTERM');
      await exited;
      await server!.stop();
      hold();
    }
    type Mail = { subject: string; links: string[] };
    const outbox = async () => ok(await cli('mail', 'outbox', '--to', 'BOB.demo@example.com', '--json')) as Mail[];
    await expect.poll(async () => (await outbox())[0]?.subject, { timeout: 60_000, interval: 500 }).toBe('Reset your password');
    const [mail] = await outbox();
    const [asTable, nobody] = await cliAll([['mail', 'outbox', '--to', bob], ['mail', 'outbox', '--to', 'nobody@example.com']]);
    expect(mail).toEqual({ id: expect.any(String), createdAt: expect.any(String), to: bob, subject: 'Reset your password', status: 'recorded', links: [expect.stringMatching(/^\/console\/reset-password\?token=\S+$/)], error: null, body: expect.stringContaining(`Choose a new password: ${mail!.links[0]}`) });
    expect(asTable!.stdout.split('\n')[0]).toMatch(/^id\s+createdAt\s+to\s+subject\s+status\s+links$/);
    expect(asTable!.stdout).toContain(mail!.links[0]);
    expect(nobody!.stdout.trim()).toBe('No e-mail to nobody@example.com.');
    await expectRefused([[['mail', 'outbox', '--limit', '0'], /--limit must be/]]);
    if (!testDb) {
      await letGo();
      server = await startServerProcess(serverEnv());
    }
    const token = new URL(mail!.links[0]!, server!.origin).searchParams.get('token');
    expect((await post('/api/auth/password-reset/confirm', { token, password: 'a new password from the outbox' })).status).toBe(200);
    expect((await post('/api/auth/login', { email: bob, password: 'a new password from the outbox' })).status).toBe(200);
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
    ok(await cliWith(near, 'user', 'create', '--email', 'live@example.com', '--password', 'operator-pass', '--json'));
    const key = ok(await cliWith(near, 'apikey', 'create', '--email', 'live@example.com', '--name', 'live', '--scopes', 'teams:read', '--json'));
    const auth = { authorization: `Bearer ${key.key}` };
    expect(await teams(auth)).toBe(200);
    expect(await teams(auth)).toBe(200); // cached now
    expect(ok(await cliWith(near, 'apikey', 'revoke', '--id', key.id, '--json')).cacheEviction).toBe('published');
    expect(await teams(auth)).toBe(401);
  }, 300_000);

  it('user disable: the next requests with the session and the cached key are 401; sign-in is 403 ACCOUNT_DISABLED; enable restores the key', async () => {
    ok(await cliWith(near, 'user', 'create', '--email', 'leaver@example.com', '--password', 'operator-pass', '--json'));
    const key = ok(await cliWith(near, 'apikey', 'create', '--email', 'leaver@example.com', '--name', 'live', '--scopes', 'teams:read,tasks:read', '--json'));
    const login = () => fetch(`${server.origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'leaver@example.com', password: 'operator-pass' }) });
    const signedIn = await login();
    expect(signedIn.status).toBe(200);
    const cookie = { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0]! };
    const auth = { authorization: `Bearer ${key.key}` };
    expect([await teams(cookie), await teams(auth), await teams(auth)]).toEqual([200, 200, 200]);
    const streams = [await openEventStream(`${server.origin}/api/v1/tasks/events`, cookie), await openEventStream(`${server.origin}/api/v1/tasks/events`, auth)];
    expect(streams.map((s) => s.status)).toEqual([200, 200]);

    expect(ok(await cliWith(near, 'user', 'disable', '--email', 'leaver@example.com', '--json'))).toMatchObject({ endedSessions: 1, cacheEviction: 'published' });
    expect([await teams(cookie), await teams(auth)]).toEqual([401, 401]);
    // Open subscriptions end at their next credentials check (REALTIME_RECHECK_MS).
    for (const stream of streams) {
      expect((await stream.next(30_000)).data).toMatchObject({ type: 'END', code: 'UNAUTHENTICATED' });
      stream.close();
    }
    const refused = await login();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ success: false, code: 'ACCOUNT_DISABLED' });

    ok(await cliWith(near, 'user', 'enable', '--email', 'leaver@example.com', '--json'));
    expect(await teams(auth)).toBe(200);
    expect(await teams(cookie)).toBe(401); // the session ended for good
  }, 300_000);
});
