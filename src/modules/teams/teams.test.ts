// Teams through the front door (REST and GraphQL) on the test database: CRUD, isolation, members and
// role rules, invitations, the active team, plans and usage, and RLS on the team tables.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestDb } from '../../db/request-db.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { addMember, createTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
let owner: SignedUpUser;
let stranger: SignedUpUser;
beforeAll(async () => {
  t = await createTestApp({ PLANS_JSON: JSON.stringify({ free: { limits: { team_members: 20 } } }) });
  owner = await signUp(t, { firstName: 'Olive' });
  stranger = await signUp(t);
});
afterAll(() => t.close());

const as = (user: SignedUpUser) => ({ cookie: user.cookie });

describe('teams', () => {
  it('creates a team owned by the caller, with meta.created', async () => {
    const res = await t.json('POST', '/api/v1/teams', { name: 'Acme', slug: 'acme', description: 'Rockets' }, as(owner));
    expect(res).toMatchObject({ status: 201, body: { success: true, data: { name: 'Acme', slug: 'acme', description: 'Rockets', ownerId: owner.id, memberCount: 1 }, meta: { created: true } } });
    const again = await t.json('POST', '/api/v1/teams', { name: 'Acme 2', slug: 'acme' }, as(stranger));
    expect(again).toMatchObject({ status: 409, body: { success: false, code: 'SLUG_EXISTS' } });
  });

  it.each([
    [{ name: 'A', slug: 'ok-slug' }, /name/],
    [{ name: 'x'.repeat(101), slug: 'ok-slug' }, /name/],
    [{ name: 'Fine', slug: 'Bad_Slug' }, /slug/],
    [{ name: 'Fine', slug: 'a' }, /slug/],
    [{ name: 'Fine', slug: '-edge-' }, /slug/],
    [{ name: 'Fine', slug: 'x'.repeat(51) }, /slug/],
    [{ name: 'Fine', slug: 'fine-slug', description: 'd'.repeat(501) }, /description/],
    [{ name: 'Fine', slug: 'fine-slug', owner: 'me' }, /owner/],
  ])('refuses %j with 400 VALIDATION_ERROR', async (body, message) => {
    const res = await t.json('POST', '/api/v1/teams', body, as(owner));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.error).toMatch(message);
  });

  it('lists only the caller’s teams with role, member count, search, sort and paging meta', async () => {
    const user = await signUp(t);
    for (const slug of ['zeta-one', 'alpha-two', 'mid-three']) await createTeam(t, user, slug, `Name ${slug}`);
    const list = await t.json('GET', '/api/v1/teams?limit=2&sort=name&order=asc', undefined, as(user));
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ page: 1, limit: 2, total: 4, totalPages: 2, hasMore: true });
    expect(list.body.data.map((team: { slug: string }) => team.slug)).toEqual(['alpha-two', 'mid-three']);
    expect(list.body.data[0]).toMatchObject({ userRole: 'owner', memberCount: 1 });
    const second = await t.json('GET', '/api/v1/teams?limit=2&page=2&sort=name&order=asc', undefined, as(user));
    expect(second.body.meta).toMatchObject({ page: 2, hasMore: false });
    const beyond = await t.json('GET', '/api/v1/teams?limit=2&page=9&search=-', undefined, as(user));
    expect(beyond.body).toMatchObject({ data: [], meta: { page: 9, total: 3, hasMore: false } });
    const search = await t.json('GET', '/api/v1/teams?search=ZETA', undefined, as(user));
    expect(search.body.data.map((team: { slug: string }) => team.slug)).toEqual(['zeta-one']);
    expect((await t.json('GET', '/api/v1/teams?limit=101', undefined, as(user))).status).toBe(400);
    expect((await t.json('GET', '/api/v1/teams?sort=owner', undefined, as(user))).status).toBe(400);
  });

  it('isolates teams: a stranger finds nothing by id, list or search', async () => {
    const teamId = await createTeam(t, owner, 'secret-team', 'Secret Sauce');
    const byId = await t.json('GET', `/api/v1/teams/${teamId}`, undefined, as(stranger));
    expect(byId).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const list = await t.json('GET', '/api/v1/teams?search=Secret', undefined, as(stranger));
    expect(list.body.data).toEqual([]);
    expect((await t.json('GET', `/api/v1/teams/${teamId}/members`, undefined, as(stranger))).status).toBe(404);
    expect((await t.json('PATCH', `/api/v1/teams/${teamId}`, { name: 'Mine now' }, as(stranger))).status).toBe(404);
    expect((await t.json('DELETE', `/api/v1/teams/${teamId}`, undefined, as(stranger))).status).toBe(404);
    const gql = await t.graphql(`{ team(id: "${teamId}") { name } }`, undefined, as(stranger));
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('answers 401 AUTHENTICATION_FAILED without a caller', async () => {
    const res = await t.json('GET', '/api/v1/teams');
    expect(res).toMatchObject({ status: 401, body: { success: false, error: 'Unauthorized', code: 'AUTHENTICATION_FAILED' } });
  });

  it('lets owners and admins update, only the owner delete (204), and deletes everything of the team', async () => {
    const teamId = await createTeam(t, owner, 'to-delete');
    const admin = await signUp(t);
    const member = await signUp(t);
    await addMember(t, owner, teamId, admin, 'admin');
    await addMember(t, owner, teamId, member, 'member');
    const patched = await t.json('PATCH', `/api/v1/teams/${teamId}`, { name: 'Renamed', description: null }, as(admin));
    expect(patched).toMatchObject({ status: 200, body: { data: { id: teamId, name: 'Renamed', description: null } } });
    expect((await t.json('PATCH', `/api/v1/teams/${teamId}`, { name: 'Nope' }, as(member))).body.code).toBe('FORBIDDEN');
    expect((await t.json('PATCH', `/api/v1/teams/${teamId}`, {}, as(owner))).status).toBe(400);
    expect((await t.json('PATCH', `/api/v1/teams/${teamId}`, { slug: 'x' }, as(owner))).status).toBe(400);
    expect((await t.json('DELETE', `/api/v1/teams/${teamId}`, undefined, as(admin))).status).toBe(403);
    await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: 'pending@example.com', role: 'member' }, as(owner));

    const deleted = await t.fetch(`/api/v1/teams/${teamId}`, { method: 'DELETE', headers: as(owner) });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    const db = t.database.prisma;
    expect(await db.team.count({ where: { id: teamId } })).toBe(0);
    expect(await db.teamMember.count({ where: { teamId } })).toBe(0);
    expect(await db.teamInvitation.count({ where: { teamId } })).toBe(0);
    expect(await db.subscription.count({ where: { teamId } })).toBe(0);
    expect((await t.json('GET', `/api/v1/teams/${teamId}`, undefined, as(member))).status).toBe(404);
  });

  it('refuses to delete the owner’s only team', async () => {
    const solo = await signUp(t);
    const res = await t.json('DELETE', `/api/v1/teams/${solo.activeTeamId}`, undefined, as(solo));
    expect(res).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
  });
});

