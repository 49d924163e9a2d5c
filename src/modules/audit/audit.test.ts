// The audit trail through the front door: an entry for each recorded action with its actor and target,
// who may read a team's log (owners and admins; a member 403, a stranger 404), filters and paging on
// REST and GraphQL, no secret in any entry, none for a refused change, and an append-only table under RLS.
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestDb } from '../../db/request-db.js';
import { cookieFrom, signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { addMember } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
let owner: SignedUpUser; // owns `team` (their personal team, also their active team)
let admin: SignedUpUser;
let member: SignedUpUser;
let stranger: SignedUpUser; // owner of another team
let team: string;
let adminMemberId: string;
let memberMemberId: string;
/** Every secret the tests see: none may appear in any entry. */
const secrets: string[] = [];

interface Entry {
  id: string;
  teamId: string | null;
  userId: string | null;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: string;
}

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
const log = (query = '', by: SignedUpUser = owner) => t.json('GET', `/api/v1/teams/${team}/audit-log${query}`, undefined, as(by));
const entries = async (query = ''): Promise<Entry[]> => {
  const res = await log(`?limit=100${query}`);
  expect(res.status).toBe(200);
  return res.body.data;
};
const one = async (action: string, targetId?: string): Promise<Entry> => {
  const found = (await entries(`&action=${action}`)).filter((e) => targetId === undefined || e.targetId === targetId);
  expect(found, action).toHaveLength(1);
  return found[0]!;
};

beforeAll(async () => {
  t = await createTestApp({ TWO_FACTOR_SECRET_KEY: 'b'.repeat(64), WEBHOOKS_SECRET_KEY: 'c1'.repeat(32), PLANS_JSON: JSON.stringify({ free: { limits: { team_members: 20 } } }) });
  owner = await signUp(t);
  admin = await signUp(t);
  member = await signUp(t);
  stranger = await signUp(t);
  team = owner.activeTeamId;
  secrets.push(owner.password, admin.password, member.password);
  adminMemberId = await addMember(t, owner, team, admin, 'admin');
  memberMemberId = await addMember(t, owner, team, member, 'member');
});
afterAll(() => t.close());

describe('entries', () => {
  it('records invitations sent and accepted, and members added, with actor, target and the invitee’s address', async () => {
    const sent = (await entries('&action=invitation.sent')).find((e) => e.details.email === member.email)!;
    expect(sent).toMatchObject({ teamId: team, userId: null, actorUserId: owner.id, actorApiKeyId: null, targetType: 'invitation', details: { email: member.email, role: 'member' } });
    expect(sent.createdAt).toEqual(expect.any(String));
    const accepted = await one('invitation.accepted', sent.targetId!);
    expect(accepted).toMatchObject({ actorUserId: member.id, details: { email: member.email, role: 'member' } });
    const added = await one('member.added', memberMemberId);
    expect(added).toMatchObject({ teamId: team, actorUserId: member.id, targetType: 'member', details: { userId: member.id, role: 'member', invitationId: sent.targetId } });
  });

  it('records a signup by invitation as the invitation accepted and the member added, by the new user', async () => {
    const invited = await t.json('POST', `/api/v1/teams/${team}/members`, { email: 'newcomer@example.com', role: 'member' }, as(owner));
    secrets.push(invited.body.data.token);
    const signup = await t.json('POST', '/api/v1/auth/signup-with-invite', { email: 'newcomer@example.com', password: 'newcomer password', firstName: 'New', lastName: 'Comer', inviteToken: invited.body.data.token });
    expect(signup.status).toBe(200);
    secrets.push('newcomer password');
    const newcomer = signup.body.data.user.id;
    expect(await one('invitation.accepted', invited.body.data.id)).toMatchObject({ actorUserId: newcomer, details: { email: 'newcomer@example.com' } });
    expect((await entries('&action=member.added')).find((e) => e.details.userId === newcomer)).toMatchObject({ teamId: team, actorUserId: newcomer, details: { role: 'member', invitationId: invited.body.data.id } });
  });

  it('records declined and cancelled invitations', async () => {
    const invitee = await signUp(t);
    const invited = await t.json('POST', `/api/v1/teams/${team}/members`, { email: invitee.email, role: 'viewer' }, as(admin));
    secrets.push(invited.body.data.token);
    expect((await t.json('POST', `/api/v1/team-invitations/${invited.body.data.token}/decline`, undefined, as(invitee))).status).toBe(200);
    expect(await one('invitation.declined', invited.body.data.id)).toMatchObject({ teamId: team, actorUserId: invitee.id, details: { email: invitee.email, role: 'viewer' } });
    const other = await t.json('POST', `/api/v1/teams/${team}/members`, { email: 'someone@example.com', role: 'member' }, as(admin));
    secrets.push(other.body.data.token);
    expect((await t.json('DELETE', `/api/v1/team-invitations/${other.body.data.id}`, undefined, as(owner))).status).toBeLessThan(300);
    expect(await one('invitation.cancelled', other.body.data.id)).toMatchObject({ actorUserId: owner.id, details: { email: 'someone@example.com' } });
  });

  it('records role changes, and none for a refused one (its transaction rolls back)', async () => {
    const before = (await entries()).length;
    const refused = await t.json('PATCH', `/api/v1/teams/${team}/members/${adminMemberId}`, { role: 'owner' }, as(member));
    expect(refused.status).toBe(403);
    expect((await entries()).length).toBe(before);
    expect((await t.json('PATCH', `/api/v1/teams/${team}/members/${memberMemberId}`, { role: 'viewer' }, as(admin))).status).toBe(200);
    expect(await one('member.role_changed', memberMemberId)).toMatchObject({ actorUserId: admin.id, details: { userId: member.id, from: 'member', to: 'viewer' } });
    await t.json('PATCH', `/api/v1/teams/${team}/members/${memberMemberId}`, { role: 'member' }, as(admin));
  });

  it('records team settings changes', async () => {
    expect((await t.json('PATCH', `/api/v1/teams/${team}`, { name: 'Renamed team', description: 'New' }, as(admin))).status).toBe(200);
    expect(await one('team.updated')).toMatchObject({ actorUserId: admin.id, targetType: 'team', targetId: team, details: { name: 'Renamed team', description: 'New' } });
  });

  it('records webhook endpoints created, changed, rotated and deleted, with the host but never the URL or the secret', async () => {
    const url = 'https://93.184.215.14/hooks?token=abc';
    const created = await t.json('POST', '/api/v1/webhooks', { url, eventTypes: ['tasks:*'] }, as(owner));
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    secrets.push(created.body.data.secret, 'token=abc');
    expect(await one('webhook.created', id)).toMatchObject({ actorUserId: owner.id, targetType: 'webhook_endpoint', details: { host: '93.184.215.14', eventTypes: ['tasks:*'], active: true } });
    expect((await t.json('PATCH', `/api/v1/webhooks/${id}`, { active: false }, as(owner))).status).toBe(200);
    const rotated = await t.json('POST', `/api/v1/webhooks/${id}/rotate-secret`, undefined, as(owner));
    secrets.push(rotated.body.data.secret);
    const updates = await entries('&action=webhook.updated');
    expect(updates.map((e) => e.details.changed)).toEqual([['signing key rotated'], ['active']]);
    expect((await t.json('DELETE', `/api/v1/webhooks/${id}`, undefined, as(owner))).status).toBeLessThan(300);
    expect(await one('webhook.deleted', id)).toMatchObject({ actorUserId: owner.id });
  });

  it('records a member’s API keys created and revoked (user-level: shown in the teams of the key’s owner), with the key that acted', async () => {
    const key = await createKey(t, member, { name: 'ci key', scopes: ['teams:read', 'teams:write'] });
    secrets.push(key.key);
    const created = await one('api_key.created', key.id);
    expect(created).toMatchObject({ teamId: null, userId: member.id, actorUserId: member.id, actorApiKeyId: null, details: { name: 'ci key', keyPrefix: key.keyPrefix } });
    expect(created.ipAddress === null || typeof created.ipAddress === 'string').toBe(true);
    // A change made with the key names the key.
    expect((await t.json('POST', `/api/v1/teams/${team}/members`, { email: 'bykey@example.com', role: 'member' }, bearer(key.key))).status).toBe(403);
    const ownerKey = await createKey(t, owner, { scopes: ['teams:read', 'teams:write'] });
    secrets.push(ownerKey.key);
    const byKey = await t.json('POST', `/api/v1/teams/${team}/members`, { email: 'bykey@example.com', role: 'member' }, bearer(ownerKey.key));
    secrets.push(byKey.body.data.token);
    expect(await one('invitation.sent', byKey.body.data.id)).toMatchObject({ actorUserId: owner.id, actorApiKeyId: ownerKey.id });
    expect((await t.json('DELETE', `/api/v1/api-keys/${key.id}`, undefined, as(member))).status).toBe(200);
    expect(await one('api_key.revoked', key.id)).toMatchObject({ userId: member.id, actorUserId: member.id, details: { name: 'ci key' } });
  });

  it('records sign-ins, failed sign-ins (written apart, the request failing), sessions ended and two-factor on and off', async () => {
    const login = await t.json('POST', '/api/auth/login', { email: member.email, password: member.password }, { 'user-agent': 'AuditTest/1.0' });
    expect(login.status).toBe(200);
    const signIns = await entries(`&action=sign_in.succeeded&actor=${member.id}`);
    expect(signIns[0]).toMatchObject({ userId: member.id, actorUserId: member.id, userAgent: 'AuditTest/1.0', details: { method: 'password' } });
    expect((await t.json('POST', '/api/auth/login', { email: member.email, password: 'wrong password!' })).status).toBe(401);
    expect(await one('sign_in.failed')).toMatchObject({ userId: member.id, actorUserId: null, targetType: 'user', targetId: member.id, details: { reason: 'wrong password' } });

    const elsewhere = { cookie: cookieFrom(login.headers) };
    expect((await t.json('POST', '/api/auth/sessions/revoke-others', undefined, elsewhere)).status).toBe(200);
    expect(await one('sessions.revoked')).toMatchObject({ userId: member.id, actorUserId: member.id, details: { count: 1, reason: 'sign out elsewhere' } });
    expect((await t.json('POST', '/api/auth/logout', undefined, elsewhere)).status).toBe(200);
    expect(await one('session.revoked')).toMatchObject({ userId: member.id, actorUserId: member.id, targetType: 'session', details: { reason: 'sign out' } });

    const again = await t.json('POST', '/api/auth/login', { email: member.email, password: member.password });
    const cookie = { cookie: cookieFrom(again.headers) };
    const enrolled = await t.json('POST', '/api/auth/two-factor/enroll', { password: member.password }, cookie);
    const { secret } = enrolled.body.data;
    const confirmed = await t.json('POST', '/api/auth/two-factor/confirm', { code: OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret) }) }, cookie);
    expect(confirmed.status).toBe(200);
    secrets.push(secret, ...confirmed.body.data.recoveryCodes);
    expect(await one('two_factor.enabled')).toMatchObject({ userId: member.id, actorUserId: member.id });
    const renewed = { cookie: cookieFrom(confirmed.headers) };
    expect((await t.json('POST', '/api/auth/two-factor/disable', { code: confirmed.body.data.recoveryCodes[0] }, renewed)).status).toBe(200);
    expect(await one('two_factor.disabled')).toMatchObject({ userId: member.id, actorUserId: member.id });
    // Turning two-factor on ended the member's other sessions: the tests after this one use a new one.
    member.cookie = cookieFrom((await t.json('POST', '/api/auth/login', { email: member.email, password: member.password })).headers);
  });

  it('records a member removed', async () => {
    const leaver = await signUp(t);
    const id = await addMember(t, owner, team, leaver);
    expect((await t.json('DELETE', `/api/v1/teams/${team}/members/${id}`, undefined, as(admin))).status).toBe(204);
    expect(await one('member.removed', id)).toMatchObject({ actorUserId: admin.id, details: { userId: leaver.id, role: 'member', left: false } });
  });

  it('holds no secret: no key, token, password, TOTP secret, recovery code or signing secret in any entry', async () => {
    const all = JSON.stringify(await t.database.prisma.auditEvent.findMany());
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(all).not.toContain(secret);
  });
});

