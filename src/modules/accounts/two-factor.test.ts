// Two-factor sign-in (TOTP) through the front door: enrolment and its confirmation, the two-step
// sign-in with a code or a recovery code, replays, wrong codes and their throttle, turning it off, and
// API keys left alone. Codes are computed as an authenticator app would, on the app's test clock.
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieFrom, signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { testClock } from '../../testkit/clock.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

const clock = testClock();
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ SIGNIN_MAX_FAILURES_PER_ACCOUNT: '4', TWO_FACTOR_SECRET_KEY: 'a'.repeat(64), TWO_FACTOR_ISSUER: 'Acme' }, undefined, { now: clock.now });
});
afterAll(() => t.close());

/** The code an authenticator app shows for `secret` now (on the app's clock), or `steps` periods later. */
const codeFor = (secret: string, steps = 0) => OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: clock.now().getTime() + steps * 30_000 });

/** Enrols and confirms two-factor for `user`; their cookie is the renewed one. */
async function withTwoFactor(user: SignedUpUser): Promise<{ secret: string; recoveryCodes: string[]; cookie: string }> {
  const enrolled = await t.json('POST', '/api/auth/two-factor/enroll', { password: user.password }, { cookie: user.cookie });
  expect(enrolled.status).toBe(200);
  const { secret } = enrolled.body.data;
  const confirmed = await t.json('POST', '/api/auth/two-factor/confirm', { code: codeFor(secret) }, { cookie: user.cookie });
  expect(confirmed.status).toBe(200);
  return { secret, recoveryCodes: confirmed.body.data.recoveryCodes, cookie: cookieFrom(confirmed.headers) };
}

const login = (user: SignedUpUser) => t.json('POST', '/api/auth/login', { email: user.email, password: user.password });
const secondStep = (challenge: string, code: string) => t.json('POST', '/api/auth/login/two-factor', { challenge, code });

describe('enrolment', () => {
  it('gives a secret and an otpauth URI, and turns on with a first code: recovery codes, other sessions ended, this one renewed', async () => {
    const user = await signUp(t);
    const elsewhere = cookieFrom((await login(user)).headers);
    expect((await t.json('POST', '/api/auth/two-factor/enroll', { password: 'not my password' }, { cookie: user.cookie })).body.code).toBe('INVALID_CREDENTIALS');
    const enrolled = await t.json('POST', '/api/auth/two-factor/enroll', { password: user.password }, { cookie: user.cookie });
    const { secret, otpauthUri } = enrolled.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = OTPAuth.URI.parse(otpauthUri) as OTPAuth.TOTP;
    expect(uri).toMatchObject({ issuer: 'Acme', label: user.email, digits: 6, period: 30, algorithm: 'SHA1' });
    expect(uri.secret.base32).toBe(secret);
    // Stored sealed, not as the secret.
    const stored = await t.database.prisma.userTotp.findUniqueOrThrow({ where: { userId: user.id } });
    expect(stored.secretSealed).toMatch(/^v1:/);
    expect(stored.secretSealed).not.toContain(secret);
    // Pending: sign-in still takes the password alone, and the session says two-factor is off.
    expect((await login(user)).body.data.user.id).toBe(user.id);
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: user.cookie })).body.data.twoFactorEnabled).toBe(false);

    const wrong = await t.json('POST', '/api/auth/two-factor/confirm', { code: codeFor(secret, 5) }, { cookie: user.cookie });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ success: false, error: 'The code is not correct', code: 'INVALID_CODE' });
    const confirmed = await t.json('POST', '/api/auth/two-factor/confirm', { code: codeFor(secret) }, { cookie: user.cookie });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data.recoveryCodes).toHaveLength(10);
    for (const code of confirmed.body.data.recoveryCodes) expect(code).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
    expect(confirmed.body.data.endedSessions).toBe(2);
    const renewed = cookieFrom(confirmed.headers);
    expect(renewed).not.toBe(user.cookie);
    for (const cookie of [user.cookie, elsewhere]) expect((await t.json('GET', '/api/auth/session', undefined, { cookie })).status).toBe(401);
    const session = await t.json('GET', '/api/auth/session', undefined, { cookie: renewed });
    expect(session.status).toBe(200);
    expect(session.body.data.twoFactorEnabled).toBe(true);
    expect((await t.graphql('{ me { twoFactorEnabled } }', {}, { cookie: renewed })).body.data).toEqual({ me: { twoFactorEnabled: true } });
    expect((await t.json('POST', '/api/auth/two-factor/enroll', { password: user.password }, { cookie: renewed })).body.code).toBe('CONFLICT');
  });
});

