// One process per PGlite data directory: the real server holds DATA_DIR; the CLI, the migration command
// and a second server refuse it at once and write nothing; a holder killed with -9 does not block the
// next one. PGlite only (a PostgreSQL server is shared by design), so it runs the same on either suite.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDataDir } from '../testkit/database.js';
import { freePort, spawnEntry, waitForHealthz, type Spawned } from '../testkit/processes.js';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.js';

const root = mkdtempSync(path.join(tmpdir(), 'data-dir-lock-'));
const children: Spawned[] = [];
afterAll(async () => {
  await Promise.all(children.map((child) => child.kill()));
  rmSync(root, { recursive: true, force: true });
});

function run(entry: string, args: string[], env: Record<string, string>): Spawned {
  const spawned = spawnEntry(entry, args, { env });
  children.push(spawned);
  return spawned;
}

describe('a running server holds its DATA_DIR', () => {
  const dataDir = path.join(root, 'server');
  let origin: string;
  let server: Spawned;

  beforeAll(async () => {
    await seedDataDir(dataDir); // the run's migrated template: what is tested here is the lock, not a first migration
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = run('src/main.ts', [], { PORT: String(port), DATA_DIR: dataDir, UPLOAD_DIR: path.join(dataDir, 'uploads') });
    await waitForHealthz(origin, server);
  }, 180_000);

  it('the CLI refuses at once with what to do instead, and the user is not created', async () => {
    const cli = run('src/cli/main.ts', ['user', 'create', '--email', 'cli-user@example.com', '--password', 'operator-pass'], { DATA_DIR: dataDir });
    const ended = await cli.exit(120_000);
    expect(ended?.code).not.toBe(0);
    expect(ended?.code).not.toBeNull();
    expect(cli.stderr()).toContain('the server is running on this data directory: stop it, or create users through the API');
    expect(cli.stderr().trim().split('\n')).toHaveLength(1);
    // Through the API: the e-mail is free (the CLI wrote nothing) and the server still writes.
    const signup = await fetch(`${origin}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'cli-user@example.com', password: 'correct horse battery', firstName: 'Api', lastName: 'User' }),
    });
    expect(signup.status).toBe(201);
    expect(await fetch(`${origin}/healthz`).then((r) => r.status)).toBe(200);
  }, 180_000);

  it('the migration command refuses too', async () => {
    const migrate = run('src/cli/migrate.ts', ['apply'], { DATA_DIR: dataDir });
    const ended = await migrate.exit(120_000);
    expect(ended?.code).toBe(1);
    expect(migrate.stderr()).toMatch(/^Error: the server is running on this data directory: stop it first/);
  }, 180_000);

  it('a second server on the same directory refuses to start, in one line, and the first one keeps serving', async () => {
    const second = run('src/main.ts', [], { PORT: String(await freePort()), DATA_DIR: dataDir });
    const ended = await second.exit(120_000);
    expect(ended?.code).toBe(1);
    expect(second.stderr()).toMatch(/^Failed to start: another server \(pid \d+\) is running on this data directory \(DATA_DIR .+\): stop it first/);
    expect(second.stderr().trim().split('\n')).toHaveLength(1);
    expect(await fetch(`${origin}/healthz`).then((r) => r.status)).toBe(200);
  }, 180_000);

  it('after kill -9, the next server starts on the directory without waiting for the lock to go stale', async () => {
    server.child.kill('SIGKILL');
    await server.exit(30_000);
    expect(readdirSync(dataDir)).toContain('pglite.lock'); // left behind
    const port = await freePort();
    const next = run('src/main.ts', [], { PORT: String(port), DATA_DIR: dataDir });
    await waitForHealthz(`http://127.0.0.1:${port}`, next);
    // The user the API created before the crash is still there: signing up again is refused.
    const again = await fetch(`http://127.0.0.1:${port}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'cli-user@example.com', password: 'correct horse battery', firstName: 'Api', lastName: 'User' }),
    });
    expect(again.status).toBe(409);
  }, 240_000);
});

describe('lockDataDir', () => {
  /** A lock as a holder with `owner` fields would have left it, with the lock's mtime `ageMs` in the past. */
  function leftLock(dir: string, owner: Record<string, unknown>, ageMs = 0): void {
    mkdirSync(path.join(dir, 'pglite.lock'), { recursive: true });
    writeFileSync(path.join(dir, 'pglite.lock.owner.json'), JSON.stringify({ holder: 'server', hostname: hostname(), bootId: null, started: null, token: 'left-behind', since: new Date().toISOString(), ...owner }));
    const when = new Date(Date.now() - ageMs);
    utimesSync(path.join(dir, 'pglite.lock'), when, when);
  }

  it('refuses a live holder on this machine, and a second lock in the same process', async () => {
    const dir = path.join(root, 'live');
    leftLock(dir, { pid: process.ppid }); // our parent runs
    await expect(lockDataDir(dir, 'cli')).rejects.toBeInstanceOf(DataDirLockedError);
    rmSync(dir, { recursive: true });
    const release = await lockDataDir(dir, 'server');
    await expect(lockDataDir(dir, 'cli')).rejects.toBeInstanceOf(DataDirLockedError);
    await release();
    expect(readdirSync(dir)).toEqual([]); // the lock went with its owner file
    await (await lockDataDir(dir, 'cli'))();
  });

  it('keeps its lock fresh while it holds it (a lock whose refresh stops would be taken over as stale)', async () => {
    const dir = path.join(root, 'fresh');
    const release = await lockDataDir(dir, 'server');
    const before = statSync(path.join(dir, 'pglite.lock')).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 6_500)); // one refresh: every 5 s
    expect(statSync(path.join(dir, 'pglite.lock')).mtimeMs).toBeGreaterThan(before);
    await release();
  }, 30_000);

  it('takes over at once from a holder whose pid is gone, or that had our own pid (a container restarted: pid 1 again)', async () => {
    const gone = path.join(root, 'gone');
    leftLock(gone, { pid: 2 ** 22 + 12345 });
    await (await lockDataDir(gone, 'server'))();
    const ours = path.join(root, 'ours');
    leftLock(ours, { pid: process.pid });
    await (await lockDataDir(ours, 'server'))();
  });

  it('takes over from a live pid once the lock went stale (a reused pid, another machine)', async () => {
    const stale = path.join(root, 'stale');
    leftLock(stale, { pid: process.ppid, hostname: 'elsewhere' }, 60_000);
    await (await lockDataDir(stale, 'server'))();
  });
});
