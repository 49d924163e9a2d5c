// Accounts and sessions through the front door: REST and GraphQL, cookies, revocation, bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieFrom, signUp } from '../../testkit/accounts.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('REST: signup, login, session, logout', () => {
  it('signs up, gets a session cookie and a personal team', async () => {
    const res = await t.json('POST', '/api/auth/signup', { email: 'Ada@Example.com', password: 'long enough pw', firstName: 'Ada', lastName: 'Lovelace' });
    expect(res.status).toBe(201);
    expect(res.body.data.user).toMatchObject({ email: 'ada@example.com', role: 'member', firstName: 'Ada', lastName: 'Lovelace' });
    expect(res.body.data.activeTeamId).toMatch(/^[0-9a-f-]{36}$/);
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^sid=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).not.toContain('Secure');

    const session = await t.json('GET', '/api/auth/session', undefined, { cookie: cookieFrom(res.headers) });
    expect(session.status).toBe(200);
    const { team, ...sessionData } = res.body.data;
    // The session answers what signup did, and whether two-factor sign-in is on (not yet).
    expect(session.body).toEqual({ success: true, data: { ...sessionData, twoFactorEnabled: false } });
    expect(team).toMatchObject({ id: sessionData.activeTeamId, name: "Ada's team" });
    expect(res.body.meta).toEqual({ isFirstUser: true, teamCreated: true });
    const owner = await t.database.prisma.teamMember.findFirst({ where: { userId: res.body.data.user.id } });
    expect(owner).toMatchObject({ teamId: res.body.data.activeTeamId, role: 'owner' });
  });

  it('refuses a second account with the same e-mail in any case, and keeps the first', async () => {
    const first = await signUp(t, { email: 'twin@example.com' });
    const res = await t.json('POST', '/api/auth/signup', { email: 'TWIN@example.com', password: 'another password', firstName: 'B', lastName: 'C' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ success: false, error: 'An account with this e-mail already exists', code: 'EMAIL_EXISTS' });
    const login = await t.json('POST', '/api/auth/login', { email: 'twin@example.com', password: first.password });
    expect(login.status).toBe(200);
    expect(await t.database.prisma.user.count({ where: { email: 'twin@example.com' } })).toBe(1);
  });

  it('logs in with the contract shape, case-insensitively', async () => {
    const user = await signUp(t);
    const res = await t.json('POST', '/api/auth/login', { email: user.email.toUpperCase(), password: user.password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { user: { id: user.id, email: user.email, role: 'member' }, activeTeamId: user.activeTeamId } });
    expect(cookieFrom(res.headers)).not.toBe(user.cookie);
  });

  it('answers an unknown e-mail and a wrong password identically', async () => {
    const user = await signUp(t);
    const wrong = await t.json('POST', '/api/auth/login', { email: user.email, password: 'not the password' });
    const unknown = await t.json('POST', '/api/auth/login', { email: 'nobody@example.com', password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ success: false, error: 'Unauthorized', code: 'AUTHENTICATION_FAILED' });
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('revokes the session server-side on logout, leaving other sessions alive', async () => {
    const user = await signUp(t);
    const other = cookieFrom((await t.json('POST', '/api/auth/login', { email: user.email, password: user.password })).headers);
    const out = await t.json('POST', '/api/auth/logout', undefined, { cookie: user.cookie });
    expect(out.status).toBe(200);
    expect(out.body.data).toEqual({ revoked: true });
    expect(out.headers.get('set-cookie')).toMatch(/^sid=;.*Max-Age=0/);
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: user.cookie })).status).toBe(401);
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: other })).status).toBe(200);
  });

  it('answers 401 without a session, and for a forged or expired one', async () => {
    expect((await t.json('GET', '/api/auth/session')).body).toEqual({ success: false, error: 'Unauthorized', code: 'AUTHENTICATION_FAILED' });
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: `sid=${'a'.repeat(43)}` })).status).toBe(401);
    const user = await signUp(t);
    await t.database.prisma.session.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: user.cookie })).status).toBe(401);
  });

  it('stores only a hash of the session token and an argon2id password hash', async () => {
    const user = await signUp(t);
    const token = user.cookie.slice('sid='.length);
    const sessions = await t.database.prisma.session.findMany({ where: { userId: user.id } });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(sessions[0]!.tokenHash).not.toContain(token);
    const row = await t.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
  });
});

