// Two instances of one deployment on one database: a change committed through either reaches the
// event streams open on both (PostgreSQL: each instance LISTENs on a connection of its own and the
// trigger's NOTIFY reaches both — here b even has a connection pool of its own, as another process
// would; PGlite: one database in process, both hubs listen on it), in commit
// order, with the same event ids, as each subscriber may see it. A reconnection to the other instance
// replays what was missed; a logout or a revoked key (evicted over Redis, as a deployment of several
// instances requires) through one instance ends the streams open on the other. Must pass on
// PostgreSQL (TEST_DATABASE_URL) as well as on PGlite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { openDatabase, type Database } from '../../db/database.js';
import { testDatabaseUrl } from '../../testkit/database.js';
import { openEventStream, type SseClient } from '../../testkit/event-stream.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let a: TestApp;
let b: TestApp;
let ownPool: Database | null = null; // b's own connections to a's database (PostgreSQL)
let alice: SignedUpUser;
let bob: SignedUpUser; // alice's teammate
let account = 3000;
const open: SseClient[] = [];
const as = (u: SignedUpUser) => ({ cookie: u.cookie });

async function subscribe(t: TestApp, path: string, headers: Record<string, string>): Promise<SseClient> {
  const stream = await openEventStream(`${t.origin}${path}`, headers);
  expect(stream.status, JSON.stringify(stream.refusal)).toBe(200);
  open.push(stream);
  return stream;
}

async function write(t: TestApp, u: SignedUpUser, method: string, path: string, body?: unknown): Promise<any> {
  const res = await t.json(method, path, body, as(u));
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body?.data;
}

const customer = (t: TestApp, u: SignedUpUser) => write(t, u, 'POST', '/api/v1/customers', { name: `Customer ${account}`, account: account++, office: 'Madrid' });

beforeAll(async () => {
  a = await createTestApp({ REDIS_URL: redisUrl, RATE_LIMIT_ENABLED: 'false' });
  if (testDatabaseUrl) {
    const [row] = await a.database.prisma.$queryRaw<{ name: string }[]>`SELECT current_database() AS name`;
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${row!.name}`;
    ownPool = await openDatabase({ url: url.toString(), dataDir: '', poolSize: 5 });
  }
  b = await createTestApp({ REDIS_URL: redisUrl, RATE_LIMIT_ENABLED: 'false' }, ownPool ? ({ database: ownPool } as TestApp) : a);
  alice = await signUp(a);
  bob = await signUp(a);
  await joinTeam(a, alice, alice.activeTeamId, bob);
});
afterAll(async () => {
  for (const stream of open) stream.close();
  await b?.close();
  await ownPool?.close();
  await a?.close();
});

describe('two instances, one database', () => {
  it('deliver each other’s changes, in commit order, with the same event ids on both', async () => {
    const onA = await subscribe(a, '/api/v1/customers/events', as(bob));
    const onB = await subscribe(b, '/api/v1/customers/events', as(alice));
    // Each change is received on both before the next is written (an update of a record deleted
    // before its delivery would rightly not be sent: a change goes out with the record as it is then).
    const fromA: Awaited<ReturnType<SseClient['next']>>[] = [];
    const fromB: typeof fromA = [];
    const receive = async () => {
      fromA.push(await onA.next());
      fromB.push(await onB.next());
    };
    const c = await customer(a, alice);
    await receive();
    await write(b, bob, 'PATCH', `/api/v1/customers/${c.id}`, { phone: '42' });
    await receive();
    await write(a, alice, 'PATCH', `/api/v1/customers/${c.id}`, { salesRep: 'Ana' });
    await receive();
    await write(b, alice, 'DELETE', `/api/v1/customers/${c.id}`);
    await receive();
    for (const events of [fromA, fromB]) {
      expect(events.map((e) => [e.data.type, e.data.id])).toEqual([
        ['CREATED', c.id],
        ['UPDATED', c.id],
        ['UPDATED', c.id],
        ['DELETED', c.id],
      ]);
      expect(events[2]!.data.record).toMatchObject({ phone: '42', salesRep: 'Ana' });
    }
    expect(fromA.map((e) => e.id)).toEqual(fromB.map((e) => e.id));
  });

  it('keep each subscriber’s visibility: a teammate on the other instance never sees a private task', async () => {
    const mine = await subscribe(b, '/api/v1/tasks/events', as(alice));
    const theirs = await subscribe(b, '/api/v1/tasks/events', as(bob));
    const secret = await write(a, alice, 'POST', '/api/v1/tasks', { title: 'Secret' });
    const created = await mine.next();
    await write(a, alice, 'DELETE', `/api/v1/tasks/${secret.id}`);
    const marker = await write(a, bob, 'POST', '/api/v1/tasks', { title: 'Bob’s' });
    expect([created, await mine.next()].map((e) => [e.data.type, e.data.id])).toEqual([
      ['CREATED', secret.id],
      ['DELETED', secret.id],
    ]);
    const next = await theirs.next();
    expect(next.data).toMatchObject({ type: 'CREATED', id: marker.id });
    expect(JSON.stringify(next)).not.toContain(secret.id);
  });

  it('a reconnection to the other instance replays what was missed, then goes on live', async () => {
    const first = await subscribe(a, '/api/v1/customers/events', as(alice));
    const before = await customer(b, alice);
    const last = await first.next();
    expect(last.data).toMatchObject({ type: 'CREATED', id: before.id });
    first.close();
    const missed = await customer(a, alice);
    await write(b, alice, 'PATCH', `/api/v1/customers/${before.id}`, { phone: '7' });
    const again = await subscribe(b, '/api/v1/customers/events', { ...as(alice), 'last-event-id': last.id! });
    // A replay may repeat older events (of transactions running anywhere in the cluster when `last`
    // was written, event-log.ts): clients deduplicate by event id. Every write here is sequential, so
    // what was missed is exactly what came after `last`.
    const next = async () => {
      for (;;) {
        const event = await again.next();
        if (BigInt(event.id!) > BigInt(last.id!)) return event;
      }
    };
    expect([await next(), await next()].map((e) => [e.data.type, e.data.id])).toEqual([
      ['CREATED', missed.id],
      ['UPDATED', before.id],
    ]);
    const live = await customer(a, alice);
    expect((await next()).data).toMatchObject({ type: 'CREATED', id: live.id });
  });

  it('a logout through one instance ends the cookie’s stream on the other', async () => {
    const user = await signUp(a);
    const stream = await subscribe(b, '/api/v1/customers/events', as(user));
    expect((await a.json('POST', '/api/auth/logout', undefined, as(user))).status).toBeLessThan(300);
    const end = await stream.next(10_000);
    expect(end.data).toMatchObject({ type: 'END', code: 'UNAUTHENTICATED' });
    await stream.closed;
  });

  it('a key revoked through one instance ends its stream on the other', async () => {
    const minted = await createKey(a, alice, { scopes: ['customers:read'] });
    const stream = await subscribe(b, '/api/v1/customers/events', bearer(minted.key));
    const seen = await customer(a, alice);
    expect((await stream.next()).data).toMatchObject({ type: 'CREATED', id: seen.id }); // b has the key cached by now
    expect((await a.json('DELETE', `/api/v1/api-keys/${minted.id}`, undefined, as(alice))).status).toBe(200);
    const end = await stream.next(10_000);
    expect(end.data).toMatchObject({ type: 'END', code: 'UNAUTHENTICATED' });
    await stream.closed;
  });
});