describe('members and roles', () => {
  let teamId: string;
  let admin: SignedUpUser;
  let member: SignedUpUser;
  let viewer: SignedUpUser;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    teamId = await createTeam(t, owner, 'roles-team');
    admin = await signUp(t, { firstName: 'Adam' });
    member = await signUp(t);
    viewer = await signUp(t);
    ids.admin = await addMember(t, owner, teamId, admin, 'admin');
    ids.member = await addMember(t, owner, teamId, member, 'member');
    ids.viewer = await addMember(t, owner, teamId, viewer, 'viewer');
    const list = await t.json('GET', `/api/v1/teams/${teamId}/members`, undefined, as(viewer));
    ids.owner = list.body.data.find((m: { role: string }) => m.role === 'owner').id;
  });

  it('lists members with their user, filtered by role, with meta', async () => {
    const res = await t.json('GET', `/api/v1/teams/${teamId}/members`, undefined, as(viewer));
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ page: 1, limit: 50, total: 4 });
    expect(res.body.data[0]).toMatchObject({ teamId, role: 'owner', userId: owner.id, user: { id: owner.id, email: owner.email, firstName: 'Olive', image: null } });
    const admins = await t.json('GET', `/api/v1/teams/${teamId}/members?role=admin`, undefined, as(viewer));
    expect(admins.body.data.map((m: { userId: string }) => m.userId)).toEqual([admin.id]);
    expect((await t.json('GET', `/api/v1/teams/${teamId}/members?role=king`, undefined, as(viewer))).status).toBe(400);
    const beyond = await t.json('GET', `/api/v1/teams/${teamId}/members?role=admin&page=5`, undefined, as(viewer));
    expect(beyond.body).toMatchObject({ data: [], meta: { page: 5, total: 1 } });
  });

  it.each([
    ['admin', 'member', 'admin', 403], // only the owner promotes to admin
    ['admin', 'owner', 'member', 403], // the owner's role never changes
    ['admin', 'admin', 'member', 403], // nobody changes their own role
    ['member', 'viewer', 'member', 403],
    ['viewer', 'member', 'viewer', 403],
    ['owner', 'member', 'owner', 403],
    ['admin', 'viewer', 'member', 200],
    ['owner', 'viewer', 'viewer', 200],
  ] as const)('%s changing the %s to %s → %i', async (actor, target, role, status) => {
    const users: Record<string, SignedUpUser> = { owner, admin, member, viewer };
    const res = await t.json('PATCH', `/api/v1/teams/${teamId}/members/${ids[target]}`, { role }, as(users[actor]!));
    expect(res.status).toBe(status);
    if (status === 200) expect(res.body.data).toMatchObject({ id: ids[target], role });
    else expect(res.body.code).toBe('FORBIDDEN');
  });

  it('never removes the owner or oneself; admins remove members; removed members lose access and their keys lose the team', async () => {
    expect((await t.json('DELETE', `/api/v1/teams/${teamId}/members/${ids.owner}`, undefined, as(admin))).status).toBe(403);
    expect((await t.json('DELETE', `/api/v1/teams/${teamId}/members/${ids.admin}`, undefined, as(admin))).status).toBe(403);
    expect((await t.json('DELETE', `/api/v1/teams/${teamId}/members/${ids.member}`, undefined, as(viewer))).status).toBe(403);

    const key = await createKey(t, member, { scopes: ['teams:read'] });
    expect((await t.json('GET', `/api/v1/teams/${teamId}`, undefined, { ...bearer(key.key), 'x-team-id': teamId })).status).toBe(200); // cached now
    const removed = await t.fetch(`/api/v1/teams/${teamId}/members/${ids.member}`, { method: 'DELETE', headers: as(admin) });
    expect(removed.status).toBe(204);
    expect((await t.json('GET', `/api/v1/teams/${teamId}`, undefined, as(member))).status).toBe(404);
    expect((await t.json('GET', `/api/v1/teams/${teamId}`, undefined, { ...bearer(key.key), 'x-team-id': teamId })).status).toBe(403);
  });

  it('lets a viewer read but not write team data', async () => {
    expect((await t.json('GET', `/api/v1/teams/${teamId}`, undefined, as(viewer))).body.data.userRole).toBe('viewer');
    expect((await t.json('PATCH', `/api/v1/teams/${teamId}`, { name: 'Viewer was here' }, as(viewer))).status).toBe(403);
    expect((await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: 'x@example.com', role: 'viewer' }, as(viewer))).status).toBe(403);
  });
});

