// Anonymous requests have a limit of their own (issue 36: public entities and anonymous subscriptions
// were open to one address's flood): RATE_LIMIT_ANONYMOUS per client address per minute, an IPv6
// address by its /64, on every face (REST, /graphql, event streams, graphql-ws), answered as keys are
// (429 in the contract's envelope with retryAfter, RateLimit-* headers); under RATE_LIMIT_ENABLED;
// counted in Redis across instances, in memory while Redis is down. Addresses are given in
// X-Forwarded-For (TRUST_PROXY) and random per test, so that counters never cross tests or runs.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../testkit/accounts.js';
import { openEventStream } from '../testkit/event-stream.js';
import { subscribeOverWs, wsClient } from '../testkit/graphql-subscriptions.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

const limit = 5;
const limits = { RATE_LIMIT_ANONYMOUS: String(limit), TRUST_PROXY: 'true' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A /64 of its own: `${network}:<host part>` is one of its addresses. */
const newNetwork = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(limits);
});
afterAll(() => t?.close());

describe('anonymous requests per address', () => {
  it('let at most the limit of a concurrent burst through, from any addresses of one /64; another /64 is counted apart', async () => {
    const network = newNetwork();
    // Twelve different addresses of the /64 (as a host picks them), all at once.
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => t.json('GET', '/api/v1/posts', undefined, from(`${network}:${i + 1}::${i + 2}`))));
    const passed = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect([passed.length, refused.length]).toEqual([limit, 12 - limit]);
    for (const answer of refused) {
      expect(answer.body).toEqual({ success: false, error: 'Rate limit exceeded', retryAfter: expect.any(Number) });
      expect(answer.body.retryAfter).toBeGreaterThan(0);
      expect(answer.headers.get('retry-after')).toBe(String(answer.body.retryAfter));
      expect(answer.headers.get('ratelimit-limit')).toBe(String(limit));
      expect(answer.headers.get('ratelimit-remaining')).toBe('0');
    }
    // Passed requests carry the headers too, as a key's do.
    expect(passed.map((a) => a.headers.get('ratelimit-limit'))).toEqual(Array(limit).fill(String(limit)));
    expect(passed.map((a) => Number(a.headers.get('ratelimit-remaining'))).sort()).toEqual([0, 1, 2, 3, 4]);

    expect((await t.json('GET', '/api/v1/posts', undefined, from(`${newNetwork()}::1`))).status).toBe(200);
  });

  it('count on every face: REST, /graphql, an event stream, graphql-ws connections and operations', async () => {
    const ip = `${newNetwork()}::7`;
    const author = await signUp({ ...t, json: (method, path, body, headers) => t.json(method, path, body, { ...headers, ...from(`${newNetwork()}::1`) }) });
    // Five different requests use the address's five.
    expect((await t.json('GET', '/api/v1/posts', undefined, from(ip))).status).toBe(200);
    expect((await t.graphql('{ posts { items { id } } }', {}, from(ip))).status).toBe(200);
    const stream = await openEventStream(`${t.origin}/api/v1/posts/events`, from(ip));
    expect(stream.status).toBe(200);
    stream.close();
    // graphql-ws: connection_init is one request, each operation another. The subscription is open once
    // it receives a change.
    const client = wsClient(t.origin, { headers: from(ip) });
    const subscription = subscribeOverWs(client, 'subscription { postEvents { eventId type } }');
    // Posts published until one reaches it (the client connects and subscribes in its own time).
    let received = null;
    for (let i = 0; i < 40 && !received; i++) {
      const post = { title: 'Rate', slug: `rate-${randomBytes(4).toString('hex')}`, status: 'published' };
      expect((await t.json('POST', '/api/v1/posts', post, { cookie: author.cookie })).status).toBe(201);
      received = await subscription.next(500).catch(() => null);
    }
    expect(received?.data).toMatchObject({ postEvents: { type: 'CREATED' } });
    const refusedOverWs = subscribeOverWs(client, '{ __typename }');
    expect(await refusedOverWs.ended).toMatchObject({ error: [{ extensions: { code: 'RATE_LIMITED' } }] });
    await client.dispose();

    // Then each face refuses.
    expect((await t.json('GET', '/api/v1/posts', undefined, from(ip))).status).toBe(429);
    const graphql = await t.graphql('{ posts { items { id } } }', {}, from(ip));
    expect(graphql.status).toBe(429);
    expect(graphql.body).toMatchObject({ success: false, retryAfter: expect.any(Number) });
    const refusedStream = await openEventStream(`${t.origin}/api/v1/posts/events`, from(ip));
    expect(refusedStream.status).toBe(429);
    expect(refusedStream.refusal).toMatchObject({ success: false, retryAfter: expect.any(Number) });
    const closed = await new Promise<{ code: number }>((resolve) => {
      const socket = wsClient(t.origin, { headers: from(ip), onClosed: (event: any) => resolve({ code: event.code }) });
      subscribeOverWs(socket, '{ __typename }');
    });
    expect(closed.code).toBe(4429);
  });

  it('leave signed-in callers to their own limits: a session from a spent address goes on', async () => {
    const ip = `${newNetwork()}::9`;
    const user = await signUp({ ...t, json: (method, path, body, headers) => t.json(method, path, body, { ...headers, ...from(ip) }) });
    await Promise.all(Array.from({ length: limit }, () => t.json('GET', '/api/v1/posts', undefined, from(ip))));
    expect((await t.json('GET', '/api/v1/posts', undefined, from(ip))).status).toBe(429);
    const signedIn = await t.json('GET', '/api/v1/posts', undefined, { ...from(ip), cookie: user.cookie });
    expect(signedIn.status).toBe(200);
  });

  it('are not limited when RATE_LIMIT_ENABLED is false', async () => {
    const off = await createTestApp({ ...limits, RATE_LIMIT_ENABLED: 'false' }, t);
    try {
      const ip = `${newNetwork()}::3`;
      const answers = await Promise.all(Array.from({ length: limit * 2 }, () => off.json('GET', '/api/v1/posts', undefined, from(ip))));
      expect(answers.map((a) => a.status)).toEqual(Array(limit * 2).fill(200));
    } finally {
      await off.close();
    }
  });
});

describe('two instances (Redis)', () => {
  it('count one budget per address: a burst split over both passes the limit once', async () => {
    const redis = { ...limits, REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };
    const a = await createTestApp(redis, t);
    const b = await createTestApp(redis, t);
    try {
      // Until its Redis connection is up an instance counts in its own memory: both wait for it (/readyz pings it).
      for (const app of [a, b]) await redisReady(app);
      const network = newNetwork();
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).json('GET', '/api/v1/posts', undefined, from(`${network}::${i + 1}`))));
      expect(answers.filter((x) => x.status === 200)).toHaveLength(limit);
      expect(answers.filter((x) => x.status === 429)).toHaveLength(12 - limit);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('while Redis is down, each instance still counts in its memory', async () => {
    const down = await createTestApp({ ...limits, REDIS_URL: 'redis://127.0.0.1:1' }, t);
    try {
      const ip = `${newNetwork()}::5`;
      const answers = await Promise.all(Array.from({ length: 12 }, () => down.json('GET', '/api/v1/posts', undefined, from(ip))));
      expect(answers.filter((x) => x.status === 200)).toHaveLength(limit);
    } finally {
      await down.close();
    }
  });
});

async function redisReady(app: TestApp): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await app.fetch('/readyz')).status === 200) return;
    await sleep(100);
  }
  throw new Error('Redis did not become ready within 10 s');
}
