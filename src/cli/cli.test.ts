// The operators' CLI, run as a process against a real database, as an operator would.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../auth/password.js';
import { openDatabase, type Database } from '../db/database.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../testkit/database.js';

let env: Record<string, string>;
let testDb: TestDatabase | undefined;
let dataDir: string | undefined;

beforeAll(async () => {
  if (testDatabaseUrl) {
    testDb = await createTestDatabase();
    env = { DATABASE_URL: testDb.url! };
  } else {
    dataDir = mkdtempSync(path.join(tmpdir(), 'cli-test-'));
    env = { DATA_DIR: dataDir };
  }
});
afterAll(async () => {
  await testDb?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function cli(...args: string[]) {
  const tsx = path.resolve('node_modules/.bin/tsx');
  const { PATH, HOME } = process.env;
  return spawnSync(tsx, ['src/cli/main.ts', ...args], { encoding: 'utf8', env: { PATH, HOME, LOG_LEVEL: 'silent', ...env } });
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
  }, 60_000);

  it('refuses a duplicate e-mail with a clear error and a non-zero exit', () => {
    const run = cli('user', 'create', '--email', 'ops@example.com', '--password', 'operator-pass');
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('already exists');
  }, 60_000);

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
  }, 60_000);
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
  }, 60_000);

  it.each([
    [['user', 'set-password', '--email', 'nobody@example.com', '--password', 'long enough pass'], /No user with e-mail/],
    [['user', 'set-password', '--email', 'locked-out@example.com', '--password', 'short'], /password/],
    [['user', 'disable-2fa'], /--email is required/],
  ])('rejects %j', (args, message) => {
    const run = cli(...args);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(message);
  }, 60_000);
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
  }, 180_000); // a dozen CLI processes, each loading the app

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
