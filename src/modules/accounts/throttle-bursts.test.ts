// Concurrent bursts against the sign-in throttles, through the front door: a burst of wrong passwords
// for one account, of e-mails sprayed from one address, of wrong codes for one two-factor challenge and
// of wrong codes for one account from many addresses gets no more checks than the limit (plus the
// requests in flight when it is reached: ≤ limit + 2), because every attempt is counted before its
// password or code is checked. "Checked" is what a client sees: 401 or INVALID_CODE rather than 429.
// Once in memory (one instance), once in Redis with the burst split over two instances.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieFrom } from '../../testkit/accounts.js';
import { testClock } from '../../testkit/clock.js';
import { createTestApp, type JsonResponse, type TestApp } from '../../testkit/test-app.js';

/** A burst of hundreds of requests on a loaded machine: no time budget is asserted, only counts. */
const burstTimeout = 180_000;
const limits = { perAccount: 10, perIp: 25, secondFactor: 8, perChallenge: 5, blockSeconds: 60, windowSeconds: 3600 };
const env = {
  TRUST_PROXY: 'true',
  SIGNIN_MAX_FAILURES_PER_ACCOUNT: String(limits.perAccount),
  SIGNIN_MAX_FAILURES_PER_IP: String(limits.perIp),
  SIGNIN_MAX_SECOND_FACTOR_FAILURES: String(limits.secondFactor),
  SIGNIN_MAX_CODES_PER_CHALLENGE: String(limits.perChallenge),
  SIGNIN_BLOCK_SECONDS: String(limits.blockSeconds),
  SIGNIN_WINDOW_SECONDS: String(limits.windowSeconds),
  SIGNUP_MAX_PER_IP: '1000',
  TWO_FACTOR_SECRET_KEY: 'b'.repeat(64),
};

/** A client address of this run's own: an IPv6 /64 of the documentation prefix, chosen at random (counters in Redis outlive a run). */
const newAddress = () => `2001:db8:${randomBytes(6).toString('hex').match(/.{4}/g)!.join(':')}::${randomBytes(2).toString('hex')}`;
const newEmail = () => `burst-${randomBytes(6).toString('hex')}@example.com`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });
const password = 'correct horse battery';

/** How many answers had each status (or error code), e.g. { 401: 10, 429: 390 }. */
const tally = (answers: JsonResponse[], key: (a: JsonResponse) => string | number = (a) => a.status) =>
  answers.reduce<Record<string, number>>((counts, a) => ({ ...counts, [key(a)]: (counts[key(a)] ?? 0) + 1 }), {});

/** A refusal of the throttle, as the contract's envelope says it. */
function expectRefused(answer: JsonResponse) {
  expect(answer.status).toBe(429);
  expect(answer.body).toMatchObject({ success: false, code: 'RATE_LIMITED', details: { retryAfter: expect.any(Number) } });
  expect(Number(answer.headers.get('retry-after'))).toBe(answer.body.details.retryAfter);
}

const clock = testClock();
/** The TOTP code of `secret` `steps` periods from now (on the apps' clock). */
const codeFor = (secret: string, steps = 0) => OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: clock.now().getTime() + steps * 30_000 });
/** A six-digit code none of the accepted steps (now ± 1) has. */
function wrongCodeFor(secret: string): string {
  const valid = new Set([-1, 0, 1].map((steps) => codeFor(secret, steps)));
  for (let n = Number(codeFor(secret)); ; n = (n + 1) % 1_000_000) if (!valid.has(String(n).padStart(6, '0'))) return String(n).padStart(6, '0');
}

