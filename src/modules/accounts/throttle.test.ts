// Sign-in and signup throttling through the front door (REST and GraphQL): consecutive failures per
// e-mail and address, failures per address across accounts, signup floods, unknown e-mails answered
// like known ones, and counters shared through Redis by two instances. Each test speaks from its own
// client address (X-Forwarded-For, TRUST_PROXY) so that counters never cross tests or runs.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../../testkit/accounts.js';
import { createTestApp, type JsonResponse, type TestApp } from '../../testkit/test-app.js';

const blockSeconds = 2;
const limits = {
  TRUST_PROXY: 'true',
  SIGNIN_MAX_FAILURES_PER_ACCOUNT: '10',
  SIGNIN_MAX_FAILURES_PER_IP: '25',
  SIGNIN_BLOCK_SECONDS: String(blockSeconds),
  SIGNUP_MAX_PER_IP: '5',
};

/** A client address of this run's own (198.18.0.0/15 is for benchmarks: never a real client). */
const newAddress = () => `198.18.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
const newEmail = () => `throttle-${randomBytes(5).toString('hex')}@example.com`;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(limits);
});
afterAll(() => t.close());

const from = (ip: string) => ({ 'x-forwarded-for': ip });
const login = (ip: string, email: string, password: string) => t.json('POST', '/api/auth/login', { email, password }, from(ip));
const loginMutation = 'mutation($i: LoginInput!) { login(input: $i) { user { id } } }';

/** A user signed up from an address of its own (signups from the test's address stay uncounted). */
const seedUser = () => signUp({ ...t, json: (method, path, body, headers) => t.json(method, path, body, { ...headers, ...from(newAddress()) }) });

function expectThrottled(res: JsonResponse) {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(blockSeconds);
  expect(res.body).toEqual({ success: false, error: 'Too many failed sign-ins: try again later', code: 'RATE_LIMITED', details: { retryAfter } });
  expect(res.headers.get('set-cookie')).toBeNull();
}

describe('failed sign-ins for one account', () => {
  it('refuses the 11th attempt with 429 and Retry-After, the right password too, until the block ends', async () => {
    const user = await seedUser();
    const ip = newAddress();
    for (let i = 0; i < 10; i++) expect((await login(ip, user.email, `wrong ${i}`)).status).toBe(401);
    expectThrottled(await login(ip, user.email, 'wrong again'));
    expectThrottled(await login(ip, user.email, user.password));
    // Another address is not blocked for this account.
    expect((await login(newAddress(), user.email, user.password)).status).toBe(200);

    await sleep(blockSeconds * 1000 + 500);
    const after = await login(ip, user.email, user.password);
    expect(after.status).toBe(200);
    expect(after.headers.get('set-cookie')).toMatch(/^sid=/);
  });

  it('counts the address the proxy added (the last X-Forwarded-For entry), whatever the client put before it', async () => {
    const user = await seedUser();
    const ip = newAddress();
    // A client rotating a forged first entry on every try is still the proxy's last entry.
    for (let i = 0; i < 10; i++) expect((await login(`${newAddress()}, ${ip}`, user.email, `wrong ${i}`)).status).toBe(401);
    expectThrottled(await login(`${newAddress()}, ${ip}`, user.email, user.password));
    expectThrottled(await login(ip, user.email, user.password));
  });

  it('answers an unknown e-mail exactly as a known one, refused alike', async () => {
    const user = await seedUser();
    const [knownIp, unknownIp] = [newAddress(), newAddress()];
    const known: JsonResponse[] = [];
    const unknown: JsonResponse[] = [];
    for (let i = 0; i < 11; i++) {
      known.push(await login(knownIp, user.email, 'not the password'));
      unknown.push(await login(unknownIp, newEmail().replace('throttle', 'nobody'), 'not the password'));
    }
    // Unknown e-mails differ each time here, so only the address counter could refuse them: it must not yet.
    expect(unknown.map((r) => r.status)).toEqual(Array(11).fill(401));
    const nobody = newEmail();
    const sameUnknown: JsonResponse[] = [];
    for (let i = 0; i < 11; i++) sameUnknown.push(await login(unknownIp, nobody, 'not the password'));
    expect(known.map((r) => r.status)).toEqual([...Array(10).fill(401), 429]);
    expect(sameUnknown.map((r) => r.status)).toEqual([...Array(10).fill(401), 429]);
    expect(sameUnknown[0]!.body).toEqual(known[0]!.body);
    expectThrottled(sameUnknown[10]!);
    expect(sameUnknown[10]!.headers.get('retry-after')).toBe(known[10]!.headers.get('retry-after'));
  });

  it('counts REST and GraphQL failures together, and a success clears them', async () => {
    const user = await seedUser();
    const ip = newAddress();
    for (let i = 0; i < 9; i++) expect((await login(ip, user.email, 'wrong')).status).toBe(401);
    expect((await login(ip, user.email, user.password)).status).toBe(200); // clears the nine
    for (let i = 0; i < 5; i++) expect((await login(ip, user.email, 'wrong')).status).toBe(401);
    for (let i = 0; i < 5; i++) {
      const res = await t.graphql(loginMutation, { i: { email: user.email, password: 'wrong' } }, from(ip));
      expect(res.body.errors[0].extensions.code).toBe('AUTHENTICATION_FAILED');
    }
    const refused = await t.graphql(loginMutation, { i: { email: user.email, password: user.password } }, from(ip));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors[0]).toMatchObject({ message: 'Too many failed sign-ins: try again later', extensions: { code: 'RATE_LIMITED', details: { retryAfter: expect.any(Number) } } });
    expect(refused.headers.get('set-cookie')).toBeNull();
  });
});

describe('failed sign-ins from one address', () => {
  it('refuses the address once its failures across many accounts reach the limit, and only that address', async () => {
    const user = await seedUser();
    const ip = newAddress();
    // 25 failures, at most 5 per e-mail: no account counter comes near its limit.
    for (let i = 0; i < 25; i++) expect((await login(ip, i < 5 ? user.email : `spray-${i % 5}-${newEmail()}`, 'guess')).status).toBe(401);
    expectThrottled(await login(ip, user.email, user.password));
    expectThrottled(await login(ip, newEmail(), 'guess'));
    expect((await login(newAddress(), user.email, user.password)).status).toBe(200);
  });
});

describe('signups', () => {
  it('refuses a signup flood from one address (REST, by invitation and GraphQL alike), and only that address', async () => {
    const ip = newAddress();
    const body = () => ({ email: newEmail(), password: 'long enough pw', firstName: 'F', lastName: 'L' });
    for (let i = 0; i < 4; i++) expect((await t.json('POST', '/api/auth/signup', body(), from(ip))).status).toBe(201);
    // A failed attempt counts too: an invitation that does not exist (guessing tokens is a flood as well).
    const invited = await t.json('POST', '/api/v1/auth/signup-with-invite', { ...body(), inviteToken: 'no-such-invitation' }, from(ip));
    expect(invited.status).toBe(404);

    const flood = body();
    const refused = await t.json('POST', '/api/auth/signup', flood, from(ip));
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(blockSeconds); // the signup window (SIGNIN_WINDOW_SECONDS, an hour)
    expect(refused.body).toEqual({ success: false, error: 'Too many signups from this address: try again later', code: 'RATE_LIMITED', details: { retryAfter } });
    const viaInvite = await t.json('POST', '/api/v1/auth/signup-with-invite', { ...body(), inviteToken: 'no-such-invitation' }, from(ip));
    expect(viaInvite.status).toBe(429);
    const viaGraphQL = await t.graphql('mutation($i: SignupInput!) { signup(input: $i) { activeTeamId } }', { i: body() }, from(ip));
    expect(viaGraphQL.status).toBe(429);
    expect(viaGraphQL.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(viaGraphQL.body.errors[0].extensions.code).toBe('RATE_LIMITED');

    expect(await t.database.prisma.user.count({ where: { email: flood.email } })).toBe(0);
    expect((await t.json('POST', '/api/auth/signup', flood, from(newAddress()))).status).toBe(201);
  });
});

describe('Redis unreachable', () => {
  it('throttles in this instance’s memory, answering at once', async () => {
    const down = await createTestApp({ ...limits, REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const ip = newAddress();
      const email = newEmail();
      const started = performance.now();
      for (let i = 0; i < 10; i++) expect((await down.json('POST', '/api/auth/login', { email, password: 'wrong' }, from(ip))).status).toBe(401);
      const refused = await down.json('POST', '/api/auth/login', { email, password: 'wrong' }, from(ip));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      // Generous: eleven argon2 checks; waiting on Redis would add seconds to each.
      expect(performance.now() - started).toBeLessThan(15_000);
    } finally {
      await down.close();
    }
  });
});

describe('two instances (Redis)', () => {
  it('count failures together: one instance refuses what the other counted', async () => {
    const redis = { ...limits, REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };
    const a = await createTestApp(redis);
    const b = await createTestApp(redis, a);
    try {
      // Until an instance's Redis connection is up, it counts in its own memory (the insurance limiter):
      // the shared count is what is asserted here, so both wait for Redis (/readyz pings it).
      for (const app of [a, b]) await redisReady(app);
      const ip = newAddress();
      const email = newEmail();
      for (let i = 0; i < 10; i++) expect((await a.json('POST', '/api/auth/login', { email, password: 'wrong' }, from(ip))).status).toBe(401);
      const refused = await b.json('POST', '/api/auth/login', { email, password: 'wrong' }, from(ip));
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
    } finally {
      await b.close();
      await a.close();
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
