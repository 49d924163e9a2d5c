// Seed builders for teams: create teams, invite and accept through the front door.
import type { SignedUpUser } from './accounts.js';
import type { TestApp } from './test-app.js';

export async function createTeam(t: TestApp, owner: SignedUpUser, slug: string, name = `Team ${slug}`): Promise<string> {
  const res = await t.json('POST', '/api/v1/teams', { name, slug }, { cookie: owner.cookie });
  if (res.status !== 201) throw new Error(`team creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

/** Invites `user` into `teamId` as `role` (by `by`) and accepts as `user`; returns the member id. */
export async function addMember(t: TestApp, by: SignedUpUser, teamId: string, user: SignedUpUser, role = 'member'): Promise<string> {
  const invited = await t.json('POST', `/api/v1/teams/${teamId}/members`, { email: user.email, role }, { cookie: by.cookie });
  if (invited.status !== 201) throw new Error(`invite failed: ${invited.status} ${JSON.stringify(invited.body)}`);
  const accepted = await t.json('POST', `/api/v1/team-invitations/${invited.body.data.token}/accept`, undefined, { cookie: user.cookie });
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  const members = await t.json('GET', `/api/v1/teams/${teamId}/members?limit=100`, undefined, { cookie: by.cookie });
  return members.body.data.find((m: { userId: string }) => m.userId === user.id).id;
}

/** addMember, then `user` switches their session to `teamId`: they act in it from the next request on. */
export async function joinTeam(t: TestApp, by: SignedUpUser, teamId: string, user: SignedUpUser, role = 'member'): Promise<string> {
  const memberId = await addMember(t, by, teamId, user, role);
  const switched = await t.json('POST', '/api/v1/teams/switch', { teamId }, { cookie: user.cookie });
  if (switched.status !== 200) throw new Error(`switch failed: ${switched.status} ${JSON.stringify(switched.body)}`);
  return memberId;
}