describe('invitations', () => {
  it('invites by e-mail with a UUID token and 7-day expiry, records the e-mail, and the invitee accepts', async () => {
    const teamId = await createTeam(t, owner, 'invite-team', 'Invite Team');
    const invitee = await signUp(t);
    const res = await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: invitee.email.toUpperCase(), role: 'member' }, as(owner));
    expect(res.status).toBe(201);
    expect(res.body.meta).toEqual({ emailSent: false });
    const invitation = res.body.data;
    expect(invitation).toMatchObject({ teamId, email: invitee.email, role: 'member', status: 'pending' });
    expect(invitation.token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Date.parse(invitation.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const mail = await t.database.prisma.emailOutbox.findFirst({ where: { recipient: invitee.email }, orderBy: { createdAt: 'desc' } });
    expect(mail).toMatchObject({ status: 'recorded', subject: 'Olive User invited you to Invite Team' });
    expect(mail!.body).toContain(invitation.token);

    const again = await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: invitee.email, role: 'viewer' }, as(owner));
    expect(again).toMatchObject({ status: 400, body: { code: 'INVITATION_EXISTS' } });

    const mine = await t.json('GET', '/api/v1/team-invitations', undefined, as(invitee));
    expect(mine.body.data).toEqual([expect.objectContaining({ id: invitation.id, team: { id: teamId, name: 'Invite Team', slug: 'invite-team' }, invitedByUser: { firstName: 'Olive', lastName: 'User' } })]);
    expect((await t.json('GET', '/api/v1/team-invitations', undefined, as(stranger))).body.data).toEqual([]);

    expect((await t.json('POST', `/api/v1/team-invitations/${invitation.token}/accept`, undefined, as(stranger))).body.code).toBe('INVITATION_NOT_FOUND');
    const accepted = await t.json('POST', `/api/v1/team-invitations/${invitation.token}/accept`, undefined, as(invitee));
    expect(accepted).toMatchObject({ status: 200, body: { data: { teamId, role: 'member' }, meta: { redirectTo: `/teams/${teamId}` } } });
    expect((await t.database.prisma.teamInvitation.findUnique({ where: { id: invitation.id } }))!.status).toBe('accepted');
    expect((await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: invitee.email, role: 'member' }, as(owner))).body.code).toBe('ALREADY_MEMBER');
    expect((await t.json('POST', `/api/v1/team-invitations/${invitation.token}/accept`, undefined, as(invitee))).status).toBe(404);
  });

  it('declines, re-invites after a decline, an expiry and a removal; cancels; refuses expired ones', async () => {
    const teamId = await createTeam(t, owner, 'reinvite-team');
    const invitee = await signUp(t);
    const invite = async () => (await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: invitee.email, role: 'member' }, as(owner))).body.data;

    const first = await invite();
    const declined = await t.json('POST', `/api/v1/team-invitations/${first.token}/decline`, undefined, as(invitee));
    expect(declined).toMatchObject({ status: 200, body: { data: { status: 'declined' } } });

    const second = await invite();
    expect(second.token).not.toBe(first.token);
    await t.database.prisma.teamInvitation.update({ where: { id: second.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await t.json('POST', `/api/v1/team-invitations/${second.token}/accept`, undefined, as(invitee))).body.code).toBe('INVITATION_EXPIRED');

    const third = await invite(); // the expired one is replaced
    const cancelled = await t.fetch(`/api/v1/team-invitations/${third.id}`, { method: 'DELETE', headers: as(owner) });
    expect(cancelled.status).toBe(204);
    expect((await t.json('POST', `/api/v1/team-invitations/${third.token}/accept`, undefined, as(invitee))).status).toBe(404);

    const fourth = await invite();
    await t.json('POST', `/api/v1/team-invitations/${fourth.token}/accept`, undefined, as(invitee));
    const members = await t.json('GET', `/api/v1/teams/${teamId}/members`, undefined, as(owner));
    const memberId = members.body.data.find((m: { userId: string }) => m.userId === invitee.id).id;
    await t.json('DELETE', `/api/v1/teams/${teamId}/members/${memberId}`, undefined, as(owner));
    const fifth = await invite();
    expect((await t.json('POST', `/api/v1/team-invitations/${fifth.token}/accept`, undefined, as(invitee))).status).toBe(200);
  });

  it('lets only the owner invite admins, never as owner', async () => {
    const teamId = await createTeam(t, owner, 'admin-invites');
    const admin = await signUp(t);
    await addMember(t, owner, teamId, admin, 'admin');
    expect((await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: 'a1@example.com', role: 'admin' }, as(admin))).status).toBe(403);
    expect((await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: 'a1@example.com', role: 'member' }, as(admin))).status).toBe(201);
    expect((await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: 'a2@example.com', role: 'owner' }, as(owner))).status).toBe(400);
  });

  it('signs up by invitation: the invited e-mail only, joins with the role, verified, signed in', async () => {
    const teamId = await createTeam(t, owner, 'signup-invite');
    const { token } = (await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: 'newbie@example.com', role: 'viewer' }, as(owner))).body.data;
    const body = { email: 'newbie@example.com', password: 'newbie password', firstName: 'New', lastName: 'Bie', inviteToken: token };
    expect((await t.json('POST', '/api/v1/auth/signup-with-invite', { ...body, email: 'other@example.com' })).status).toBe(400);
    const res = await t.json('POST', '/api/v1/auth/signup-with-invite', body);
    expect(res).toMatchObject({ status: 200, body: { success: true, data: { user: { email: 'newbie@example.com' }, teamId }, meta: { redirectTo: `/teams/${teamId}`, emailVerified: true } } });
    const cookie = String(res.headers.get('set-cookie')).split(';')[0]!;
    const session = await t.json('GET', '/api/auth/session', undefined, { cookie });
    expect(session.body.data.activeTeamId).toBe(teamId);
    const user = await t.database.prisma.user.findUnique({ where: { email: 'newbie@example.com' } });
    expect(user!.emailVerifiedAt).not.toBeNull();
    expect(await t.database.prisma.teamMember.findMany({ where: { userId: user!.id }, select: { teamId: true, role: true } })).toEqual([{ teamId, role: 'viewer' }]);
    expect((await t.json('POST', '/api/v1/auth/signup-with-invite', { ...body, email: 'newbie@example.com' })).body.code).toBe('INVITATION_NOT_FOUND');
  });
});

