// The server as its own process (the run's build of src/main.ts): a start-up failure is one line on stderr and a
// non-zero exit, never a hang or a stack trace; SIGTERM/SIGINT end it within SHUTDOWN_TIMEOUT_MS even
// when nobody reads its output any more or Redis does not answer. On PGlite, or on a fresh PostgreSQL
// database when TEST_DATABASE_URL is set.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, seedDataDir, testDatabaseUrl, type TestDatabase } from './testkit/database.js';
import { openEventStream } from './testkit/event-stream.js';
import { subscribeOverWs, wsClient } from './testkit/graphql-subscriptions.js';
import { freePort, spawnEntry, waitForHealthz, type Spawned, type SpawnOptions } from './testkit/processes.js';

const root = mkdtempSync(path.join(tmpdir(), 'process-test-'));
const children: Spawned[] = [];
let testDb: TestDatabase | undefined;
/** A Redis stand-in that accepts connections and never answers. */
let silentRedis: Server;
const silentSockets = new Set<Socket>();

beforeAll(async () => {
  chmodSync(root, 0o755); // readable by the unprivileged user of the DATA_DIR test
  // The servers that start share one database, the run's migrated template (a fresh one migrating at
  // start is new-user.test's and the CLI test's).
  if (testDatabaseUrl) testDb = await createTestDatabase();
  else await seedDataDir(path.join(root, 'data'));
  silentRedis = createServer((socket) => {
    silentSockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => silentRedis.listen(0, '127.0.0.1', resolve));
}, 60_000);
afterAll(async () => {
  await Promise.all(children.map((child) => child.kill()));
  for (const socket of silentSockets) socket.destroy();
  await new Promise((resolve) => silentRedis.close(resolve));
  await testDb?.drop();
  rmSync(root, { recursive: true, force: true });
});

function server(env: Record<string, string>, options: Omit<SpawnOptions, 'env'> = {}): Spawned {
  const spawned = spawnEntry('src/main.ts', [], { ...options, env });
  children.push(spawned);
  return spawned;
}

/** The environment of a server that can start: its own port, the shared database (one process at a time). */
async function runnable(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const database: Record<string, string> = testDb ? { DATABASE_URL: testDb.url! } : { DATA_DIR: path.join(root, 'data') };
  return { PORT: String(await freePort()), UPLOAD_DIR: path.join(root, 'uploads'), ...database, ...extra };
}

/** Starts, waits for exit, and checks the one-line refusal. */
async function refusal(env: Record<string, string>, options: Omit<SpawnOptions, 'env'> = {}): Promise<string> {
  const started = server(env, options);
  const ended = await started.exit(150_000);
  expect(ended, `still running; stderr: ${started.stderr()}`).not.toBeNull();
  expect(ended!.code).toBe(1);
  const lines = started.stderr().trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^Failed to start: /);
  expect(started.stderr()).not.toMatch(/\s{2}at \S|node:internal|\.[jt]s:\d+:\d+/); // no stack frame
  return lines[0]!;
}

