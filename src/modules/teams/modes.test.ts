// Deployment modes (TEAMS_MODE): what public signup, invitations and team creation do in each.
import { describe, expect, it } from 'vitest';
import { signUp } from '../../testkit/accounts.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

async function withApp(env: Record<string, string>, work: (t: TestApp) => Promise<void>): Promise<void> {
  const t = await createTestApp(env);
  try {
    await work(t);
  } finally {
    await t.close();
  }
}

const signupBody = (email: string) => ({ email, password: 'long enough pw', firstName: 'F', lastName: 'L' });

describe('single-user', () => {
  it('gives every signup an isolated team and disables invitations and team creation', () =>
    withApp({ TEAMS_MODE: 'single-user' }, async (t) => {
      const a = await signUp(t);
      const b = await signUp(t);
      expect(a.activeTeamId).not.toBe(b.activeTeamId);
      const invite = await t.json('POST', `/api/v1/teams/${a.activeTeamId}/members`, { email: b.email, role: 'member' }, { cookie: a.cookie });
      expect(invite).toMatchObject({ status: 403, body: { code: 'INVITATIONS_DISABLED' } });
      const create = await t.json('POST', '/api/v1/teams', { name: 'More', slug: 'more' }, { cookie: a.cookie });
      expect(create).toMatchObject({ status: 403, body: { code: 'TEAM_CREATION_DISABLED' } });
      const invited = await t.json('POST', '/api/v1/auth/signup-with-invite', { ...signupBody('c@example.com'), inviteToken: '2b1e2c1e-6a8e-4b9c-9f5e-0c1d2e3f4a5b' });
      expect(invited.body.code).toBe('INVITATIONS_DISABLED');
    }));
});

describe('single-tenant', () => {
  it('lets the first signup create the global team and sends everyone else through invitations', () =>
    withApp({ TEAMS_MODE: 'single-tenant', GLOBAL_TEAM_NAME: 'Acme Corp' }, async (t) => {
      const first = await t.json('POST', '/api/auth/signup', signupBody('boss@example.com'));
      expect(first).toMatchObject({ status: 201, body: { data: { user: { id: expect.any(String) }, team: { id: expect.any(String), name: 'Acme Corp' } }, meta: { isFirstUser: true, teamCreated: true } } });
      const cookie = String(first.headers.get('set-cookie')).split(';')[0]!;
      const teamId = first.body.data.team.id;

      const second = await t.json('POST', '/api/auth/signup', signupBody('late@example.com'));
      expect(second).toMatchObject({ status: 403, body: { code: 'PUBLIC_SIGNUP_RESTRICTED' } });
      expect(await t.database.prisma.user.count({ where: { email: 'late@example.com' } })).toBe(0);

      expect((await t.json('POST', '/api/v1/teams', { name: 'Side', slug: 'side' }, { cookie })).body.code).toBe('TEAM_CREATION_DISABLED');

      const { token } = (await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: 'late@example.com', role: 'member' }, { cookie })).body.data;
      const joined = await t.json('POST', '/api/v1/auth/signup-with-invite', { ...signupBody('late@example.com'), inviteToken: token });
      expect(joined).toMatchObject({ status: 200, body: { data: { teamId } } });
      expect(await t.database.prisma.team.count()).toBe(1);
    }));

  it('creates exactly one global team when two first signups race', () =>
    withApp({ TEAMS_MODE: 'single-tenant' }, async (t) => {
      const results = await Promise.all(['r1@example.com', 'r2@example.com', 'r3@example.com'].map((email) => t.json('POST', '/api/auth/signup', signupBody(email))));
      expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403]);
      expect(await t.database.prisma.team.count()).toBe(1);
      expect(await t.database.prisma.user.count()).toBe(1);
    }));
});

describe('multi-tenant', () => {
  it('gives signups a personal team and allows team creation unless ALLOW_CREATE_TEAMS=false', async () => {
    await withApp({ TEAMS_MODE: 'multi-tenant' }, async (t) => {
      const a = await signUp(t);
      expect((await t.json('POST', '/api/v1/teams', { name: 'Allowed', slug: 'allowed' }, { cookie: a.cookie })).status).toBe(201);
    });
    await withApp({ TEAMS_MODE: 'multi-tenant', ALLOW_CREATE_TEAMS: 'false' }, async (t) => {
      const a = await signUp(t);
      const res = await t.json('POST', '/api/v1/teams', { name: 'Refused', slug: 'refused' }, { cookie: a.cookie });
      expect(res).toMatchObject({ status: 403, body: { code: 'TEAM_CREATION_DISABLED' } });
    });
  }, 120_000); // two apps booted one after the other: over 30 s on a loaded machine
});