describe("a team's pending invitations", () => {
  let teamId: string;
  let admin: SignedUpUser;
  let member: SignedUpUser;
  let viewer: SignedUpUser;
  const list = (user: SignedUpUser, team = teamId) => t.json('GET', `/api/v1/teams/${team}/invitations`, undefined, as(user));
  const invite = async (by: SignedUpUser, email: string, role = 'member') => {
    const res = await t.json('POST', `/api/v1/teams/${teamId}/members`, { email, role }, as(by));
    expect(res.status).toBe(201);
    return res.body.data as { id: string; token: string; email: string };
  };
  const emails = async (user: SignedUpUser) => ((await list(user)).body.data as { email: string }[]).map((i) => i.email);
  beforeAll(async () => {
    teamId = await createTeam(t, owner, 'pending-invitations');
    admin = await signUp(t, { firstName: 'Ada', lastName: 'Min' });
    member = await signUp(t);
    viewer = await signUp(t);
    await addMember(t, owner, teamId, admin, 'admin');
    await addMember(t, owner, teamId, member, 'member');
    await addMember(t, owner, teamId, viewer, 'viewer');
  });

  it('lists pending, unexpired invitations newest first for the owner and an admin, never with a token', async () => {
    const first = await invite(owner, 'first-pending@example.com', 'viewer');
    const second = await invite(admin, 'second-pending@example.com');
    const expired = await invite(owner, 'expired-pending@example.com');
    await t.database.prisma.teamInvitation.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const item = (i: { id: string; email: string }, role: string, invitedByUser: { firstName: string; lastName: string }) => ({
      id: i.id,
      teamId,
      email: i.email,
      role,
      status: 'pending',
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      invitedByUser,
    });
    const expected = [item(second, 'member', { firstName: 'Ada', lastName: 'Min' }), item(first, 'viewer', { firstName: 'Olive', lastName: 'User' })];
    for (const user of [owner, admin]) {
      const res = await list(user);
      expect(res).toMatchObject({ status: 200, body: { success: true } });
      expect(res.body.data).toEqual(expected);
      const text = JSON.stringify(res.body);
      for (const secret of [first.token, second.token, expired.token]) expect(text).not.toContain(secret);
      expect(text).not.toContain('"token"');
    }

    const gql = await t.graphql('query($t: ID!) { teamPendingInvitations(teamId: $t) { id email role invitedByUser { firstName } } }', { t: teamId }, as(admin));
    expect(gql.body.data.teamPendingInvitations).toEqual([
      { id: second.id, email: second.email, role: 'member', invitedByUser: { firstName: 'Ada' } },
      { id: first.id, email: first.email, role: 'viewer', invitedByUser: { firstName: 'Olive' } },
    ]);
    // The type has no token to ask for.
    const asked = await t.graphql('query($t: ID!) { teamPendingInvitations(teamId: $t) { token } }', { t: teamId }, as(owner));
    expect(asked.body.data).toBeUndefined();
    expect(asked.body.errors[0].message).toMatch(/Cannot query field "token"/);

    // An API key needs teams:read, as the team's other reads do.
    const reader = await createKey(t, owner, { scopes: ['teams:read'] });
    expect((await t.json('GET', `/api/v1/teams/${teamId}/invitations`, undefined, { ...bearer(reader.key), 'x-team-id': teamId })).body.data).toHaveLength(2);
    const writer = await createKey(t, owner, { scopes: ['teams:write'] });
    expect((await t.json('GET', `/api/v1/teams/${teamId}/invitations`, undefined, { ...bearer(writer.key), 'x-team-id': teamId })).status).toBe(403);
  });

  it('refuses a member and a viewer with 403 FORBIDDEN, and is 404 to another team’s owner and a stranger', async () => {
    await invite(owner, 'refused-pending@example.com');
    for (const user of [member, viewer]) {
      expect(await list(user)).toMatchObject({ status: 403, body: { success: false, code: 'FORBIDDEN', error: "Only the team owner or an admin can see the team's invitations" } });
      const gql = await t.graphql('query($t: ID!) { teamPendingInvitations(teamId: $t) { id email } }', { t: teamId }, as(user));
      expect(gql.body.data).toBeNull();
      expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const otherOwner = await signUp(t);
    expect((await list(otherOwner, otherOwner.activeTeamId)).body.data).toEqual([]); // their own team: allowed, empty
    for (const outsider of [otherOwner, stranger]) {
      const res = await list(outsider);
      expect(res).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
      expect(JSON.stringify(res.body)).not.toContain('refused-pending@example.com');
      const gql = await t.graphql('query($t: ID!) { teamPendingInvitations(teamId: $t) { id } }', { t: teamId }, as(outsider));
      expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    expect((await list(owner, 'not-a-uuid')).status).toBe(404);
    expect((await t.json('GET', `/api/v1/teams/${teamId}/invitations`)).status).toBe(401);
  });

  it('no longer lists an invitation once accepted, declined or cancelled', async () => {
    const accepter = await signUp(t);
    const decliner = await signUp(t);
    const accepted = await invite(owner, accepter.email);
    const declined = await invite(owner, decliner.email);
    const cancelled = await invite(admin, 'cancelled-pending@example.com');
    const kept = await invite(admin, 'kept-pending@example.com');
    expect(await emails(owner)).toEqual(expect.arrayContaining([accepted.email, declined.email, cancelled.email, kept.email]));

    expect((await t.json('POST', `/api/v1/team-invitations/${accepted.token}/accept`, undefined, as(accepter))).status).toBe(200);
    expect((await t.json('POST', `/api/v1/team-invitations/${declined.token}/decline`, undefined, as(decliner))).status).toBe(200);
    expect((await t.fetch(`/api/v1/team-invitations/${cancelled.id}`, { method: 'DELETE', headers: as(member) })).status).toBe(403);
    expect((await t.fetch(`/api/v1/team-invitations/${cancelled.id}`, { method: 'DELETE', headers: as(admin) })).status).toBe(204);

    const left = await emails(admin);
    expect(left).toContain(kept.email);
    for (const gone of [accepted.email, declined.email, cancelled.email]) expect(left).not.toContain(gone);
  });

  it('shows no inviter once the inviter has left the team', async () => {
    const leaving = await signUp(t, { firstName: 'Leon', lastName: 'Gone' });
    const leavingId = await addMember(t, owner, teamId, leaving, 'admin');
    const invitation = await invite(leaving, 'orphan-pending@example.com');
    const before = ((await list(owner)).body.data as { id: string; invitedByUser: unknown }[]).find((i) => i.id === invitation.id);
    expect(before?.invitedByUser).toEqual({ firstName: 'Leon', lastName: 'Gone' });
    expect((await t.fetch(`/api/v1/teams/${teamId}/members/${leavingId}`, { method: 'DELETE', headers: as(owner) })).status).toBe(204);
    const after = ((await list(owner)).body.data as { id: string; invitedByUser: unknown }[]).find((i) => i.id === invitation.id);
    expect(after).toMatchObject({ email: 'orphan-pending@example.com', invitedByUser: null });
  });
});

describe('active team', () => {
  it('switches the session’s active team, only to a team of the caller', async () => {
    const teamId = await createTeam(t, owner, 'switch-to');
    const res = await t.json('POST', '/api/v1/teams/switch', { teamId }, as(owner));
    expect(res).toMatchObject({ status: 200, body: { data: { activeTeamId: teamId } } });
    expect((await t.json('GET', '/api/auth/session', undefined, as(owner))).body.data.activeTeamId).toBe(teamId);
    expect((await t.json('POST', '/api/v1/teams/switch', { teamId: stranger.activeTeamId }, as(owner))).status).toBe(403);
    await t.json('POST', '/api/v1/teams/switch', { teamId: owner.activeTeamId }, as(owner));
  });
});

describe('plans, subscription, usage, invoices', () => {
  it('puts new teams on the free plan and reports usage from real counts', async () => {
    const teamId = await createTeam(t, owner, 'plan-team');
    const sub = await t.json('GET', `/api/v1/teams/${teamId}/subscription`, undefined, as(owner));
    expect(sub).toMatchObject({ status: 200, body: { data: { teamId, status: 'active', plan: { slug: 'free', limits: { team_members: 20, api_keys: 25, tasks: 100 } } } } });
    const usage = await t.json('GET', `/api/v1/teams/${teamId}/usage/team_members`, undefined, as(owner));
    expect(usage.body.data).toEqual({ limitSlug: 'team_members', current: 1, max: 20, remaining: 19, allowed: true, percentUsed: 5 });
    expect((await t.json('GET', `/api/v1/teams/${teamId}/usage/rockets`, undefined, as(owner))).status).toBe(404);
    const invoices = await t.json('GET', `/api/v1/teams/${teamId}/invoices`, undefined, as(owner));
    expect(invoices.body).toEqual({ success: true, data: [], meta: { page: 1, limit: 20, total: 0, totalPages: 0, hasMore: false } });
    expect((await t.json('GET', `/api/v1/teams/${teamId}/subscription`, undefined, as(stranger))).status).toBe(404);
  });

  it('enforces team_members: invitations past the plan limit are refused', async () => {
    const small = await createTestApp({ PLANS_JSON: JSON.stringify({ free: { limits: { team_members: 2 } } }) });
    try {
      const boss = await signUp(small);
      const teamId = boss.activeTeamId;
      expect((await small.json('POST', `/api/v1/teams/${teamId}/members`, { email: 'one@example.com', role: 'member' }, as(boss))).status).toBe(201);
      const over = await small.json('POST', `/api/v1/teams/${teamId}/members`, { email: 'two@example.com', role: 'member' }, as(boss));
      expect(over).toMatchObject({ status: 403, body: { code: 'PLAN_LIMIT_REACHED', details: { limitSlug: 'team_members', max: 2 } } });
      const usage = await small.json('GET', `/api/v1/teams/${teamId}/usage/team_members`, undefined, as(boss));
      expect(usage.body.data).toMatchObject({ current: 1, max: 2, remaining: 1, percentUsed: 50 });
    } finally {
      await small.close();
    }
  });
});

describe('GraphQL and API keys', () => {
  it('serves the same operations in GraphQL', async () => {
    const created = await t.graphql('mutation { createTeam(input: { name: "Graph", slug: "graph-team" }) { id slug userRole memberCount } }', undefined, as(owner));
    expect(created.body.data.createTeam).toMatchObject({ slug: 'graph-team', userRole: 'owner', memberCount: 1 });
    const listed = await t.graphql('{ teams(search: "graph") { items { slug } total hasMore } }', undefined, as(owner));
    expect(listed.body.data.teams).toEqual({ items: [{ slug: 'graph-team' }], total: 1, hasMore: false });
  });

  it('checks key scopes in GraphQL, so REST inherits them: teams:write alone cannot read teams', async () => {
    const writer = await createKey(t, owner, { scopes: ['teams:write'] });
    const rest = await t.json('GET', '/api/v1/teams', undefined, bearer(writer.key));
    expect(rest).toMatchObject({ status: 403, body: { success: false, code: 'FORBIDDEN' } });
    const gql = await t.graphql('{ teams { total } }', undefined, bearer(writer.key));
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const reader = await createKey(t, owner, { scopes: ['teams:read'] });
    expect((await t.json('GET', '/api/v1/teams', undefined, bearer(reader.key))).status).toBe(200);
    expect((await t.json('POST', '/api/v1/teams', { name: 'By key', slug: 'by-key' }, bearer(reader.key))).status).toBe(403);
  });
});

describe('row-level security on team tables', () => {
  it('shows a user, with no WHERE clause, only their teams’ rows', async () => {
    const teamId = await createTeam(t, stranger, 'rls-team');
    await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: 'rls@example.com', role: 'member' }, as(stranger));
    const db = new RequestDb(t.database, owner.id);
    try {
      const tx = await db.tx();
      const myTeams = new Set((await tx.teamMember.findMany({ where: { userId: owner.id } })).map((m) => m.teamId));
      expect((await tx.team.findMany()).every((team) => myTeams.has(team.id))).toBe(true);
      expect((await tx.teamMember.findMany()).every((m) => myTeams.has(m.teamId))).toBe(true);
      expect((await tx.teamInvitation.findMany()).every((i) => myTeams.has(i.teamId))).toBe(true);
      expect((await tx.subscription.findMany()).every((s) => myTeams.has(s.teamId))).toBe(true);
      expect(await tx.teamInvitation.count({ where: { teamId } })).toBe(0);
      await expect(tx.emailOutbox.findMany()).rejects.toThrow();
    } finally {
      await db.finish(false);
    }
  });
});

