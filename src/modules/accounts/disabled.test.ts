// Accounts an operator disabled (CLI `user disable`, operator.ts): no way in (password, second factor),
// sessions ended and refused, API keys refused (401, like any failed key), and all of it back on enable.
// The provider sign-in's refusal is in provider-sign-in.test.ts; the CLI beside a running server (cached
// keys evicted over Redis) in cli/cli.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieFrom, signUp } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { openEventStream } from '../../testkit/event-stream.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { disableUser, enableUser, setRole } from './operator.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const evictions = { forgetUser: async () => {} };
const login = (email: string, password: string) => t.json('POST', '/api/auth/login', { email, password });

describe('a disabled account', () => {
  it('cannot sign in (403 ACCOUNT_DISABLED after the right password only), its sessions end and its keys are refused; enable restores sign-in and keys', async () => {
    const user = await signUp(t);
    const key = await createKey(t, user); // not used yet: not cached in this app
    const disabled = await disableUser(t.database, evictions, user.email);
    expect(disabled).toMatchObject({ id: user.id, endedSessions: 1, wasDisabled: false });
    expect(disabled.disabledAt).toBeInstanceOf(Date);

    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: user.cookie })).status).toBe(401);
    const refused = await login(user.email, user.password);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ success: false, error: 'This account is disabled: ask an operator of this platform', code: 'ACCOUNT_DISABLED' });
    expect(refused.headers.get('set-cookie')).toBeNull();
    // A wrong password learns nothing about the account.
    expect((await login(user.email, 'not the password')).status).toBe(401);
    const byKey = await t.json('GET', '/api/v1/teams', undefined, bearer(key.key));
    expect(byKey.status).toBe(401);
    expect(await t.database.prisma.session.count({ where: { userId: user.id } })).toBe(0);

    // A session row that appears anyway (a sign-in racing the disable) does not verify.
    const raced = await signUp(t);
    const racedLogin = await login(raced.email, raced.password);
    await t.database.prisma.user.update({ where: { id: raced.id }, data: { disabledAt: new Date() } });
    expect((await t.json('GET', '/api/auth/session', undefined, { cookie: cookieFrom(racedLogin.headers) })).status).toBe(401);

    expect(await enableUser(t.database, user.email)).toMatchObject({ disabledAt: null, wasDisabled: true });
    expect((await t.json('GET', '/api/v1/teams', undefined, bearer(key.key))).status).toBe(200);
    expect((await login(user.email, user.password)).status).toBe(200);
    expect(await enableUser(t.database, user.email)).toMatchObject({ wasDisabled: false });
  });

  it('ends the open realtime streams of its sessions (END UNAUTHENTICATED at the next credentials check)', async () => {
    const user = await signUp(t);
    const stream = await openEventStream(`${t.origin}/api/v1/tasks/events`, { cookie: user.cookie });
    expect(stream.status).toBe(200);
    try {
      await disableUser(t.database, evictions, user.email);
      const end = await stream.next(30_000); // REALTIME_RECHECK_MS (500 ms) on a loaded machine
      expect(end.data).toMatchObject({ type: 'END', code: 'UNAUTHENTICATED' });
      await stream.closed;
    } finally {
      stream.close();
    }
  });

  it('is refused before the second factor: no challenge is issued', async () => {
    const user = await signUp(t);
    await t.database.prisma.userTotp.create({ data: { userId: user.id, secretSealed: 'plain:JBSWY3DPEHPK3PXP', enabledAt: new Date() } });
    expect((await login(user.email, user.password)).body.data).toMatchObject({ twoFactorRequired: true });
    await disableUser(t.database, evictions, user.email);
    const refused = await login(user.email, user.password);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ACCOUNT_DISABLED');
    // A challenge issued before the disable is used up by it.
    expect(await t.database.prisma.accountToken.count({ where: { userId: user.id, purpose: 'sign_in_challenge', usedAt: null } })).toBe(0);
  });

  it('keeps an enabled superadmin: the last one is neither disabled nor demoted', async () => {
    const a = await signUp(t);
    const b = await signUp(t);
    await t.database.prisma.user.updateMany({ where: { role: 'superadmin' }, data: { role: 'member' } });
    await setRole(t.database, evictions, a.email, 'superadmin');
    await expect(disableUser(t.database, evictions, a.email)).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(setRole(t.database, evictions, a.email, 'developer')).rejects.toMatchObject({ code: 'CONFLICT' });
    await setRole(t.database, evictions, b.email, 'superadmin');
    await disableUser(t.database, evictions, a.email);
    // A disabled superadmin does not count: b is now the last enabled one.
    await expect(setRole(t.database, evictions, b.email, 'member')).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await setRole(t.database, evictions, a.email, 'member')).toMatchObject({ role: 'member', previousRole: 'superadmin' });
  });
});
