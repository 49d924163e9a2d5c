// Sign-in with an OpenID Connect provider, against a real provider (oidc-provider on loopback): the
// redirect with PKCE, state and nonce, the callback that signs in, accounts made and linked by
// verified e-mail only, deployment modes, two-factor, and the abuse cases (replayed, foreign, tampered
// or missing flows, a forged code, open redirects, the same identity twice at once).
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieFrom, signUp } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { startFakeGitHub, type FakeGitHub } from '../../testkit/github-oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../../testkit/oidc-provider.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { disableUser, enableUser } from './operator.js';

let idp: TestOidcProvider;
let t: TestApp;
let single: TestApp;
beforeAll(async () => {
  idp = await startOidcProvider();
  t = await createTestApp({ OIDC_PROVIDERS: JSON.stringify([idp.setting('idp'), idp.setting('lax', { name: 'Lax IdP', trustEmail: true })]) });
  single = await createTestApp({ TEAMS_MODE: 'single-tenant', OIDC_PROVIDERS: JSON.stringify([idp.setting('idp')]) });
  // One provider, two apps: each app's callback URLs are registered with it.
  idp.register({ origin: t.origin, providerIds: ['idp', 'lax'] }, { origin: single.origin, providerIds: ['idp'] });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await single?.close();
  await idp?.close();
});