describe('GraphQL: the same operations', () => {
  const sessionFields = 'user { id email role firstName } activeTeamId';

  it('signup, me, logout and login work through /graphql with the cookie', async () => {
    const signup = await t.graphql(`mutation($i: SignupInput!) { signup(input: $i) { ${sessionFields} } }`, { i: { email: 'gql@example.com', password: 'password123', firstName: 'G', lastName: 'Q' } });
    expect(signup.status).toBe(200);
    expect(signup.body.data.signup.user).toMatchObject({ email: 'gql@example.com', firstName: 'G' });
    const cookie = cookieFrom(signup.headers);

    const me = await t.graphql(`{ me { ${sessionFields} } }`, undefined, { cookie });
    expect(me.body.data.me).toEqual(signup.body.data.signup);

    const logout = await t.graphql('mutation { logout }', undefined, { cookie });
    expect(logout.body.data).toEqual({ logout: true });
    const after = await t.graphql(`{ me { ${sessionFields} } }`, undefined, { cookie });
    expect(after.status).toBe(401);
    expect(after.body.errors[0]).toMatchObject({ message: 'Unauthorized', extensions: { code: 'AUTHENTICATION_FAILED' } });

    const login = await t.graphql(`mutation($i: LoginInput!) { login(input: $i) { ${sessionFields} } }`, { i: { email: 'gql@example.com', password: 'password123' } });
    expect(login.body.data.login.user.email).toBe('gql@example.com');
    expect(cookieFrom(login.headers)).toMatch(/^sid=/);
  });

  it('reports invalid input with a code and the field, and creates nothing', async () => {
    const res = await t.graphql('mutation($i: SignupInput!) { signup(input: $i) { activeTeamId } }', { i: { email: 'not-an-email', password: 'password123', firstName: 'A', lastName: 'B' } });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: 'email' }] } });
    expect(await t.database.prisma.user.count({ where: { email: 'not-an-email' } })).toBe(0);
  });

  it('rejects logout by an anonymous caller with 401', async () => {
    const res = await t.graphql('mutation { logout }');
    expect(res.body.errors[0].extensions.code).toBe('AUTHENTICATION_FAILED');
  });
});

describe('bad input never gives a 500', () => {
  const login = (init: RequestInit) => t.fetch('/api/auth/login', { method: 'POST', ...init });

  it.each([
    ['malformed JSON', { headers: { 'content-type': 'application/json' }, body: '{"email":' }, 400, 'VALIDATION_ERROR'],
    ['an empty body', { headers: { 'content-type': 'application/json' }, body: '' }, 400, 'VALIDATION_ERROR'],
    ['a JSON array', { headers: { 'content-type': 'application/json' }, body: '[]' }, 400, 'VALIDATION_ERROR'],
    ['wrong types', { headers: { 'content-type': 'application/json' }, body: '{"email":5,"password":true}' }, 400, 'VALIDATION_ERROR'],
    ['unknown fields', { headers: { 'content-type': 'application/json' }, body: '{"email":"a@b.co","password":"x","admin":true}' }, 400, 'VALIDATION_ERROR'],
    ['a form body', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['an oversized body', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(2_000_000) }) }, 413, 'PAYLOAD_TOO_LARGE'],
  ])('%s', async (_name, init, status, code) => {
    const res = await login(init as RequestInit);
    expect(res.status).toBe(status);
    const body = await res.json();
    expect(body).toMatchObject({ success: false, code });
    expect(typeof body.error).toBe('string');
    expect(JSON.stringify(body)).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it('refuses a chunked body over the limit while streaming', async () => {
    const big = new TextEncoder().encode(JSON.stringify({ email: 'a@b.co', password: 'y'.repeat(1_100_000) }));
    const body = new ReadableStream({ start: (c) => (c.enqueue(big), c.close()) });
    const res = await t.fetch('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('refuses a cookie-authenticated POST from a foreign origin (CSRF) and keeps the session', async () => {
    const user = await signUp(t);
    const res = await t.json('POST', '/api/auth/logout', undefined, { cookie: user.cookie, origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('CSRF_REJECTED');
    const graphql = await t.graphql('mutation { logout }', undefined, { cookie: user.cookie, 'sec-fetch-site': 'cross-site' });
    expect(graphql.status).toBe(403);
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: user.cookie })).status).toBe(200);
    const sameOrigin = await t.json('POST', '/api/auth/logout', undefined, { cookie: user.cookie, origin: t.origin });
    expect(sameOrigin.status).toBe(200);
  });
});

describe('secure cookies', () => {
  it('marks the cookie Secure when the request came over HTTPS through a trusted proxy', async () => {
    const proxied = await createTestApp({ TRUST_PROXY: 'true' });
    try {
      const res = await proxied.json('POST', '/api/auth/signup', { email: 's@example.com', password: 'password123', firstName: 'S', lastName: 'C' }, { 'x-forwarded-proto': 'https' });
      expect(res.headers.get('set-cookie')).toContain('Secure');
    } finally {
      await proxied.close();
    }
  });
});