describe('GraphQL: every team operation', () => {
  it('invites, lists, accepts, changes roles, switches, reads plan facts, cancels and removes through GraphQL', async () => {
    const gql = async (query: string, variables: Record<string, unknown>, user: SignedUpUser) => {
      const res = await t.graphql(query, variables, as(user));
      expect(res.body.errors).toBeUndefined();
      return res.body.data;
    };
    const teamId = (await gql('mutation($i: CreateTeamInput!) { createTeam(input: $i) { id } }', { i: { name: 'GQL Team', slug: 'gql-team' } }, owner)).createTeam.id;
    const invitee = await signUp(t);
    const invited = await gql(
      'mutation($t: ID!, $i: InviteTeamMemberInput!) { inviteTeamMember(teamId: $t, input: $i) { invitation { id token role status } emailSent } }',
      { t: teamId, i: { email: invitee.email, role: 'viewer' } },
      owner,
    );
    expect(invited.inviteTeamMember).toMatchObject({ invitation: { role: 'viewer', status: 'pending' }, emailSent: false });
    const mine = await gql('{ teamInvitations { token team { slug } invitedByUser { firstName } } }', {}, invitee);
    expect(mine.teamInvitations).toEqual([{ token: invited.inviteTeamMember.invitation.token, team: { slug: 'gql-team' }, invitedByUser: { firstName: 'Olive' } }]);
    const accepted = await gql('mutation($k: String!) { acceptTeamInvitation(token: $k) { teamId role } }', { k: invited.inviteTeamMember.invitation.token }, invitee);
    expect(accepted.acceptTeamInvitation).toEqual({ teamId, role: 'viewer' });

    const members = await gql('query($t: ID!) { teamMembers(teamId: $t, role: "viewer") { items { id userId user { email } } total } }', { t: teamId }, owner);
    expect(members.teamMembers).toMatchObject({ total: 1, items: [{ userId: invitee.id, user: { email: invitee.email } }] });
    const memberId = members.teamMembers.items[0].id;
    const changed = await gql('mutation($t: ID!, $m: ID!) { changeTeamMemberRole(teamId: $t, memberId: $m, role: "member") { role } }', { t: teamId, m: memberId }, owner);
    expect(changed.changeTeamMemberRole.role).toBe('member');

    expect((await gql('mutation($t: ID!) { switchTeam(teamId: $t) { activeTeamId } }', { t: teamId }, invitee)).switchTeam.activeTeamId).toBe(teamId);
    expect((await gql('{ me { activeTeamId } }', {}, invitee)).me.activeTeamId).toBe(teamId);

    const facts = await gql(
      'query($t: ID!) { team(id: $t) { userRole memberCount } teamSubscription(teamId: $t) { plan { slug limits { slug max } } } teamUsage(teamId: $t, limitSlug: "team_members") { current max } teamInvoices(teamId: $t) { items { id } total } }',
      { t: teamId },
      invitee,
    );
    expect(facts).toMatchObject({ team: { userRole: 'member', memberCount: 2 }, teamSubscription: { plan: { slug: 'free' } }, teamUsage: { current: 2, max: 20 }, teamInvoices: { items: [], total: 0 } });

    const updated = await gql('mutation($t: ID!) { updateTeam(id: $t, input: { description: "Graph" }) { description } }', { t: teamId }, owner);
    expect(updated.updateTeam.description).toBe('Graph');
    const second = await gql('mutation($t: ID!) { inviteTeamMember(teamId: $t, input: { email: "later@example.com", role: "member" }) { invitation { id token } } }', { t: teamId }, owner);
    expect((await gql('mutation($i: ID!) { cancelTeamInvitation(id: $i) }', { i: second.inviteTeamMember.invitation.id }, owner)).cancelTeamInvitation).toBe(true);
    const third = await gql('mutation($t: ID!) { inviteTeamMember(teamId: $t, input: { email: "declines@example.com", role: "member" }) { invitation { token } } }', { t: teamId }, owner);
    const decliner = await signUp(t, { email: 'declines@example.com' });
    expect((await gql('mutation($k: String!) { declineTeamInvitation(token: $k) { status } }', { k: third.inviteTeamMember.invitation.token }, decliner)).declineTeamInvitation.status).toBe('declined');

    const fourth = await gql('mutation($t: ID!) { inviteTeamMember(teamId: $t, input: { email: "joins@example.com", role: "member" }) { invitation { token } } }', { t: teamId }, owner);
    const joined = await t.graphql(
      'mutation($i: SignupWithInviteInput!) { signupWithInvite(input: $i) { user { email } teamId emailVerified } }',
      { i: { email: 'joins@example.com', password: 'joins password', firstName: 'J', lastName: 'O', inviteToken: fourth.inviteTeamMember.invitation.token } },
    );
    expect(joined.body.data.signupWithInvite).toEqual({ user: { email: 'joins@example.com' }, teamId, emailVerified: true });
    expect(joined.headers.get('set-cookie')).toMatch(/^sid=/);

    expect((await gql('mutation($t: ID!, $m: ID!) { removeTeamMember(teamId: $t, memberId: $m) }', { t: teamId, m: memberId }, owner)).removeTeamMember).toBe(true);
    expect((await gql('mutation($t: ID!) { deleteTeam(id: $t) }', { t: teamId }, owner)).deleteTeam).toBe(true);
  });
});
