// Whom open subscriptions count against (issue 36: keys cost nothing, so a limit per key alone is one
// a user multiplies): a user's sessions and all its API keys together hold at most
// REALTIME_MAX_SUBSCRIPTIONS_PER_USER, each key at most REALTIME_MAX_SUBSCRIPTIONS; anonymous callers
// hold REALTIME_MAX_SUBSCRIPTIONS per address, an IPv6 address by its /64 (one host commonly holds the
// whole /64). Opened in concurrent bursts: at most the limit pass. On PGlite and, with
// TEST_DATABASE_URL, PostgreSQL.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { openEventStream, type SseClient } from '../../testkit/event-stream.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

const perKey = 3;
const perUser = 5;
let t: TestApp;
const open: SseClient[] = [];

/** Opens the streams at once; the statuses in the order asked. */
async function burst(requests: { path: string; headers: Record<string, string> }[]): Promise<(SseClient & { refusal: any })[]> {
  const streams = await Promise.all(requests.map(({ path, headers }) => openEventStream(`${t.origin}${path}`, headers)));
  open.push(...streams);
  return streams;
}

const count = (streams: { status: number }[], status: number) => streams.filter((s) => s.status === status).length;

beforeAll(async () => {
  t = await createTestApp({
    REALTIME_MAX_SUBSCRIPTIONS: String(perKey),
    REALTIME_MAX_SUBSCRIPTIONS_PER_USER: String(perUser),
    RATE_LIMIT_ENABLED: 'false',
    TRUST_PROXY: 'true',
  });
});
afterAll(async () => {
  for (const stream of open) stream.close();
  await t?.close();
});

describe('a user with many API keys', () => {
  it('holds at most REALTIME_MAX_SUBSCRIPTIONS_PER_USER with its sessions and keys together, each key at most REALTIME_MAX_SUBSCRIPTIONS', async () => {
    const user = await signUp(t);
    const keys = await Promise.all(Array.from({ length: 4 }, () => createKey(t, user, { scopes: ['customers:read'] })));
    // Four opens per key and three by the session, all at once: 19 asked, 5 places.
    const asked: Record<string, string>[] = [...keys.flatMap((k) => Array.from({ length: 4 }, () => bearer(k.key))), ...Array.from({ length: 3 }, () => ({ cookie: user.cookie }))];
    const streams = await burst(asked.map((headers) => ({ path: '/api/v1/customers/events', headers })));
    expect(count(streams, 200)).toBe(perUser);
    expect(count(streams, 429)).toBe(asked.length - perUser);
    for (const refused of streams.filter((s) => s.status === 429)) expect(refused.refusal).toMatchObject({ success: false, code: 'RATE_LIMITED', error: expect.stringMatching(/one (user|API key)/) });
    // No key holds more than its own limit.
    for (const k of keys) expect(streams.filter((s, i) => s.status === 200 && asked[i]!.authorization === `Bearer ${k.key}`).length).toBeLessThanOrEqual(perKey);

    // Those that opened receive; another user is counted apart.
    const other = await signUp(t);
    const [theirs] = await burst([{ path: '/api/v1/customers/events', headers: { cookie: other.cookie } }]);
    expect(theirs!.status).toBe(200);
    const created = await t.json('POST', '/api/v1/customers', { name: 'Held', account: 1, office: 'Madrid' }, { cookie: user.cookie });
    expect(created.status).toBe(201);
    for (const stream of streams.filter((s) => s.status === 200)) expect((await stream.next()).data).toMatchObject({ type: 'CREATED', id: created.body.data.id });

    // A key alone: at most its own limit, its user's places free.
    const third = await signUp(t);
    const fresh = await createKey(t, third, { scopes: ['customers:read'] });
    const alone = await burst(Array.from({ length: perKey + 2 }, () => ({ path: '/api/v1/customers/events', headers: bearer(fresh.key) })));
    expect(count(alone, 200)).toBe(perKey);
    expect(alone.find((s) => s.status === 429)!.refusal).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('one API key') });
  });
});

describe('anonymous subscribers', () => {
  it('are counted per address, an IPv6 address by its /64', async () => {
    const network = `2001:db8:${randomBytes(2).toString('hex')}`;
    // Six different addresses of one /64 (as a host picks them), at once: one holder of 3 places.
    const sameHost = await burst(Array.from({ length: 6 }, (_, i) => ({ path: '/api/v1/posts/events', headers: { 'x-forwarded-for': `${network}:1:${i + 1}::${i + 7}` } })));
    expect(count(sameHost, 200)).toBe(perKey);
    expect(count(sameHost, 429)).toBe(3);
    expect(sameHost.find((s) => s.status === 429)!.refusal).toMatchObject({ success: false, code: 'RATE_LIMITED', error: expect.stringContaining('one client address') });
    // Another /64, and an IPv4 address: holders of their own.
    const elsewhere = await burst([
      { path: '/api/v1/posts/events', headers: { 'x-forwarded-for': `${network}:2::1` } },
      { path: '/api/v1/posts/events', headers: { 'x-forwarded-for': `198.18.${randomBytes(1)[0]}.${randomBytes(1)[0]}` } },
    ]);
    expect(elsewhere.map((s) => s.status)).toEqual([200, 200]);
  });
});
