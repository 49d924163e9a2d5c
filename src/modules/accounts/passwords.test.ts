// Passwords and sessions through the front door: a reset by e-mailed link (REST and GraphQL), its abuse
// cases (reused, tampered, expired and raced tokens, enumeration by answer and by timing, throttling),
// a change by the signed-in user, and the session list with its revocations.
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieFrom, mailedToken as mailedLinkToken, signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ MAIL_LINK_MAX_PER_EMAIL: '3' });
});
afterAll(() => t.close());

/** The reset token of the last link mailed to `email` (after `after`). */
const mailedToken = (app: TestApp, email: string, after?: Date) => mailedLinkToken(app, email, 'Reset your password', after);

const signIn = (user: SignedUpUser, password = user.password) => t.json('POST', '/api/auth/login', { email: user.email, password });

async function requestReset(user: SignedUpUser): Promise<string> {
  const since = new Date(Date.now() - 1);
  const res = await t.json('POST', '/api/auth/password-reset', { email: user.email });
  expect(res.status).toBe(202);
  return mailedToken(t, user.email, since);
}

describe('password reset', () => {
  it('mails a single-use link that sets a new password and ends every session', async () => {
    const user = await signUp(t);
    const otherDevice = cookieFrom((await signIn(user)).headers);
    const res = await t.json('POST', '/api/auth/password-reset', { email: user.email.toUpperCase() });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ success: true, data: { requested: true }, message: 'If an account has this e-mail, a reset link is on its way' });
    const token = await mailedToken(t, user.email);
    const stored = await t.database.prisma.accountToken.findMany({ where: { userId: user.id, purpose: 'password_reset' } });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.tokenHash).not.toContain(token); // only a hash is kept

    const confirm = await t.json('POST', '/api/auth/password-reset/confirm', { token, password: 'a brand new secret' });
    expect(confirm.status).toBe(200);
    expect(confirm.body).toEqual({ success: true, data: { reset: true }, message: 'Password changed: sign in with the new password' });
    expect(confirm.headers.get('set-cookie')).toBeNull();
    for (const cookie of [user.cookie, otherDevice]) expect((await t.json('GET', '/api/auth/session', undefined, { cookie })).status).toBe(401);
    expect((await signIn(user)).status).toBe(401);
    expect((await signIn(user, 'a brand new secret')).status).toBe(200);

    const again = await t.json('POST', '/api/auth/password-reset/confirm', { token, password: 'yet another secret' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ success: false, error: 'This password reset link is invalid, used or expired: ask for a new one', code: 'INVALID_TOKEN' });
    expect((await signIn(user, 'a brand new secret')).status).toBe(200);
  });

  it('refuses tampered and expired tokens, and a new password too short, changing nothing', async () => {
    const user = await signUp(t);
    const token = await requestReset(user);
    const tampered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect((await t.json('POST', '/api/auth/password-reset/confirm', { token: tampered, password: 'a brand new secret' })).body.code).toBe('INVALID_TOKEN');
    expect((await t.json('POST', '/api/auth/password-reset/confirm', { token, password: 'short' })).status).toBe(400);
    await t.database.prisma.accountToken.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await t.json('POST', '/api/auth/password-reset/confirm', { token, password: 'a brand new secret' })).body.code).toBe('INVALID_TOKEN');
    expect((await signIn(user)).status).toBe(200);
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: user.cookie })).status).toBe(200);
  });

  it('lets one of two simultaneous confirmations with the same token through', async () => {
    const user = await signUp(t);
    const token = await requestReset(user);
    const answers = await Promise.all(['first new password', 'second new password'].map((password) => t.json('POST', '/api/auth/password-reset/confirm', { token, password })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const winner = answers[0]!.status === 200 ? 'first new password' : 'second new password';
    expect((await signIn(user, winner)).status).toBe(200);
  });

  it('ends the links still open once the password changed', async () => {
    const user = await signUp(t);
    const first = await requestReset(user);
    const second = await requestReset(user);
    expect((await t.json('POST', '/api/auth/password-reset/confirm', { token: second, password: 'the newest secret' })).status).toBe(200);
    expect((await t.json('POST', '/api/auth/password-reset/confirm', { token: first, password: 'an older secret' })).body.code).toBe('INVALID_TOKEN');
  });

  it('answers an unknown e-mail exactly like a known one, and mails nothing', async () => {
    const known = await signUp(t);
    const [a, b] = await Promise.all([known.email, 'nobody-here@example.com'].map((email) => t.json('POST', '/api/auth/password-reset', { email })));
    expect(b!.status).toBe(a!.status);
    expect(b!.body).toEqual(a!.body);
    await mailedToken(t, known.email);
    expect(await t.database.prisma.emailOutbox.count({ where: { recipient: 'nobody-here@example.com' } })).toBe(0);
  });

  it('throttles requests per e-mail, known or not, with the same 429', async () => {
    const user = await signUp(t);
    for (const email of [user.email, 'ghost@example.com']) {
      for (let i = 0; i < 3; i++) expect((await t.json('POST', '/api/auth/password-reset', { email })).status).toBe(202);
      const refused = await t.json('POST', '/api/auth/password-reset', { email });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ success: false, error: 'Too many e-mail requests: try again later', code: 'RATE_LIMITED', details: { retryAfter: expect.any(Number) } });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('works through GraphQL with the same rules', async () => {
    const user = await signUp(t);
    const since = new Date(Date.now() - 1);
    const asked = await t.graphql('mutation($e: String!) { requestPasswordReset(input: { email: $e }) }', { e: user.email });
    expect(asked.body).toEqual({ data: { requestPasswordReset: true } });
    const token = await mailedToken(t, user.email, since);
    const reset = `mutation($t: String!, $p: String!) { resetPassword(input: { token: $t, password: $p }) }`;
    expect((await t.graphql(reset, { t: token, p: 'graphql new secret' })).body).toEqual({ data: { resetPassword: true } });
    const reused = await t.graphql(reset, { t: token, p: 'graphql newer secret' });
    expect(reused.body.errors[0].extensions.code).toBe('INVALID_TOKEN');
    expect((await signIn(user, 'graphql new secret')).status).toBe(200);
  });
});

describe('the answer does not wait for the e-mail', () => {
  let smtp: SMTPServer;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let app: TestApp;
  beforeAll(async () => {
    // A mail server that holds every message until the test releases it.
    smtp = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], onData: (stream, _session, done) => { stream.resume(); stream.on('end', () => void held.then(() => done())); } });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    app = await createTestApp({ SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    release();
    await app.close();
    await new Promise<void>((resolve) => smtp.close(resolve));
  });

  it('answers a known account while its e-mail is still being sent, as it answers an unknown one', async () => {
    const user = await signUp(app);
    const known = await app.json('POST', '/api/auth/password-reset', { email: user.email });
    const unknown = await app.json('POST', '/api/auth/password-reset', { email: 'unknown@example.com' });
    expect(known.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    // The message is still held by the mail server: nothing is in the outbox yet.
    expect(await app.database.prisma.emailOutbox.count({ where: { recipient: user.email } })).toBe(0);
    release();
    const token = await mailedToken(app, user.email);
    expect(token).toHaveLength(43);
    expect(await app.database.prisma.emailOutbox.findFirst({ where: { recipient: user.email }, select: { status: true } })).toEqual({ status: 'sent' });
  });
});

describe('password change', () => {
  it('needs the current password, ends every session and renews this one’s token', async () => {
    const user = await signUp(t);
    const other = cookieFrom((await signIn(user)).headers);
    const wrong = await t.json('POST', '/api/auth/password', { currentPassword: 'not it at all', newPassword: 'changed password' }, { cookie: user.cookie });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ success: false, error: 'The current password is not correct', code: 'INVALID_CREDENTIALS' });
    const res = await t.json('POST', '/api/auth/password', { currentPassword: user.password, newPassword: 'changed password' }, { cookie: user.cookie });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ endedSessions: 1 });
    const renewed = cookieFrom(res.headers);
    expect(renewed).toMatch(/^sid=/);
    expect(renewed).not.toBe(user.cookie);
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: renewed })).status).toBe(200);
    for (const cookie of [user.cookie, other]) expect((await t.json('GET', '/api/auth/session', undefined, { cookie })).status).toBe(401);
    expect((await signIn(user, 'changed password')).status).toBe(200);
  });

  it('counts wrong current passwords as failed sign-ins (429 once blocked)', async () => {
    const app = await createTestApp({ SIGNIN_MAX_FAILURES_PER_ACCOUNT: '2' });
    try {
      const user = await signUp(app);
      const change = () => app.json('POST', '/api/auth/password', { currentPassword: 'wrong guess', newPassword: 'whatever new one' }, { cookie: user.cookie });
      expect((await change()).status).toBe(400);
      expect((await change()).status).toBe(400);
      expect((await change()).status).toBe(429);
    } finally {
      await app.close();
    }
  });

  it('is refused without a session (an API key cannot change a password) and cross-site', async () => {
    const user = await signUp(t);
    expect((await t.json('POST', '/api/auth/password', { currentPassword: user.password, newPassword: 'changed password' })).status).toBe(401);
    const key = await createKey(t, user, { scopes: ['teams:read', 'teams:write'] });
    const keyed = await t.json('POST', '/api/auth/password', { currentPassword: user.password, newPassword: 'changed password' }, bearer(key.key));
    expect(keyed.status).toBe(403);
    expect((await t.json('GET', '/api/auth/sessions', undefined, bearer(key.key))).status).toBe(403);
    const forged = await t.json('POST', '/api/auth/password', { currentPassword: user.password, newPassword: 'changed password' }, { cookie: user.cookie, origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe('CSRF_REJECTED');
    const forgedRevoke = await t.json('POST', '/api/auth/sessions/revoke-others', undefined, { cookie: user.cookie, origin: 'https://evil.example' });
    expect(forgedRevoke.status).toBe(403);
    expect((await signIn(user)).status).toBe(200);
  });
});

