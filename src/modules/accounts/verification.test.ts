// E-mail verification (REQUIRE_EMAIL_VERIFICATION) through the front door: a public signup gets no
// session until its mailed link is followed; the link is single use; a new one can be asked for with the
// same answer whatever the account; invitation signups and operator-made accounts are verified already.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieFrom, mailedToken } from '../../testkit/accounts.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { createUser } from './service.js';
import { runAsUser } from '../../db/request-db.js';

const verifySubject = 'Verify your e-mail address';
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ REQUIRE_EMAIL_VERIFICATION: 'true', MAIL_LINK_MAX_PER_EMAIL: '2' });
});
afterAll(() => t.close());

const newEmail = () => `verify-${randomBytes(4).toString('hex')}@example.com`;
const password = 'correct horse battery';

async function signUpUnverified(email = newEmail()) {
  const res = await t.json('POST', '/api/auth/signup', { email, password, firstName: 'Vera', lastName: 'Fied' });
  expect(res.status).toBe(201);
  return { email, res };
}

describe('with REQUIRE_EMAIL_VERIFICATION', () => {
  it('signs up without a session, refuses sign-in until the mailed link is followed, then signs in', async () => {
    const { email, res } = await signUpUnverified();
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.body.meta).toEqual({ isFirstUser: expect.any(Boolean), teamCreated: true, emailVerificationRequired: true });
    expect(res.body.data.user.email).toBe(email);

    const early = await t.json('POST', '/api/auth/login', { email, password });
    expect(early.status).toBe(403);
    expect(early.body).toEqual({ success: false, error: 'Verify your e-mail address first: follow the link we sent, or ask for a new one', code: 'EMAIL_NOT_VERIFIED' });
    // A wrong password says nothing about verification.
    expect((await t.json('POST', '/api/auth/login', { email, password: 'wrong password' })).status).toBe(401);

    const token = await mailedToken(t, email, verifySubject);
    const verified = await t.json('POST', '/api/auth/verify-email', { token });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ user: expect.objectContaining({ email }), activeTeamId: res.body.data.activeTeamId });
    const cookie = cookieFrom(verified.headers);
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie })).status).toBe(200);
    expect((await t.json('POST', '/api/auth/login', { email, password })).status).toBe(200);
    // Both ways in are in the audit trail, as is the wrong password (the owner's team log shows them).
    const log = await t.json('GET', `/api/v1/teams/${res.body.data.activeTeamId}/audit-log?limit=100`, undefined, { cookie });
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    const signIns = log.body.data.filter((e: { action: string }) => e.action.startsWith('sign_in.')).map((e: { action: string; details: { method?: string; reason?: string } }) => `${e.action} ${e.details.method ?? e.details.reason}`);
    expect(signIns).toEqual(['sign_in.succeeded password', 'sign_in.succeeded verification link', 'sign_in.failed wrong password']);

    const reused = await t.json('POST', '/api/auth/verify-email', { token });
    expect(reused.status).toBe(400);
    expect(reused.body.code).toBe('INVALID_TOKEN');
    expect(reused.headers.get('set-cookie')).toBeNull();
  });

  it('refuses tampered and expired links', async () => {
    const { email } = await signUpUnverified();
    const token = await mailedToken(t, email, verifySubject);
    expect((await t.json('POST', '/api/auth/verify-email', { token: token.slice(0, -2) + 'xx' })).body.code).toBe('INVALID_TOKEN');
    const user = await t.database.prisma.user.findUniqueOrThrow({ where: { email } });
    await t.database.prisma.accountToken.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await t.json('POST', '/api/auth/verify-email', { token })).body.code).toBe('INVALID_TOKEN');
    expect((await t.json('POST', '/api/auth/login', { email, password })).status).toBe(403);
  });

  it('mails a new link to an unverified account only, answering every address alike', async () => {
    const { email: unverified } = await signUpUnverified();
    const first = await mailedToken(t, unverified, verifySubject);
    const { email: done } = await signUpUnverified();
    expect((await t.json('POST', '/api/auth/verify-email', { token: await mailedToken(t, done, verifySubject) })).status).toBe(200);

    const since = new Date(Date.now() - 1);
    const answers = await Promise.all([unverified, done, newEmail()].map((email) => t.json('POST', '/api/auth/verify-email/resend', { email })));
    for (const answer of answers) {
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual(answers[0]!.body);
    }
    const second = await mailedToken(t, unverified, verifySubject, since);
    expect(second).not.toBe(first);
    // Both links work until one is followed; then the other ends.
    expect((await t.json('POST', '/api/auth/verify-email', { token: first })).status).toBe(200);
    expect((await t.json('POST', '/api/auth/verify-email', { token: second })).body.code).toBe('INVALID_TOKEN');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await t.database.prisma.emailOutbox.count({ where: { recipient: done, subject: verifySubject } })).toBe(1);
  });

  it('throttles resends per e-mail, known or not (429)', async () => {
    const { email } = await signUpUnverified();
    for (const address of [email, newEmail()]) {
      for (let i = 0; i < 2; i++) expect((await t.json('POST', '/api/auth/verify-email/resend', { email: address })).status).toBe(202);
      const refused = await t.json('POST', '/api/auth/verify-email/resend', { email: address });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
    }
  });

  it('works through GraphQL: no cookie at signup, a session from verifyEmail', async () => {
    const email = newEmail();
    const signup = await t.graphql(`mutation($i: SignupInput!) { signup(input: $i) { user { email } emailVerificationRequired } }`, { i: { email, password, firstName: 'G', lastName: 'Q' } });
    expect(signup.body.data.signup).toEqual({ user: { email }, emailVerificationRequired: true });
    expect(signup.headers.get('set-cookie')).toBeNull();
    const token = await mailedToken(t, email, verifySubject);
    const verified = await t.graphql(`mutation($t: String!) { verifyEmail(input: { token: $t }) { user { email } } }`, { t: token });
    expect(verified.body).toEqual({ data: { verifyEmail: { user: { email } } } });
    expect(cookieFrom(verified.headers)).toMatch(/^sid=/);
  });

  it('lets invited and operator-made accounts sign in at once', async () => {
    const ownerEmail = newEmail();
    await signUpUnverified(ownerEmail);
    const owner = cookieFrom((await t.json('POST', '/api/auth/verify-email', { token: await mailedToken(t, ownerEmail, verifySubject) })).headers);
    const team = await t.json('POST', '/api/v1/teams', { name: 'Verified team', slug: `v-${randomBytes(3).toString('hex')}` }, { cookie: owner });
    const invitee = newEmail();
    const invited = await t.json('POST', `/api/v1/teams/${team.body.data.id}/members`, { email: invitee, role: 'member' }, { cookie: owner });
    expect(invited.status).toBe(201);
    const joined = await t.json('POST', '/api/v1/auth/signup-with-invite', { email: invitee, password, firstName: 'I', lastName: 'N', inviteToken: invited.body.data.token });
    expect(joined.status).toBe(200);
    expect((await t.json('POST', '/api/auth/login', { email: invitee, password })).status).toBe(200);

    const operatorMade = newEmail();
    await createUser({ runAs: (id, work) => runAsUser(t.database, id, work) }, { email: operatorMade, password, firstName: '', lastName: '', role: 'member' });
    expect((await t.json('POST', '/api/auth/login', { email: operatorMade, password })).status).toBe(200);
  });
});

describe('without REQUIRE_EMAIL_VERIFICATION (the default outside production)', () => {
  it('signs up with a session and mails nothing', async () => {
    const app = await createTestApp();
    try {
      const email = newEmail();
      const res = await app.json('POST', '/api/auth/signup', { email, password, firstName: 'N', lastName: 'V' });
      expect(res.status).toBe(201);
      expect(cookieFrom(res.headers)).toMatch(/^sid=/);
      expect(res.body.meta).toEqual({ isFirstUser: true, teamCreated: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await app.database.prisma.emailOutbox.count({ where: { recipient: email } })).toBe(0);
    } finally {
      await app.close();
    }
  });
});