describe.each([
  { store: 'in memory', redis: false },
  { store: 'in Redis, over two instances', redis: true },
])('bursts, counters $store', ({ redis }) => {
  let a: TestApp;
  let b: TestApp;
  /** The instance the i-th request of a burst goes to (alternating with Redis). */
  const app = (i: number) => (i % 2 === 0 ? a : b);
  beforeAll(async () => {
    const store: Record<string, string> = redis ? { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' } : {};
    a = await createTestApp({ ...env, ...store }, undefined, { now: clock.now });
    b = redis ? await createTestApp({ ...env, ...store }, a, { now: clock.now }) : a;
    // Until its Redis connection is up an instance counts in its own memory: the shared count is what is asserted.
    if (redis) for (const instance of [a, b]) await redisReady(instance);
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await a.close();
  });

  const login = (i: number, ip: string, email: string, pw: string) => app(i).json('POST', '/api/auth/login', { email, password: pw }, from(ip));
  const secondStep = (i: number, ip: string, challenge: string, code: string) => app(i).json('POST', '/api/auth/login/two-factor', { challenge, code }, from(ip));

  async function newUser(): Promise<{ email: string; cookie: string }> {
    const email = newEmail();
    const res = await a.json('POST', '/api/auth/signup', { email, password, firstName: 'B', lastName: 'U' }, from(newAddress()));
    expect(res.status).toBe(201);
    return { email, cookie: cookieFrom(res.headers) };
  }

  /** A user with two-factor on; the clock is moved a step on, so that the confirmation's code is not the next one. */
  async function newTwoFactorUser(): Promise<{ email: string; secret: string }> {
    const user = await newUser();
    const enrolled = await a.json('POST', '/api/auth/two-factor/enroll', { password }, { cookie: user.cookie, ...from(newAddress()) });
    const { secret } = enrolled.body.data;
    expect((await a.json('POST', '/api/auth/two-factor/confirm', { code: codeFor(secret) }, { cookie: user.cookie, ...from(newAddress()) })).status).toBe(200);
    clock.advance(30_000);
    return { email: user.email, secret };
  }

  /** The first step from `ip`: the password gives a challenge. */
  async function challengeFrom(email: string, ip: string): Promise<string> {
    const first = await login(0, ip, email, password);
    expect(first.body.data).toMatchObject({ twoFactorRequired: true });
    return first.body.data.challenge;
  }

  it('400 wrong passwords for one account at once from one address: at most the limit are checked, then even the right one is refused', async () => {
    const { email } = await newUser();
    const ip = newAddress();
    const answers = await Promise.all(Array.from({ length: 400 }, (_, i) => login(i, ip, email, `wrong ${i}`)));
    const counts = tally(answers);
    expect(counts[401]).toBeGreaterThanOrEqual(limits.perAccount);
    expect(counts[401]).toBeLessThanOrEqual(limits.perAccount + 2);
    expect(counts[401]! + counts[429]!).toBe(400);
    for (const refused of answers.filter((r) => r.status === 429)) expectRefused(refused);
    expectRefused(await login(1, ip, email, password));
    // The refusals did not use up the address: another account signs in from it.
    const other = await newUser();
    expect((await login(0, ip, other.email, password)).status).toBe(200);
  }, burstTimeout);

  it('150 e-mails sprayed from one address at once: at most the address’s limit are checked', async () => {
    const ip = newAddress();
    const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => login(i, ip, newEmail(), 'guess')));
    const counts = tally(answers);
    expect(counts[401]).toBeGreaterThanOrEqual(limits.perIp);
    expect(counts[401]).toBeLessThanOrEqual(limits.perIp + 2);
    expect(counts[401]! + counts[429]!).toBe(150);
    for (const refused of answers.filter((r) => r.status === 429)) expectRefused(refused);
    // Refused before any check: an account with the right password too, from there; not from elsewhere.
    const user = await newUser();
    expectRefused(await login(0, ip, user.email, password));
    expect((await login(1, newAddress(), user.email, password)).status).toBe(200);
  }, burstTimeout);

  it('100 wrong codes for one challenge at once: at most its tries are checked, then it is ended, the right code too', async () => {
    const { email, secret } = await newTwoFactorUser();
    const ip = newAddress();
    const challenge = await challengeFrom(email, ip);
    const wrong = wrongCodeFor(secret);
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => secondStep(i, ip, challenge, wrong)));
    const counts = tally(answers, (r) => r.body.code);
    // The first try past the limit ends the challenge: tries still in flight then are refused unchecked, so
    // anywhere from none to the limit are checked, depending on how the burst interleaves.
    const checked = counts.INVALID_CODE ?? 0;
    expect(checked).toBeLessThanOrEqual(limits.perChallenge + 2);
    expect(checked + counts.INVALID_TOKEN!).toBe(100);
    const ended = await secondStep(1, ip, challenge, codeFor(secret));
    expect(ended.status).toBe(400);
    expect(ended.body).toEqual({ success: false, error: 'This sign-in has expired, is complete or took too many wrong codes: sign in again', code: 'INVALID_TOKEN' });
    expect(ended.headers.get('set-cookie')).toBeNull();
    // Signing in with the password again gives a challenge that takes the right code.
    const again = await secondStep(0, ip, await challengeFrom(email, ip), codeFor(secret));
    expect(again.status).toBe(200);
    expect(cookieFrom(again.headers)).toMatch(/^sid=/);
  }, burstTimeout);

  it('wrong codes for one account from 40 addresses at once: the account-wide cap holds, and a new address gets no more', async () => {
    const { email, secret } = await newTwoFactorUser();
    const addresses = Array.from({ length: 40 }, newAddress);
    // One challenge per five addresses: no challenge runs out of tries, no address nears its own limits.
    const challenges = await Promise.all(addresses.filter((_, i) => i % limits.perChallenge === 0).map((ip) => challengeFrom(email, ip)));
    const wrong = wrongCodeFor(secret);
    const answers = await Promise.all(addresses.map((ip, i) => secondStep(i, ip, challenges[Math.floor(i / limits.perChallenge)]!, wrong)));
    const counts = tally(answers, (r) => r.body.code);
    expect(counts.INVALID_CODE).toBeGreaterThanOrEqual(limits.secondFactor);
    expect(counts.INVALID_CODE).toBeLessThanOrEqual(limits.secondFactor + 2);
    expect(counts.INVALID_CODE! + counts.RATE_LIMITED!).toBe(40);
    for (const refused of answers.filter((r) => r.status === 429)) expectRefused(refused);

    // From an address never seen, with a new challenge (the password still works), the right code is refused for the window.
    const fresh = newAddress();
    const refused = await secondStep(1, fresh, await challengeFrom(email, fresh), codeFor(secret));
    expectRefused(refused);
    expect(refused.body.details.retryAfter).toBeGreaterThan(limits.blockSeconds);
    expect(refused.body.details.retryAfter).toBeLessThanOrEqual(limits.windowSeconds);
  }, burstTimeout);
});

async function redisReady(app: TestApp): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await app.fetch('/readyz')).status === 200) return;
    await sleep(100);
  }
  throw new Error('Redis did not become ready within 10 s');
}