describe('start-up failures: one line, non-zero exit', () => {
  it('a port in use', async () => {
    const taken = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      expect(await refusal(await runnable({ PORT: String(port) }))).toContain(`port ${port} is already in use`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 180_000);

  it('a DATA_DIR that cannot be created (under /proc: Node\'s recursive mkdir never returned there)', async () => {
    expect(await refusal({ PORT: String(await freePort()), DATA_DIR: '/proc/no-such-dir/data' })).toContain('DATA_DIR /proc/no-such-dir/data cannot be created or written: ENOENT');
  }, 180_000);

  it('a DATA_DIR that cannot be written', async () => {
    const readOnly = path.join(root, 'read-only');
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o555);
    // root writes anywhere: the server then runs as an unprivileged user
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const line = await refusal({ PORT: String(await freePort()), DATA_DIR: readOnly, HOME: '/tmp' }, asUser);
    expect(line).toContain(`DATA_DIR ${readOnly} cannot be created or written: EACCES`);
  }, 180_000);

  it('a DATABASE_URL that is not PostgreSQL', async () => {
    const line = await refusal({ PORT: String(await freePort()), DATABASE_URL: 'mysql://app:hunter2-secret@127.0.0.1:3306/app' });
    expect(line).toContain('DATABASE_URL: expected a PostgreSQL URL');
    expect(line).not.toContain('hunter2-secret');
  }, 180_000);

  it('an unreachable PostgreSQL, named without its password', async () => {
    const line = await refusal({ PORT: String(await freePort()), DATABASE_URL: 'postgresql://app:hunter2-secret@127.0.0.1:1/app' });
    expect(line).toContain('cannot use PostgreSQL at 127.0.0.1:1/app (DATABASE_URL): connect ECONNREFUSED');
    expect(line).not.toContain('hunter2-secret');
  }, 180_000);

  it('bad settings, all listed', async () => {
    const line = await refusal({ PORT: 'eighty', REDIS_URL: 'http://cache', SHUTDOWN_TIMEOUT_MS: '-1', DATA_DIR: path.join(root, 'never') });
    expect(line).toMatch(/^Failed to start: Invalid configuration: /);
    for (const name of ['PORT', 'REDIS_URL', 'SHUTDOWN_TIMEOUT_MS']) expect(line).toContain(`${name}:`);
  }, 180_000);
});

/** Sends `text` as is on a new connection and reads until the server closes it. */
function rawRequest(origin: string, text: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(text));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('SIGTERM and SIGINT end the process within SHUTDOWN_TIMEOUT_MS', () => {
  const timeoutMs = 4_000;
  /** process.exit itself, on a loaded machine */
  const slack = 4_000;

  /** Starts a server whose stdout is a pipe, logging every request, and waits until it answers. */
  async function started(extra: Record<string, string> = {}): Promise<{ spawned: Spawned; origin: string }> {
    const env = await runnable({ LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: String(timeoutMs), ...extra });
    const spawned = server(env, { stdout: 'pipe' });
    const origin = `http://127.0.0.1:${env.PORT}`;
    await waitForHealthz(origin, spawned);
    return { spawned, origin };
  }

  async function endsWithin(spawned: Spawned, signal: NodeJS.Signals): Promise<void> {
    const sent = Date.now();
    spawned.child.kill(signal);
    const ended = await spawned.exit(timeoutMs + slack);
    expect(ended, `still running ${Date.now() - sent} ms after ${signal}`).not.toBeNull();
    expect(ended!.signal).toBeNull(); // it exited by itself
  }

  it('after its stdout was closed (the parent went away)', async () => {
    const { spawned, origin } = await started();
    spawned.child.stdout!.destroy();
    for (let i = 0; i < 50; i++) expect((await fetch(`${origin}/healthz`)).status).toBe(200); // each logs a line: EPIPE
    await endsWithin(spawned, 'SIGTERM');
  }, 240_000);

  it('while its stdout is a full pipe nobody reads (log writes would wait forever)', async () => {
    const { spawned, origin } = await started();
    spawned.child.stdout!.pause();
    // ~200 bytes of log per request: far more than a pipe holds (64 kB)
    for (let i = 0; i < 1_500; i++) expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    await endsWithin(spawned, 'SIGTERM');
  }, 240_000);

  it('on SIGINT as well (having answered what node\'s HTTP parser refuses in the envelope, as the test app does)', async () => {
    const { spawned, origin } = await started();
    const answer = await rawRequest(origin, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    await endsWithin(spawned, 'SIGINT');
    expect(spawned.stdout()).toContain('"msg":"stopped"');
  }, 240_000);

  it('with an open WebSocket subscription (node:http alone would wait for upgraded sockets): cleanly, the client told', async () => {
    const { spawned, origin } = await started();
    let closedWith!: (code: number) => void;
    const closed = new Promise<number>((resolve) => (closedWith = resolve));
    const client = wsClient(origin, { onClosed: (event: any) => closedWith(event.code) });
    // The subscription first: it keeps the (lazy) connection open, so the query after it does not
    // close and reopen it; the query's answer says the connection is acknowledged.
    const subscription = subscribeOverWs(client, 'subscription { postEvents { type } }');
    expect((await subscribeOverWs(client, '{ __typename }').next()).data).toEqual({ __typename: 'Query' });
    const sent = Date.now();
    spawned.child.kill('SIGTERM');
    expect(await closed).toBe(1001);
    const ended = await spawned.exit(timeoutMs + slack);
    expect(ended, `still running ${Date.now() - sent} ms after SIGTERM`).not.toBeNull();
    expect(ended!.code).toBe(0);
    expect(spawned.stdout()).toContain('"msg":"stopped"');
    expect(spawned.stdout()).not.toContain('shutdown timeout');
    expect(await subscription.ended).toMatchObject({ error: expect.anything() });
  }, 240_000);

  it('with an open SSE subscription: the stream is told the server restarts (END RESTARTING) and the process exits cleanly', async () => {
    const { spawned, origin } = await started();
    const stream = await openEventStream(`${origin}/api/v1/posts/events`); // public posts: anonymous
    expect(stream.status).toBe(200);
    spawned.child.kill('SIGTERM');
    expect((await stream.next(timeoutMs)).data).toMatchObject({ type: 'END', code: 'RESTARTING' });
    const ended = await spawned.exit(timeoutMs + slack);
    expect(ended).not.toBeNull();
    expect(ended!.code).toBe(0);
    expect(spawned.stdout()).toContain('"msg":"stopped"');
  }, 240_000);

  it('with a Redis that refuses connections', async () => {
    const { spawned, origin } = await started({ REDIS_URL: 'redis://127.0.0.1:1' });
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    await endsWithin(spawned, 'SIGTERM');
  }, 240_000);

  it('with a Redis that accepts connections and never answers', async () => {
    const { port } = silentRedis.address() as { port: number };
    const { spawned, origin } = await started({ REDIS_URL: `redis://127.0.0.1:${port}` });
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    await endsWithin(spawned, 'SIGTERM');
  }, 240_000);
});