describe('reading the log', () => {
  it('is for owners and admins: a member is refused 403, another team’s owner 404, anonymous 401', async () => {
    expect((await log('', admin)).status).toBe(200);
    expect(await log('', member)).toMatchObject({ status: 403, body: { success: false, code: 'FORBIDDEN' } });
    expect(await log('', stranger)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect((await t.json('GET', `/api/v1/teams/${team}/audit-log`)).status).toBe(401);
    expect((await t.json('GET', '/api/v1/teams/not-a-team/audit-log', undefined, as(owner))).status).toBe(404);
    // The stranger's own log shows nothing of this team or its members.
    const theirs = await t.json('GET', `/api/v1/teams/${stranger.activeTeamId}/audit-log?limit=100`, undefined, as(stranger));
    expect(theirs.body.data.every((e: Entry) => e.teamId === stranger.activeTeamId || e.userId === stranger.id)).toBe(true);
  });

  it('filters by actor, action (or a family) and time, and pages newest first with the teams routes’ meta', async () => {
    const all = await entries();
    expect(all.map((e) => e.createdAt)).toEqual([...all.map((e) => e.createdAt)].sort().reverse());
    const byAdmin = await entries(`&actor=${admin.id}`);
    expect(byAdmin.length).toBeGreaterThan(0);
    expect(byAdmin.every((e) => e.actorUserId === admin.id)).toBe(true);
    const members = await entries('&action=member.*');
    expect(new Set(members.map((e) => e.action))).toEqual(new Set(['member.added', 'member.role_changed', 'member.removed']));
    const oldest = all[all.length - 1]!.createdAt;
    expect(await entries(`&to=${encodeURIComponent(oldest)}`)).toEqual([]);
    expect((await entries(`&from=${encodeURIComponent(all[0]!.createdAt)}`)).map((e) => e.id)).toContain(all[0]!.id);
    const page = await log('?limit=2&page=2');
    expect(page.body.meta).toEqual({ page: 2, limit: 2, total: all.length, totalPages: Math.ceil(all.length / 2), hasMore: all.length > 4 });
    expect(page.body.data.map((e: Entry) => e.id)).toEqual(all.slice(2, 4).map((e) => e.id));
    for (const bad of ['?limit=101', '?action=DROP TABLE', '?from=yesterday', '?sort=id']) expect((await log(bad)).status, bad).toBe(400);
  });

  it('answers the same through GraphQL', async () => {
    const query = 'query($teamId: ID!, $action: String) { teamAuditLog(teamId: $teamId, action: $action, limit: 5) { items { action actorUserId targetId details } total hasMore } }';
    const res = await t.graphql(query, { teamId: team, action: 'team.updated' }, as(admin));
    expect(res.body.data.teamAuditLog).toMatchObject({ total: 1, hasMore: false, items: [{ action: 'team.updated', actorUserId: admin.id, targetId: team }] });
    const refused = await t.graphql(query, { teamId: team }, as(member));
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('row-level security', () => {
  it('shows owners and admins their teams’ entries only, and lets no one change or delete one', async () => {
    for (const [user, sees] of [[admin, true], [member, false]] as const) {
      const db = new RequestDb(t.database, user.id);
      try {
        const tx = await db.tx();
        const visible = await tx.auditEvent.count({ where: { teamId: team } });
        expect(visible > 0, user.email).toBe(sees);
      } finally {
        await db.finish(false);
      }
    }
    for (const change of ['UPDATE audit_events SET action = \'team.updated\'', 'DELETE FROM audit_events']) {
      const db = new RequestDb(t.database, owner.id);
      try {
        await expect(db.query(change, [])).rejects.toThrow(/permission denied/);
      } finally {
        await db.finish(false);
      }
    }
  });
});
