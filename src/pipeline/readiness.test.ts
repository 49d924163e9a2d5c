// Liveness and readiness, and a database outage (issue 14): /healthz says the process is up,
// /readyz whether the database and Redis answer (503 naming the failing part, no secrets); while
// PostgreSQL cannot be reached requests answer 503 with Retry-After on REST and GraphQL (not 500),
// and everything works again when it is back, without a restart. The outage is a TCP proxy of the
// test's own between the app and PostgreSQL, stopped and started again, or the test database refusing
// connections with its sessions terminated (never the server itself).
import { createServer, connect, type Server, type Socket, type AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db/database.js';
import { signUp } from '../testkit/accounts.js';
import { bearer, createKey } from '../testkit/api-keys.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../testkit/database.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('/healthz and /readyz', () => {
  let plain: TestApp;
  let withRedis: TestApp;
  let deadRedis: TestApp;
  beforeAll(async () => {
    plain = await createTestApp();
    withRedis = await createTestApp({ REDIS_URL: redisUrl }, plain);
    deadRedis = await createTestApp({ REDIS_URL: 'redis://:hunter2@127.0.0.1:1' }, plain);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the clients connect (or fail to)
  });
  afterAll(async () => {
    await deadRedis?.close();
    await withRedis?.close();
    await plain?.close();
  });

  it('answers 200 with the database checked, and Redis when configured', async () => {
    const ready = await plain.json('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok' } });
    const both = await withRedis.json('GET', '/readyz');
    expect(both.status).toBe(200);
    expect(both.body).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
    expect((await plain.json('GET', '/healthz')).status).toBe(200);
  });

  it('answers 503 naming Redis when it cannot be reached, while /healthz stays 200', async () => {
    const started = performance.now();
    const ready = await deadRedis.json('GET', '/readyz');
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unavailable');
    expect(ready.body.checks.database).toBe('ok');
    expect(ready.body.checks.redis).toMatch(/^failed: /);
    expect(JSON.stringify(ready.body)).not.toContain('hunter2');
    expect((await deadRedis.json('GET', '/healthz')).status).toBe(200);
  });
});

/** A TCP proxy to PostgreSQL that the test stops (refusing connections, cutting open ones) and starts again. */
class Outage {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => this.sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const closed = new Promise((resolve) => this.server?.close(resolve));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

describe.runIf(testDatabaseUrl)('PostgreSQL unreachable', () => {
  let testDb: TestDatabase;
  let outage: Outage;
  let proxied: Database;
  let t: TestApp;
  let cookie: string;
  let teamId: string;
  let key: string;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const url = new URL(testDb.url!);
    outage = new Outage({ host: url.hostname, port: Number(url.port || 5432) });
    await outage.start();
    url.host = `127.0.0.1:${outage.port}`;
    proxied = await openDatabase({ url: url.toString(), dataDir: '', poolSize: 3 });
    t = await createTestApp({}, { database: proxied } as TestApp);
    const user = await signUp(t);
    cookie = user.cookie;
    teamId = user.activeTeamId;
    key = (await createKey(t, user)).key;
  });
  afterAll(async () => {
    await t?.close();
    await proxied?.close().catch(() => {});
    await outage?.stop().catch(() => {});
    await testDb?.drop();
  });

  const expectUnavailable = (res: { status: number; headers: Headers; body: any }) => {
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(JSON.stringify(res.body)).not.toMatch(/postgres(ql)?:\/\/|ECONNREFUSED|stack/i);
  };

  it('answers 503 with Retry-After on REST and GraphQL while it is down, /readyz says so, and recovers without a restart', async () => {
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie })).status).toBe(200);
    expect((await t.json('GET', '/readyz')).status).toBe(200);

    await outage.stop();
    const session = await t.json('GET', '/api/auth/session', undefined, { cookie });
    expectUnavailable(session);
    expect(session.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
    expectUnavailable(await t.json('GET', '/api/auth/session', undefined, bearer(key)));
    // Anonymous operations reach the database inside their resolver (the GraphQL error mapping).
    const login = await t.json('POST', '/api/auth/login', { email: 'nobody@example.com', password: 'a long password' });
    expectUnavailable(login);
    expect(login.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
    const graphql = await t.graphql('mutation { login(input: { email: "nobody@example.com", password: "a long password" }) { activeTeamId } }');
    expectUnavailable(graphql);
    expect(graphql.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    // A route whose errors carry no code (media upload) answers the same, without it.
    const upload = await t.fetch('/api/v1/media/upload', { method: 'POST', headers: { ...bearer(key), 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--\r\n' });
    const uploadBody = await upload.json();
    expectUnavailable({ status: upload.status, headers: upload.headers, body: uploadBody });
    expect(uploadBody).toEqual({ success: false, error: expect.any(String), details: expect.any(Object) });
    const ready = await t.json('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'unavailable', checks: { database: expect.stringMatching(/^failed: /) } });
    expect((await t.json('GET', '/healthz')).status).toBe(200);

    await outage.start();
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie })).status).toBe(200);
    expect((await t.json('GET', '/api/auth/session', undefined, bearer(key))).status).toBe(200);
    expect((await t.json('GET', '/readyz')).body).toEqual({ status: 'ok', checks: { database: 'ok' } });
  });

  it('answers 503 while the database refuses connections and its sessions are terminated, then recovers', async () => {
    const name = new URL(testDb.url!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: testDatabaseUrl });
    await admin.connect();
    try {
      expect((await t.json('GET', '/api/auth/session', undefined, { cookie })).status).toBe(200);
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the pool hears its connections end
      expectUnavailable(await t.json('GET', '/api/auth/session', undefined, { cookie }));
      // The key is cached by now (the session route then needs no query); a team read needs the database.
      expectUnavailable(await t.json('GET', `/api/v1/teams/${teamId}`, undefined, bearer(key)));
      expectUnavailable(await t.json('POST', '/api/auth/login', { email: 'nobody@example.com', password: 'a long password' }));
      expect((await t.json('GET', '/readyz')).status).toBe(503);
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie })).status).toBe(200);
    expect((await t.json('GET', '/readyz')).status).toBe(200);
  });
});
