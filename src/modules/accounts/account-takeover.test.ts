// Account pre-hijacking through provider sign-in (issue 36): with REQUIRE_EMAIL_VERIFICATION off (as in
// tests), someone signs up with another person's address and sets up everything that would let them
// stay: API keys, an admin of their own in the account's team, a pending invitation, a webhook
// endpoint, two-factor, a provider identity, a scheduled action, membership of their own team. When
// the address's owner signs in with a provider that vouches for it, the account is theirs and none of
// that works any more, on every instance (two servers on one database, evictions over Redis), from
// the callback's answer on; a password reset link followed by the owner claims it the same way; a
// verified account's link strips nothing. PGlite and PostgreSQL.
import * as OTPAuth from 'otpauth';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailedToken, signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { expectRefusedAfter, hammer } from '../../testkit/hammer.js';
import { startOidcProvider, type TestOidcProvider } from '../../testkit/oidc-provider.js';
import { signInWithProvider } from '../../testkit/provider-sign-in.js';
import { addMember, createTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { createEndpoint, startReceiver, type Receiver } from '../../testkit/webhooks.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let idp: TestOidcProvider;
let a: TestApp;
let b: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  idp = await startOidcProvider();
  const env = {
    OIDC_PROVIDERS: JSON.stringify([idp.setting('idp')]),
    REDIS_URL: redisUrl,
    RATE_LIMIT_ENABLED: 'false',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
  };
  a = await createTestApp(env);
  b = await createTestApp(env, a);
  idp.register({ origin: a.origin, providerIds: ['idp'] }, { origin: b.origin, providerIds: ['idp'] });
  receiver = await startReceiver();
}, 120_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await idp?.close();
  await receiver?.close();
});

const unique = (name: string) => `${name}-${randomBytes(4).toString('hex')}`;
const me = async (cookie: string) => (await a.json('GET', '/api/auth/session', undefined, { cookie })).body.data;

/** The address's owner at the provider, which vouches for the address. */
function owner(email: string): string {
  const login = unique('owner');
  idp.accounts.set(login, { email, emailVerified: true });
  return login;
}

/** Someone's account made with `email` (never verified), with a key of the maker's that reads the team's projects. */
async function squatted(email = `${unique('victim')}@corp.test`) {
  const squat = await signUp(a, { email });
  const key = await createKey(a, squat, { scopes: ['projects:read', 'teams:read'] });
  return { squat, key };
}

/** The team's plan allows any number of keys (a burst of mints meets no plan limit; plans change by billing, here in SQL). */
const unlimitedKeys = (teamId: string) => a.database.prisma.subscription.update({ where: { teamId }, data: { plan: 'enterprise' } });