const uniqueLogin = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}`;

interface Begun {
  providerUrl: string;
  /** The browser's flow cookie (`name=value`). */
  flowCookie: string;
}

async function begin(app: TestApp, query = '', provider = 'idp'): Promise<Begun> {
  const response = await app.fetch(`/api/auth/oidc/${provider}${query}`, { redirect: 'manual' });
  expect(response.status).toBe(303);
  const flowCookie = cookieFrom(response.headers);
  expect(flowCookie).toMatch(/^sign_in_flow=[A-Za-z0-9_-]{43}$/);
  expect(response.headers.get('set-cookie')).toMatch(/HttpOnly/i);
  return { providerUrl: response.headers.get('location')!, flowCookie };
}

const callback = (app: TestApp, url: URL | string, flowCookie?: string) => app.fetch(String(url), { redirect: 'manual', headers: flowCookie ? { cookie: flowCookie } : {} });

/** The whole round: begin, sign in at the provider as `login`, come back. */
async function signInWith(app: TestApp, login: string, query = '', provider = 'idp') {
  const { providerUrl, flowCookie } = await begin(app, query, provider);
  const back = await idp.signIn(providerUrl, login);
  const response = await callback(app, back, flowCookie);
  const location = new URL(response.headers.get('location') ?? 'http://none/');
  const session = response.headers.getSetCookie().find((c) => c.startsWith('sid='))?.split(';')[0] ?? null;
  return { response, location, session, back, flowCookie };
}

/** A password account whose e-mail is verified (as signups are with REQUIRE_EMAIL_VERIFICATION, off in tests). */
async function verifiedUser(app: TestApp = t) {
  const user = await signUp(app);
  await app.database.prisma.user.update({ where: { id: user.id }, data: { emailVerifiedAt: new Date() } });
  return user;
}

const me = async (app: TestApp, cookie: string) => (await app.json('GET', '/api/auth/session', undefined, { cookie })).body.data;

describe('the providers on offer', () => {
  it('lists the configured providers on REST and GraphQL, without secrets', async () => {
    const rest = await t.json('GET', '/api/auth/providers');
    expect(rest.body.data).toEqual([
      { id: 'idp', name: 'IdP idp', signInUrl: '/api/auth/oidc/idp' },
      { id: 'lax', name: 'Lax IdP', signInUrl: '/api/auth/oidc/lax' },
    ]);
    expect(JSON.stringify(rest.body)).not.toContain(idp.clientSecret);
    const graphql = await t.graphql('{ signInProviders { id name signInUrl } }');
    expect(graphql.body.data.signInProviders).toEqual(rest.body.data);
  });

  it('sends the browser to the provider with PKCE (S256), state and nonce, and an unknown provider is 404', async () => {
    const { providerUrl } = await begin(t, '?redirectTo=/after');
    const url = new URL(providerUrl);
    expect(url.origin).toBe(idp.issuer);
    const q = url.searchParams;
    expect(q.get('client_id')).toBe(idp.clientId);
    expect(q.get('redirect_uri')).toBe(`${t.origin}/api/auth/oidc/idp/callback`);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const unknown = await t.json('GET', '/api/auth/oidc/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });

  it('refuses to send the browser anywhere but the app afterwards (open redirects)', async () => {
    for (const target of ['https://evil.example/x', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)']) {
      const response = await t.json('GET', `/api/auth/oidc/idp?redirectTo=${encodeURIComponent(target)}`);
      expect(response.status, target).toBe(400);
      expect(response.body.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('first sign-in and after', () => {
  it('makes a verified account with its personal team, signs in and comes back to redirectTo; the next sign-in is the same account', async () => {
    const login = uniqueLogin('ada');
    idp.accounts.set(login, { email: `${login}@IdP.test`, givenName: 'Ada', familyName: 'Lovelace' });
    const first = await signInWith(t, login, '?redirectTo=/welcome%3Ftab%3D1');
    expect(first.response.status).toBe(303);
    expect(first.location.href).toBe(`${t.origin}/welcome?tab=1`);
    expect(first.session).toMatch(/^sid=/);
    // The flow cookie is cleared on the way back.
    expect(first.response.headers.getSetCookie().find((c) => c.startsWith('sign_in_flow='))).toMatch(/Max-Age=0/);
    const session = await me(t, first.session!);
    expect(session.user).toMatchObject({ email: `${login}@idp.test`, firstName: 'Ada', lastName: 'Lovelace' });
    expect(session.activeTeamId).toEqual(expect.any(String));
    const user = await t.database.prisma.user.findUniqueOrThrow({ where: { id: session.user.id } });
    expect(user.emailVerifiedAt).not.toBeNull();
    // No password: signing in with one fails as any wrong password does.
    expect((await t.json('POST', '/api/auth/login', { email: user.email, password: '!' })).status).toBe(401);

    const identities = await t.json('GET', '/api/auth/identities', undefined, { cookie: first.session! });
    expect(identities.body.data).toEqual([expect.objectContaining({ provider: 'idp', email: `${login}@idp.test` })]);

    const second = await signInWith(t, login);
    expect(second.location.href).toBe(`${t.origin}/`);
    expect((await me(t, second.session!)).user.id).toBe(session.user.id);
    expect(await t.database.prisma.user.count({ where: { email: `${login}@idp.test` } })).toBe(1);
    // Both sign-ins are in the audit trail (the personal team's log shows its owner's).
    const log = await t.json('GET', `/api/v1/teams/${session.activeTeamId}/audit-log?action=sign_in.succeeded`, undefined, { cookie: first.session! });
    expect(log.body.data.map((e: { details: { method: string } }) => e.details.method)).toEqual(['provider', 'provider']);
  });

  it('links an existing verified account by e-mail when the provider verified it: same user, the password still works', async () => {
    const user = await verifiedUser();
    const login = uniqueLogin('linked');
    idp.accounts.set(login, { email: user.email, emailVerified: true });
    const { session } = await signInWith(t, login);
    expect((await me(t, session!)).user.id).toBe(user.id);
    expect((await t.json('POST', '/api/auth/login', { email: user.email, password: user.password })).status).toBe(200);
  });

  it('refuses a disabled account (sign_in_error=ACCOUNT_DISABLED, no session), linked or not, until it is enabled', async () => {
    const user = await verifiedUser();
    const login = uniqueLogin('disabled');
    idp.accounts.set(login, { email: user.email, emailVerified: true });
    await disableUser(t.database, { forgetUser: async () => {} }, user.email);
    for (let i = 0; i < 2; i++) {
      const refused = await signInWith(t, login); // linked by e-mail the first time, linked already the second
      expect(refused.location.searchParams.get('sign_in_error')).toBe('ACCOUNT_DISABLED');
      expect(refused.session).toBeNull();
    }
    await enableUser(t.database, user.email);
    const { session } = await signInWith(t, login);
    expect((await me(t, session!)).user.id).toBe(user.id);
  });

  it('never links nor creates by an e-mail the provider does not verify, unless the provider is trusted to (trustEmail)', async () => {
    const user = await signUp(t);
    const login = uniqueLogin('unverified');
    idp.accounts.set(login, { email: user.email, emailVerified: false });
    const refused = await signInWith(t, login, '?redirectTo=/signin');
    expect(refused.response.status).toBe(303);
    expect(refused.location.pathname).toBe('/signin');
    expect(refused.location.searchParams.get('sign_in_error')).toBe('EMAIL_NOT_VERIFIED');
    expect(refused.session).toBeNull();
    expect(await t.database.prisma.userIdentity.count({ where: { userId: user.id } })).toBe(0);

    const fresh = uniqueLogin('unverified-new');
    idp.accounts.set(fresh, { emailVerified: false });
    expect((await signInWith(t, fresh)).location.searchParams.get('sign_in_error')).toBe('EMAIL_NOT_VERIFIED');
    expect(await t.database.prisma.user.count({ where: { email: `${fresh}@idp.test` } })).toBe(0);

    const trusted = await signInWith(t, fresh, '', 'lax');
    expect((await me(t, trusted.session!)).user.email).toBe(`${fresh}@idp.test`);
  });

  it('takes over an account whose e-mail was never verified: its password, two-factor and sessions end', async () => {
    const squatter = await signUp(t);
    await t.database.prisma.user.update({ where: { id: squatter.id }, data: { emailVerifiedAt: null } });
    const login = uniqueLogin('owner');
    idp.accounts.set(login, { email: squatter.email });
    const { session } = await signInWith(t, login);
    expect((await me(t, session!)).user.id).toBe(squatter.id);
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: squatter.cookie })).status).toBe(401);
    expect((await t.json('POST', '/api/auth/login', { email: squatter.email, password: squatter.password })).status).toBe(401);
    const user = await t.database.prisma.user.findUniqueOrThrow({ where: { id: squatter.id } });
    expect(user.emailVerifiedAt).not.toBeNull();
  });

  it('asks for the second factor when two-factor is on: the challenge comes back in the fragment, no session before the code', async () => {
    const user = await verifiedUser();
    const enrolled = await t.json('POST', '/api/auth/two-factor/enroll', { password: user.password }, { cookie: user.cookie });
    const secret = OTPAuth.Secret.fromBase32(enrolled.body.data.secret);
    expect((await t.json('POST', '/api/auth/two-factor/confirm', { code: OTPAuth.TOTP.generate({ secret }) }, { cookie: user.cookie })).status).toBe(200);
    const login = uniqueLogin('twofactor');
    idp.accounts.set(login, { email: user.email });
    const { location, session } = await signInWith(t, login, '?redirectTo=/home');
    expect(session).toBeNull();
    expect(location.pathname).toBe('/home');
    const challenge = new URLSearchParams(location.hash.slice(1)).get('two_factor_challenge')!;
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The code for the next period: the one just used to confirm cannot be used twice.
    const code = OTPAuth.TOTP.generate({ secret, timestamp: Date.now() + 30_000 });
    const done = await t.json('POST', '/api/auth/login/two-factor', { challenge, code });
    expect(done.status).toBe(200);
    expect(done.body.data.user.id).toBe(user.id);
  });

  it('signs nobody in when the user cancels at the provider', async () => {
    const { providerUrl, flowCookie } = await begin(t, '?redirectTo=/signin');
    const back = await idp.signIn(providerUrl, { abort: true });
    expect(back.searchParams.get('error')).toBe('access_denied');
    const response = await callback(t, back, flowCookie);
    expect(new URL(response.headers.get('location')!).searchParams.get('sign_in_error')).toBe('SIGN_IN_FAILED');
    expect(response.headers.getSetCookie().some((c) => c.startsWith('sid='))).toBe(false);
  });
});

describe('flows that are not this browser’s', () => {
  it('refuses a replayed callback, a callback without the flow cookie, another browser’s flow and a changed state', async () => {
    const login = uniqueLogin('replay');
    const first = await signInWith(t, login);
    expect(first.session).not.toBeNull();
    const replay = await callback(t, first.back, first.flowCookie);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ success: false, code: 'SIGN_IN_FLOW_INVALID' });

    const mine = await begin(t);
    const back = await idp.signIn(mine.providerUrl, login);
    expect((await callback(t, back)).status).toBe(400);
    const theirs = await begin(t);
    expect((await callback(t, back, theirs.flowCookie)).status).toBe(400);
    const changed = new URL(back);
    changed.searchParams.set('state', 'x'.repeat(43));
    expect((await callback(t, changed, mine.flowCookie)).status).toBe(400);
  });

  it('refuses a flow that expired while the user was at the provider', async () => {
    const { providerUrl, flowCookie } = await begin(t);
    const back = await idp.signIn(providerUrl, uniqueLogin('slow'));
    // Ten minutes later: the flow's expiry has passed.
    await t.database.prisma.signInFlow.updateMany({ where: { expiresAt: { gt: new Date() } }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const response = await callback(t, back, flowCookie);
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe('SIGN_IN_FLOW_INVALID');
  });

  it('does not sign in with a forged code: the provider refuses it, and the flow is used up', async () => {
    const { providerUrl, flowCookie } = await begin(t);
    const back = await idp.signIn(providerUrl, uniqueLogin('forged'));
    back.searchParams.set('code', 'forged-code-value');
    const response = await callback(t, back, flowCookie);
    expect(new URL(response.headers.get('location')!).searchParams.get('sign_in_error')).toBe('SIGN_IN_FAILED');
    expect(response.headers.getSetCookie().some((c) => c.startsWith('sid='))).toBe(false);
  });

  it('the same callback twice at once signs in once', async () => {
    const { providerUrl, flowCookie } = await begin(t);
    const back = await idp.signIn(providerUrl, uniqueLogin('twice'));
    const answers = await Promise.all([callback(t, back, flowCookie), callback(t, back, flowCookie)]);
    expect(answers.map((a) => a.status).sort()).toEqual([303, 400]);
  });

  it('the same new identity through two flows at once makes one account, and both sign in to it', async () => {
    const login = uniqueLogin('race');
    const flows = await Promise.all([begin(t), begin(t)]);
    const backs = await Promise.all(flows.map((f) => idp.signIn(f.providerUrl, login)));
    const answers = await Promise.all(backs.map((back, i) => callback(t, back, flows[i]!.flowCookie)));
    const sessions = answers.map((a) => a.headers.getSetCookie().find((c) => c.startsWith('sid='))?.split(';')[0]);
    expect(sessions.every(Boolean)).toBe(true);
    const ids = await Promise.all(sessions.map(async (s) => (await me(t, s!)).user.id));
    expect(new Set(ids).size).toBe(1);
    expect(await t.database.prisma.user.count({ where: { email: `${login}@idp.test` } })).toBe(1);
  });
});

describe('deployment modes and invitations', () => {
  it('single-tenant: the first account may come from a provider; later ones need an invitation to their e-mail', async () => {
    const owner = uniqueLogin('owner');
    const first = await signInWith(single, owner);
    const ownerSession = first.session!;
    const ownerTeam = (await me(single, ownerSession)).activeTeamId;

    const stranger = uniqueLogin('stranger');
    const refused = await signInWith(single, stranger);
    expect(refused.location.searchParams.get('sign_in_error')).toBe('PUBLIC_SIGNUP_RESTRICTED');

    const invited = await single.json('POST', `/api/v1/teams/${ownerTeam}/members`, { email: `${stranger}@idp.test`, role: 'member' }, { cookie: ownerSession });
    expect(invited.status).toBe(201);
    const { token } = invited.body.data;
    const joined = await signInWith(single, stranger, `?inviteToken=${token}`);
    expect(joined.session).not.toBeNull();
    expect((await me(single, joined.session!)).activeTeamId).toBe(ownerTeam);
  });
});

describe('linked identities', () => {
  it('unlinks an identity, but never the last way to sign in', async () => {
    const login = uniqueLogin('only');
    const { session } = await signInWith(t, login);
    const [identity] = (await t.json('GET', '/api/auth/identities', undefined, { cookie: session! })).body.data;
    const refused = await t.json('DELETE', `/api/auth/identities/${identity.id}`, undefined, { cookie: session! });
    expect(refused.status).toBe(409);

    const user = await verifiedUser();
    const linked = uniqueLogin('second');
    idp.accounts.set(linked, { email: user.email });
    await signInWith(t, linked);
    const [mine] = (await t.json('GET', '/api/auth/identities', undefined, { cookie: user.cookie })).body.data;
    const forged = await t.json('DELETE', `/api/auth/identities/${mine.id}`, undefined, { cookie: user.cookie, origin: 'https://evil.example' });
    expect(forged.body.code).toBe('CSRF_REJECTED');
    const key = await createKey(t, user, { scopes: ['teams:read', 'teams:write'] });
    expect((await t.json('GET', '/api/auth/identities', undefined, bearer(key.key))).status).toBe(403);
    const gql = await t.graphql('mutation($id: ID!) { unlinkIdentity(id: $id) }', { id: mine.id }, { cookie: user.cookie });
    expect(gql.body).toEqual({ data: { unlinkIdentity: true } });
    expect((await t.json('GET', '/api/auth/identities', undefined, { cookie: user.cookie })).body.data).toEqual([]);
  });
});

describe('GitHub (OAuth2 without OpenID Connect: the github preset)', () => {
  let github: FakeGitHub;
  let app: TestApp;
  beforeAll(async () => {
    github = await startFakeGitHub({ id: 4242, login: 'octocat', name: 'Mona Lisa Octocat', emails: [] });
    const setting = { id: 'github', preset: 'github', clientId: github.clientId, clientSecret: github.clientSecret, webUrl: github.webUrl, apiUrl: github.apiUrl };
    app = await createTestApp({ OIDC_PROVIDERS: JSON.stringify([setting]), PROVIDER_SIGNIN_MAX_PER_IP: '5' });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await github?.close();
  });

  /** Begin, GitHub's authorize page (signs in at once), and the callback. */
  async function viaGitHub() {
    const { providerUrl, flowCookie } = await begin(app, '', 'github');
    const authorize = await fetch(providerUrl, { redirect: 'manual' });
    const response = await callback(app, authorize.headers.get('location')!, flowCookie);
    const session = response.headers.getSetCookie().find((c) => c.startsWith('sid='))?.split(';')[0] ?? null;
    return { location: new URL(response.headers.get('location')!), session };
  }

  it('signs in with the primary verified e-mail of the API; without a verified e-mail, nobody', async () => {
    github.user = { ...github.user, emails: [{ email: 'mona@octo.test', primary: true, verified: false }] };
    expect((await viaGitHub()).location.searchParams.get('sign_in_error')).toBe('EMAIL_NOT_VERIFIED');
    github.user = { ...github.user, emails: [{ email: 'old@octo.test', primary: false, verified: true }, { email: 'Mona@Octo.test', primary: true, verified: true }] };
    const { session } = await viaGitHub();
    expect((await me(app, session!)).user).toMatchObject({ email: 'mona@octo.test', firstName: 'Mona', lastName: 'Lisa Octocat' });
    // The GitHub user id is the identity: a changed e-mail at GitHub still signs in to the same account.
    github.user = { ...github.user, emails: [{ email: 'new@octo.test', primary: true, verified: true }] };
    const again = await viaGitHub();
    expect((await me(app, again.session!)).user.email).toBe('mona@octo.test');
  });

  it('throttles sign-ins started from one address (each stores a flow)', async () => {
    // Three started above; two more are allowed, then 429 with Retry-After.
    for (let i = 0; i < 2; i++) expect((await app.fetch('/api/auth/oidc/github', { redirect: 'manual' })).status).toBe(303);
    const refused = await app.json('GET', '/api/auth/oidc/github');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