describe('two-step sign-in', () => {
  it('asks for a code after the password, then signs in; a code and a challenge work once', async () => {
    const user = await signUp(t);
    const { secret } = await withTwoFactor(user);
    const first = await login(user);
    expect(first.status).toBe(200);
    expect(first.headers.get('set-cookie')).toBeNull();
    expect(first.body.data).toEqual({ twoFactorRequired: true, challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expiresAt: expect.any(String) });
    const { challenge } = first.body.data;

    // The code the confirmation used is spent; the next period's is accepted (clock drift of one step).
    expect((await secondStep(challenge, codeFor(secret))).body.code).toBe('INVALID_CODE');
    const signedIn = await secondStep(challenge, codeFor(secret, 1));
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data).toEqual({ user: { id: user.id, email: user.email, role: 'member' }, activeTeamId: user.activeTeamId });
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: cookieFrom(signedIn.headers) })).status).toBe(200);

    expect((await secondStep(challenge, codeFor(secret, 1))).body.code).toBe('INVALID_TOKEN');
    clock.advance(60_000);
    const again = (await login(user)).body.data.challenge;
    expect((await secondStep(again, codeFor(secret, -1))).body.code).toBe('INVALID_CODE'); // step already used
    expect((await secondStep(again, codeFor(secret))).status).toBe(200);
  });

  it('the session the second step starts says two-factor is on, asked in the same request (GraphQL)', async () => {
    const user = await signUp(t);
    const { recoveryCodes } = await withTwoFactor(user);
    const challenge = (await login(user)).body.data.challenge;
    const mutation = 'mutation Second($input: TwoFactorSignInInput!) { completeTwoFactorSignIn(input: $input) { twoFactorEnabled user { id } } }';
    const answer = await t.graphql(mutation, { input: { challenge, code: recoveryCodes[0] } });
    expect(answer.body.data).toEqual({ completeTwoFactorSignIn: { twoFactorEnabled: true, user: { id: user.id } } });
  });

  it('takes a recovery code once, in any case and without dashes', async () => {
    const user = await signUp(t);
    const { recoveryCodes } = await withTwoFactor(user);
    const code = recoveryCodes[3]!;
    const challenge = (await login(user)).body.data.challenge;
    expect((await secondStep(challenge, code.replaceAll('-', '').toLowerCase())).status).toBe(200);
    const next = (await login(user)).body.data.challenge;
    expect((await secondStep(next, code)).body.code).toBe('INVALID_CODE');
    expect((await secondStep(next, recoveryCodes[4]!)).status).toBe(200);
  });

  it('lets one of two simultaneous second steps with the same challenge through', async () => {
    const user = await signUp(t);
    const { recoveryCodes } = await withTwoFactor(user);
    const challenge = (await login(user)).body.data.challenge;
    const answers = await Promise.all([recoveryCodes[0]!, recoveryCodes[1]!].map((code) => secondStep(challenge, code)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
  });

  it('counts wrong codes as failed sign-ins and refuses with 429 once blocked, the right code too', async () => {
    const user = await signUp(t);
    const { secret } = await withTwoFactor(user);
    clock.advance(30_000);
    const challenge = (await login(user)).body.data.challenge;
    for (let i = 0; i < 4; i++) expect((await secondStep(challenge, '000000')).status).toBe(400);
    const blocked = await secondStep(challenge, codeFor(secret));
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('RATE_LIMITED');
  });

  it('refuses a challenge that expired', async () => {
    const user = await signUp(t);
    const { secret } = await withTwoFactor(user);
    const challenge = (await login(user)).body.data.challenge;
    clock.advance(6 * 60_000);
    expect((await secondStep(challenge, codeFor(secret))).body.code).toBe('INVALID_TOKEN');
  });

  it('works through GraphQL', async () => {
    const user = await signUp(t);
    const { secret } = await withTwoFactor(user);
    clock.advance(30_000);
    const first = await t.graphql('mutation($i: LoginInput!) { login(input: $i) { user { id } twoFactorRequired challenge } }', { i: { email: user.email, password: user.password } });
    expect(first.body.data.login).toMatchObject({ user: null, twoFactorRequired: true });
    const second = await t.graphql('mutation($i: TwoFactorSignInInput!) { completeTwoFactorSignIn(input: $i) { user { id } } }', { i: { challenge: first.body.data.login.challenge, code: codeFor(secret) } });
    expect(second.body).toEqual({ data: { completeTwoFactorSignIn: { user: { id: user.id } } } });
    expect(cookieFrom(second.headers)).toMatch(/^sid=/);
  });

  it('leaves API keys working as before', async () => {
    const user = await signUp(t);
    const key = await createKey(t, user);
    const { cookie } = await withTwoFactor(user);
    expect((await t.json('GET', '/api/auth/session', undefined, bearer(key.key))).status).toBe(200);
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie })).status).toBe(200);
  });
});

describe('turning it off', () => {
  it('needs a code or a recovery code, then sign-in takes the password alone', async () => {
    const user = await signUp(t);
    const { recoveryCodes, cookie } = await withTwoFactor(user);
    expect((await t.json('POST', '/api/auth/two-factor/disable', { code: '123456' }, { cookie })).body.code).toBe('INVALID_CODE');
    const forged = await t.json('POST', '/api/auth/two-factor/disable', { code: recoveryCodes[0] }, { cookie, origin: 'https://evil.example' });
    expect(forged.body.code).toBe('CSRF_REJECTED');
    const off = await t.json('POST', '/api/auth/two-factor/disable', { code: recoveryCodes[0] }, { cookie });
    expect(off.body).toEqual({ success: true, data: { disabled: true } });
    expect((await login(user)).body.data.user.id).toBe(user.id);
    // The recovery codes ended with it.
    expect(await t.database.prisma.accountToken.count({ where: { userId: user.id, purpose: 'recovery_code', usedAt: null } })).toBe(0);
    expect((await t.json('POST', '/api/auth/two-factor/disable', { code: recoveryCodes[1] }, { cookie })).body.code).toBe('CONFLICT');
  });
});