describe('claiming an account whose e-mail was never verified', () => {
  it('leaves its maker nothing: keys, members, invitations, webhooks, two-factor, identities, actions and their own team all end', async () => {
    const { squat, key } = await squatted();
    const team = squat.activeTeamId;
    // An accomplice account of the maker's, admin of the account's team, with a key; and a third, invited.
    const accomplice = await signUp(a);
    await addMember(a, squat, team, accomplice, 'admin');
    const accompliceKey = await createKey(a, accomplice, { scopes: ['projects:read', 'teams:read'] });
    const third = await signUp(a);
    const invitation = await a.json('POST', `/api/v1/teams/${team}/members`, { email: third.email, role: 'member' }, { cookie: squat.cookie });
    expect(invitation.status).toBe(201);
    await createEndpoint(a, squat, { url: receiver.url('/stolen') });
    // The accomplice's own team, which the account joins (the owner would write there otherwise).
    const theirTeam = await createTeam(a, accomplice, unique('theirs'));
    await addMember(a, accomplice, theirTeam, squat, 'member');
    // An action scheduled as the account (by then a developer), which would run with its authority.
    await a.database.prisma.user.update({ where: { id: squat.id }, data: { role: 'developer' } });
    const scheduled = await a.json('POST', '/api/v1/devtools/scheduled-actions', { actionType: 'social:refresh-tokens', payload: {}, scheduledAt: '2099-01-01T00:00:00Z' }, { cookie: squat.cookie });
    expect(scheduled.status).toBe(201);
    // A provider identity of the maker's (no sign-in links one to an unverified account now: seeded).
    const makerLogin = unique('maker');
    idp.accounts.set(makerLogin, { email: squat.email, emailVerified: false });
    await a.database.prisma.userIdentity.create({ data: { userId: squat.id, provider: 'idp', subject: makerLogin, email: squat.email } });
    expect((await signInWithProvider(a, idp, makerLogin)).session).not.toBeNull();
    // Two-factor, last (confirming it renews the session): the owner would be asked for the maker's code.
    const enrolled = await a.json('POST', '/api/auth/two-factor/enroll', { password: squat.password }, { cookie: squat.cookie });
    const secret = OTPAuth.Secret.fromBase32(enrolled.body.data.secret);
    const confirmed = await a.json('POST', '/api/auth/two-factor/confirm', { code: OTPAuth.TOTP.generate({ secret }) }, { cookie: squat.cookie });
    expect(confirmed.status).toBe(200);
    const makerCookie = confirmed.headers.getSetCookie()[0]!.split(';')[0]!;
    // Everything works for the maker before the claim, on both instances (keys cached).
    for (const app of [a, b]) {
      expect((await app.json('GET', '/api/v1/projects', undefined, bearer(key.key))).status).toBe(200);
      expect((await app.json('GET', '/api/v1/projects', undefined, { ...bearer(accompliceKey.key), 'x-team-id': team })).status).toBe(200);
    }

    const claimed = await signInWithProvider(a, idp, owner(squat.email));
    expect(claimed.location.hash).toBe(''); // no second step: the maker's two-factor went with the rest
    expect(claimed.session).toMatch(/^sid=/);
    const session = claimed.session!;
    expect(await me(session)).toMatchObject({ user: { id: squat.id }, activeTeamId: team });
    const written = await a.json('POST', '/api/v1/projects', { name: 'The owner’s secret plan' }, { cookie: session });
    expect(written.status).toBe(201);

    for (const app of [a, b]) {
      expect((await app.json('GET', '/api/v1/projects', undefined, bearer(key.key))).status).toBe(401);
      expect((await app.json('GET', '/api/v1/projects', undefined, { ...bearer(accompliceKey.key), 'x-team-id': team })).status).toBe(403);
      expect((await app.json('GET', `/api/v1/teams/${team}`, undefined, { cookie: accomplice.cookie })).status).toBe(404);
    }
    const seen = await a.json('GET', '/api/v1/projects?limit=100', undefined, { cookie: accomplice.cookie });
    expect(JSON.stringify(seen.body)).not.toContain('secret plan');
    const members = await a.json('GET', `/api/v1/teams/${team}/members`, undefined, { cookie: session });
    expect(members.body.data.map((m: { userId: string }) => m.userId)).toEqual([squat.id]);
    const accepted = await a.json('POST', `/api/v1/team-invitations/${invitation.body.data.token}/accept`, undefined, { cookie: third.cookie });
    expect(accepted.body.code).toBe('INVITATION_NOT_FOUND');
    expect((await a.json('GET', '/api/v1/webhooks', undefined, { cookie: session })).body.data).toEqual([]);
    const teams = await a.json('GET', '/api/v1/teams', undefined, { cookie: session });
    expect(teams.body.data.map((t: { id: string }) => t.id)).toEqual([team]);
    // The maker signs in no more: not with the password, the old session, nor their provider identity.
    expect((await a.json('POST', '/api/auth/login', { email: squat.email, password: squat.password })).status).toBe(401);
    expect((await a.json('GET', '/api/auth/session', undefined, { cookie: makerCookie })).status).toBe(401);
    const maker = await signInWithProvider(a, idp, makerLogin);
    expect(maker.session).toBeNull();
    expect(maker.location.searchParams.get('sign_in_error')).toBe('EMAIL_NOT_VERIFIED');
    const action = await a.database.prisma.scheduledAction.findUniqueOrThrow({ where: { id: scheduled.body.data.id } });
    expect(action).toMatchObject({ status: 'failed', errorMessage: 'Cancelled' });
    // The owner sees why their keys stopped: revoked, with the reason, in the key's audit.
    const audit = await a.json('GET', `/api/v1/api-keys/${key.id}/audit`, undefined, { cookie: session });
    expect(audit.body.data).toContainEqual(expect.objectContaining({ action: 'revoked', reason: 'account claimed by the owner of its e-mail' }));
    // The accomplice keeps their own team, without the account.
    const theirMembers = await a.json('GET', `/api/v1/teams/${theirTeam}/members`, undefined, { cookie: accomplice.cookie });
    expect(theirMembers.body.data.map((m: { userId: string }) => m.userId)).toEqual([accomplice.id]);
  });

  it('refuses the maker’s key on both instances from the callback’s answer on, while it is in use', async () => {
    for (let trial = 0; trial < 2; trial++) {
      const { squat, key } = await squatted();
      const login = owner(squat.email);
      const run = await hammer([a, b], '/api/auth/session', bearer(key.key), async () => {
        expect((await signInWithProvider(a, idp, login)).session).not.toBeNull();
      });
      expectRefusedAfter(run);
    }
  });

  it('leaves no key minted by the maker’s sessions while the claim runs', async () => {
    const { squat } = await squatted();
    await unlimitedKeys(squat.activeTeamId);
    const login = owner(squat.email);
    // Callers minting keys with the maker's session until the claim answered: no key of theirs may stay.
    let claiming = true;
    const minted: { status: number; key?: string }[] = [];
    const mint = async () => {
      for (let i = 0; claiming; i++) {
        const res = await a.json('POST', '/api/v1/api-keys', { name: `burst ${i}`, scopes: ['projects:read'] }, { cookie: squat.cookie });
        minted.push({ status: res.status, key: res.body.data?.key });
      }
    };
    const minters = Array.from({ length: 4 }, mint);
    const claimed = await signInWithProvider(a, idp, login);
    claiming = false;
    await Promise.all(minters);
    expect(claimed.session).not.toBeNull();
    expect(minted.filter((m) => m.status === 201).length).toBeGreaterThan(0); // the session was minting
    expect(minted.map((m) => m.status).filter((s) => s !== 201 && s !== 401)).toEqual([]);
    expect(await a.database.prisma.apiKey.count({ where: { userId: squat.id, status: 'active' } })).toBe(0);
    const refused = await Promise.all(minted.filter((m) => m.status === 201).map(async ({ key }) => (await a.json('GET', '/api/auth/session', undefined, bearer(key!))).status));
    expect(refused.filter((s) => s !== 401)).toEqual([]);
  });

  it('a password reset proves the address too: the maker’s members, webhooks, identity, key and password all end', async () => {
    const { squat, key } = await squatted();
    const team = squat.activeTeamId;
    const accomplice = await signUp(a);
    await addMember(a, squat, team, accomplice, 'admin');
    await createEndpoint(a, squat, { url: receiver.url('/stolen-too') });
    const makerLogin = unique('maker');
    idp.accounts.set(makerLogin, { email: squat.email, emailVerified: false });
    await a.database.prisma.userIdentity.create({ data: { userId: squat.id, provider: 'idp', subject: makerLogin, email: squat.email } });

    // The address's owner asks for a reset link (it reaches their mailbox) and sets a password.
    const since = new Date(Date.now() - 1);
    expect((await a.json('POST', '/api/auth/password-reset', { email: squat.email })).status).toBe(202);
    const token = await mailedToken(a, squat.email, 'Reset your password', since);
    expect((await a.json('POST', '/api/auth/password-reset/confirm', { token, password: 'the owner’s own password' })).status).toBe(200);
    const login = await a.json('POST', '/api/auth/login', { email: squat.email, password: 'the owner’s own password' });
    expect(login.status).toBe(200);
    const session = login.headers.getSetCookie()[0]!.split(';')[0]!;
    expect((await a.json('POST', '/api/v1/projects', { name: 'The owner’s next plan' }, { cookie: session })).status).toBe(201);

    for (const app of [a, b]) expect((await app.json('GET', '/api/v1/projects', undefined, bearer(key.key))).status).toBe(401);
    expect((await a.json('GET', `/api/v1/teams/${team}`, undefined, { cookie: accomplice.cookie })).status).toBe(404);
    expect(JSON.stringify((await a.json('GET', '/api/v1/projects?limit=100', undefined, { cookie: accomplice.cookie })).body)).not.toContain('next plan');
    expect((await a.json('GET', '/api/v1/webhooks', undefined, { cookie: session })).body.data).toEqual([]);
    expect((await signInWithProvider(a, idp, makerLogin)).session).toBeNull();
    expect((await a.json('POST', '/api/auth/login', { email: squat.email, password: squat.password })).status).toBe(401);
    expect((await a.json('GET', '/api/auth/session', undefined, { cookie: squat.cookie })).status).toBe(401);
    // The address is verified from then on: the token is used up, and a second reset is an ordinary one.
    expect((await a.json('POST', '/api/auth/password-reset/confirm', { token, password: 'yet another password' })).body.code).toBe('INVALID_TOKEN');
    expect((await a.database.prisma.user.findUniqueOrThrow({ where: { id: squat.id } })).emailVerifiedAt).not.toBeNull();
  });

  it('links a verified account as before: its keys, members, sessions and password stay', async () => {
    const user: SignedUpUser = await signUp(a);
    // Verified through the front door: a new link asked for, and followed.
    const since = new Date(Date.now() - 1);
    expect((await a.json('POST', '/api/auth/verify-email/resend', { email: user.email })).status).toBe(202);
    const token = await mailedToken(a, user.email, 'Verify your e-mail address', since);
    expect((await a.json('POST', '/api/auth/verify-email', { token })).status).toBe(200);
    const key = await createKey(a, user, { scopes: ['teams:read'] });
    const member = await signUp(a);
    await addMember(a, user, user.activeTeamId, member, 'admin');

    const { session } = await signInWithProvider(a, idp, owner(user.email));
    expect((await me(session!)).user.id).toBe(user.id);
    expect((await a.json('GET', '/api/auth/session', undefined, bearer(key.key))).status).toBe(200);
    expect((await a.json('GET', '/api/auth/session', undefined, { cookie: user.cookie })).status).toBe(200);
    const members = await a.json('GET', `/api/v1/teams/${user.activeTeamId}/members`, undefined, { cookie: session! });
    expect(members.body.data.map((m: { userId: string }) => m.userId).sort()).toEqual([user.id, member.id].sort());
    expect((await a.json('POST', '/api/auth/login', { email: user.email, password: user.password })).status).toBe(200);
  });
});