const iPad = 'Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';

describe('sessions', () => {
  it('lists where the user is signed in, and ends one, all others, or this one', async () => {
    const user = await signUp(t);
    const phone = cookieFrom((await t.json('POST', '/api/auth/login', { email: user.email, password: user.password }, { 'user-agent': 'PhoneBrowser/1.0' })).headers);
    const tablet = cookieFrom((await t.json('POST', '/api/auth/login', { email: user.email, password: user.password }, { 'user-agent': iPad })).headers);
    const list = await t.json('GET', '/api/auth/sessions', undefined, { cookie: phone });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(3);
    const mine = list.body.data.find((s: { current: boolean }) => s.current);
    expect(mine).toMatchObject({ userAgent: 'PhoneBrowser/1.0', ipAddress: expect.any(String), lastSeenAt: expect.any(String), expiresAt: expect.any(String) });
    expect(list.body.data.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    // A known browser's user agent in words; a client that is none, none.
    expect(mine.device).toBeNull();
    expect(list.body.data.map((s: { device: string | null }) => s.device)).toContain('Safari 17 on iOS (iPad)');

    // Another user cannot end these sessions, nor see that they exist.
    const stranger = await signUp(t);
    const other = list.body.data.find((s: { current: boolean }) => !s.current);
    expect((await t.json('DELETE', `/api/auth/sessions/${other.id}`, undefined, { cookie: stranger.cookie })).status).toBe(404);
    expect((await t.json('DELETE', '/api/auth/sessions/not-a-uuid', undefined, { cookie: phone })).status).toBe(404);

    const revoked = await t.json('DELETE', `/api/auth/sessions/${other.id}`, undefined, { cookie: phone });
    expect(revoked.body).toEqual({ success: true, data: { revoked: true } });
    expect(revoked.headers.get('set-cookie')).toBeNull();
    const others = await t.json('POST', '/api/auth/sessions/revoke-others', undefined, { cookie: phone });
    expect(others.body.data).toEqual({ revoked: 1 });
    for (const cookie of [user.cookie, tablet]) expect((await t.json('GET', '/api/auth/session', undefined, { cookie })).status).toBe(401);

    const self = await t.graphql('mutation($id: ID!) { revokeSession(id: $id) }', { id: mine.id }, { cookie: phone });
    expect(self.body).toEqual({ data: { revokeSession: true } });
    expect(self.headers.get('set-cookie')).toMatch(/^sid=;.*Max-Age=0/);
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: phone })).status).toBe(401);
  });

  it('renews when a session was last seen, at most once a minute', async () => {
    const user = await signUp(t);
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await t.database.prisma.session.updateMany({ where: { userId: user.id }, data: { lastSeenAt: anHourAgo } });
    const before = Date.now() - 1000;
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: user.cookie })).status).toBe(200);
    let seen = anHourAgo;
    for (let i = 0; i < 200 && seen.getTime() < before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      seen = (await t.database.prisma.session.findFirstOrThrow({ where: { userId: user.id } })).lastSeenAt;
    }
    expect(seen.getTime()).toBeGreaterThanOrEqual(before);
    const list = await t.graphql('{ mySessions { current lastSeenAt } }', undefined, { cookie: user.cookie });
    expect(list.body.data.mySessions).toEqual([{ current: true, lastSeenAt: seen.toISOString() }]);
  });
});
