// What a password reset and a password change do to the user's API keys (issue 36: keys outlived
// both). A reset is account recovery: every key is revoked, refused on every instance (two servers on
// one database, evictions over Redis) from the answer on, even while in use, and a key being minted at
// that moment by one of the sessions it ends does not stay. A change revokes the keys minted by the
// sessions it ends; the keys of the session that changed it stay. PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieFrom, mailedToken, signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { expectRefusedAfter, hammer } from '../../testkit/hammer.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  const env = { REDIS_URL: redisUrl, RATE_LIMIT_ENABLED: 'false' };
  a = await createTestApp(env);
  b = await createTestApp(env, a);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** Another session of the user (another device), signed in with the password. */
async function otherSession(user: SignedUpUser): Promise<SignedUpUser> {
  const res = await a.json('POST', '/api/auth/login', { email: user.email, password: user.password });
  expect(res.status).toBe(200);
  return { ...user, cookie: cookieFrom(res.headers) };
}

/**
 * A user whose e-mail is verified (through the front door: a link asked for and followed). A reset of
 * a never-verified account claims it bare instead (account-takeover.test.ts); these are the ordinary ones.
 */
async function verifiedUser(): Promise<SignedUpUser> {
  const user = await signUp(a);
  const since = new Date(Date.now() - 1);
  expect((await a.json('POST', '/api/auth/verify-email/resend', { email: user.email })).status).toBe(202);
  const token = await mailedToken(a, user.email, 'Verify your e-mail address', since);
  expect((await a.json('POST', '/api/auth/verify-email', { token })).status).toBe(200);
  return user;
}

/** A reset link's token for the user, asked for now. */
async function resetToken(user: SignedUpUser): Promise<string> {
  const since = new Date(Date.now() - 1);
  expect((await a.json('POST', '/api/auth/password-reset', { email: user.email })).status).toBe(202);
  return mailedToken(a, user.email, 'Reset your password', since);
}

const keyStatus = async (app: TestApp, key: string) => (await app.json('GET', '/api/auth/session', undefined, bearer(key))).status;

describe('a password reset', () => {
  it('revokes every key of the user, minted by any session, refused on both instances from the answer on', async () => {
    const user = await verifiedUser();
    const other = await otherSession(user);
    const mine = await createKey(a, user);
    const theirs = await createKey(a, other);
    const token = await resetToken(user);
    const run = await hammer([a, b], '/api/auth/session', bearer(theirs.key), async () => {
      expect((await a.json('POST', '/api/auth/password-reset/confirm', { token, password: 'a brand new secret' })).status).toBe(200);
    });
    expectRefusedAfter(run);
    for (const app of [a, b]) expect(await keyStatus(app, mine.key)).toBe(401);
    const signedIn = await a.json('POST', '/api/auth/login', { email: user.email, password: 'a brand new secret' });
    const cookie = cookieFrom(signedIn.headers);
    const listed = await a.json('GET', '/api/v1/api-keys', undefined, { cookie });
    expect(listed.body.data.map((k: { id: string; status: string }) => [k.id, k.status]).sort()).toEqual([[mine.id, 'inactive'], [theirs.id, 'inactive']].sort());
    const audit = await a.json('GET', `/api/v1/api-keys/${theirs.id}/audit`, undefined, { cookie });
    expect(audit.body.data).toContainEqual(expect.objectContaining({ action: 'revoked', reason: 'password reset' }));
    // A key minted after the reset works.
    expect(await keyStatus(a, (await createKey(a, { ...user, cookie })).key)).toBe(200);
  });

  it('leaves no key minted by a session of the user while the reset runs', async () => {
    const user = await verifiedUser();
    // Any number of keys on the user's team's plan (a burst of mints meets no plan limit; plans change by billing, here in SQL).
    await a.database.prisma.subscription.update({ where: { teamId: user.activeTeamId }, data: { plan: 'enterprise' } });
    const token = await resetToken(user);
    let resetting = true;
    const minted: { status: number; key?: string }[] = [];
    const mint = async () => {
      for (let i = 0; resetting; i++) {
        const res = await a.json('POST', '/api/v1/api-keys', { name: `burst ${i}`, scopes: ['teams:read'] }, { cookie: user.cookie });
        minted.push({ status: res.status, key: res.body.data?.key });
      }
    };
    const minters = Array.from({ length: 4 }, mint);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the minters are under way
    const reset = await a.json('POST', '/api/auth/password-reset/confirm', { token, password: 'a brand new secret' });
    resetting = false;
    await Promise.all(minters);
    expect(reset.status).toBe(200);
    expect(minted.filter((m) => m.status === 201).length).toBeGreaterThan(0);
    expect(minted.map((m) => m.status).filter((s) => s !== 201 && s !== 401)).toEqual([]);
    expect(await a.database.prisma.apiKey.count({ where: { userId: user.id, status: 'active' } })).toBe(0);
    const statuses = await Promise.all(minted.filter((m) => m.status === 201).map((m) => keyStatus(a, m.key!)));
    expect(statuses.filter((s) => s !== 401)).toEqual([]);
  });
});

describe('a password change', () => {
  it('revokes the keys minted by the sessions it ends; the keys of this session stay', async () => {
    const user = await signUp(a);
    const other = await otherSession(user);
    const mine = await createKey(a, user);
    const theirs = await createKey(a, other);
    expect(await keyStatus(b, theirs.key)).toBe(200); // cached on the other instance
    const changed = await a.json('POST', '/api/auth/password', { currentPassword: user.password, newPassword: 'changed password' }, { cookie: user.cookie });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toEqual({ endedSessions: 1 });
    for (const app of [a, b]) {
      expect(await keyStatus(app, theirs.key)).toBe(401);
      expect(await keyStatus(app, mine.key)).toBe(200);
    }
    const audit = await a.json('GET', `/api/v1/api-keys/${theirs.id}/audit`, undefined, { cookie: cookieFrom(changed.headers) });
    expect(audit.body.data).toContainEqual(expect.objectContaining({ action: 'revoked', reason: 'password change' }));
  });
});
