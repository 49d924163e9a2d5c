// Scheduled actions and tenants (issue 14): developers reach only the actions of teams they belong to
// and those with no team, only superadmins cross teams, the developer endpoints need
// `scheduled-actions:*` scopes, and an action created through the API runs with its creator's
// authority, checked again when it runs (content:publish through RLS as the creator; webhook:send
// only for a team the creator manages). Over HTTP, on either database (TEST_DATABASE_URL).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKey } from '../../testkit/api-keys.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { cronSecret, queueScope, runCron, storedAction, userWithRole } from '../../testkit/scheduled-actions.js';
import { addMember } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { createEndpoint, startReceiver, type Receiver } from '../../testkit/webhooks.js';
import { testClock } from '../../testkit/clock.js';
import { scheduleAction } from './service.js';

const base = '/api/v1/devtools/scheduled-actions';
const devScopes = ['scheduled-actions:*', 'posts:write', 'webhooks:write'];
let t: TestApp;
let receiver: Receiver;
let owner: SignedUpUser; // a member (global role) who owns team V
let teamV: string;
let outsider: Awaited<ReturnType<typeof userWithRole>>; // a developer in no team but their own
let narrowKey: string; // the outsider's key holding only tasks:read
let superadmin: Awaited<ReturnType<typeof userWithRole>>;
let insider: Awaited<ReturnType<typeof userWithRole>>; // a developer, member of V
let insiderMemberId: string;
let viewer: Awaited<ReturnType<typeof userWithRole>>; // a developer, viewer of V
let platformActionId: string; // V's own event, holding a customer's data

const key = (user: { key: { key: string } }) => ({ 'x-api-key': user.key.key });
const create = (body: Record<string, unknown>, headers: Record<string, string>) => t.json('POST', base, body, headers);

/** Drops the events the platform scheduled for changes the test made (V has an endpoint): the cron batches count only the test's actions. */
const dropChangeEvents = () => t.database.prisma.scheduledAction.deleteMany({ where: { createdBy: null, id: { not: platformActionId } } });

async function draftPost(slug: string): Promise<string> {
  const res = await t.json('POST', '/api/v1/posts', { title: `Draft ${slug}`, slug, status: 'draft' }, { cookie: owner.cookie });
  expect(res.status).toBe(201);
  await dropChangeEvents();
  return res.body.data.id;
}
const postOf = (id: string) => t.database.prisma.post.findUniqueOrThrow({ where: { id } });
const setRole = async (role: string) =>
  expect((await t.json('PATCH', `/api/v1/teams/${teamV}/members/${insiderMemberId}`, { role }, { cookie: owner.cookie })).status).toBe(200);

beforeAll(async () => {
  t = await createTestApp({ CRON_SECRET: cronSecret, WEBHOOKS_ALLOW_PRIVATE: 'true', RATE_LIMIT_ENABLED: 'false' });
  receiver = await startReceiver();
  owner = await signUp(t);
  teamV = owner.activeTeamId;
  await createEndpoint(t, owner, { url: receiver.url('/victim') });
  outsider = await userWithRole(t, 'developer', devScopes);
  narrowKey = (await createKey(t, outsider, { name: 'narrow', scopes: ['tasks:read'] })).key;
  superadmin = await userWithRole(t, 'superadmin', ['*']);
  insider = await userWithRole(t, 'developer', devScopes);
  insiderMemberId = await addMember(t, owner, teamV, insider, 'member');
  viewer = await userWithRole(t, 'developer', devScopes);
  await addMember(t, owner, teamV, viewer, 'viewer');
}, 120_000);
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(async () => {
  await t.database.prisma.scheduledAction.deleteMany();
  await setRole('member');
  receiver.received.length = 0;
  // The platform's own event for V, due far later: its payload carries a customer's data.
  const scope = queueScope(t, testClock());
  const event = { eventType: 'customers:created', entityType: 'customers', entityId: 'c-1', data: { name: 'Secret Customer Ltd' } };
  platformActionId = await scheduleAction(scope, 'webhook:send', event, { teamId: teamV, scheduledAt: new Date('2100-01-01T00:00:00Z') });
});

describe('the developer endpoints need scheduled-actions scopes', () => {
  it('a developer key holding only tasks:read is refused everything (403), and nothing is stored or changed', async () => {
    const headers = { 'x-api-key': narrowKey };
    const calls: [string, string, unknown?][] = [
      ['GET', base],
      ['GET', `${base}/${platformActionId}`],
      ['POST', base, { actionType: 'social:refresh-tokens', payload: {} }],
      ['POST', `${base}/${platformActionId}/retry`],
      ['DELETE', `${base}/${platformActionId}`],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.json(method, path, body, headers);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN', error: expect.stringMatching(/scheduled-actions:(read|write|delete) scope required/) });
    }
    expect(await t.database.prisma.scheduledAction.count()).toBe(1);
    expect(await storedAction(t, platformActionId)).toMatchObject({ status: 'pending' });
  });
});

describe('developers reach their teams’ actions and those with no team; superadmins every one', () => {
  it('an outsider neither lists, gets, retries nor cancels another team’s action; its payload never reaches them', async () => {
    const mine = (await create({ actionType: 'social:refresh-tokens', payload: {} }, key(outsider))).body.data.id;
    const list = await t.json('GET', `${base}?limit=100`, undefined, key(outsider));
    expect(list.status).toBe(200);
    expect(list.body.data.actions.map((a: { id: string }) => a.id)).toEqual([mine]);
    expect(list.body.data.pagination.total).toBe(1);
    expect(JSON.stringify(list.body)).not.toContain('Secret Customer');
    for (const [method, path] of [['GET', `${base}/${platformActionId}`], ['POST', `${base}/${platformActionId}/retry`], ['DELETE', `${base}/${platformActionId}`]] as const) {
      const res = await t.json(method, path, undefined, key(outsider));
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND', error: 'Scheduled action not found' });
    }
    const graphql = await t.graphql('{ scheduledActions(limit: 100) { actions { id payload } } }', undefined, key(outsider));
    expect(graphql.body.data.scheduledActions.actions).toEqual([{ id: mine, payload: {} }]);
    expect(await storedAction(t, platformActionId)).toMatchObject({ status: 'pending', errorMessage: null });
  });

  it('members of the team (viewers too) see it; a viewer cannot cancel or retry it (403); a superadmin reaches it', async () => {
    for (const who of [insider, viewer, superadmin]) {
      const list = await t.json('GET', `${base}?limit=100`, undefined, key(who));
      expect(list.body.data.actions.map((a: { id: string }) => a.id)).toContain(platformActionId);
      expect((await t.json('GET', `${base}/${platformActionId}`, undefined, key(who))).body.data).toMatchObject({ id: platformActionId, teamId: teamV, createdBy: null });
    }
    const byViewer = await t.json('DELETE', `${base}/${platformActionId}`, undefined, key(viewer));
    expect(byViewer.status).toBe(403);
    expect(byViewer.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    expect(await storedAction(t, platformActionId)).toMatchObject({ status: 'pending' });
    expect((await t.json('DELETE', `${base}/${platformActionId}`, undefined, key(superadmin))).status).toBe(200);
    expect(await storedAction(t, platformActionId)).toMatchObject({ status: 'failed', errorMessage: 'Cancelled' });
  });
});

describe('creating an action for a team', () => {
  it('needs a member who may write the team: an outsider and a viewer get 403 and nothing is stored', async () => {
    const post = await draftPost('create-refused');
    const bodies = [
      { actionType: 'content:publish', payload: { entityType: 'posts', entityId: post }, teamId: teamV },
      { actionType: 'webhook:send', payload: { eventType: 'posts:updated', entityType: 'posts', entityId: post, data: { forged: true } }, teamId: teamV },
      { actionType: 'social:refresh-tokens', payload: {}, teamId: teamV },
    ];
    for (const who of [outsider, viewer]) {
      for (const body of bodies) {
        const res = await create(body, key(who));
        expect(res.status, `${body.actionType}`).toBe(403);
        expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
      }
    }
    expect(await t.database.prisma.scheduledAction.count()).toBe(1);
  });

  it('webhook:send needs a team the creator manages (owner or admin) and webhooks:write: a member of the team is refused, no event is sent', async () => {
    const event = { eventType: 'posts:updated', entityType: 'posts', entityId: 'x', data: { forged: true } };
    // Without a teamId: the outsider's own team (the contract makes teamId optional), never V.
    const noTeam = await create({ actionType: 'webhook:send', payload: event }, key(outsider));
    expect(noTeam.status).toBe(201);
    expect(await storedAction(t, noTeam.body.data.id)).toMatchObject({ teamId: outsider.activeTeamId, createdBy: outsider.id });
    const byMember = await create({ actionType: 'webhook:send', payload: event, teamId: teamV }, key(insider));
    expect(byMember.status).toBe(403);
    await runCron(t);
    expect(receiver.on('/victim')).toHaveLength(0);
  });

  it('webhook:send without a teamId is for the creator’s active team, with the same checks: a member is refused, an admin’s event is delivered', async () => {
    const event = { eventType: 'posts:updated', entityType: 'posts', entityId: 'active', data: { v: 1 } };
    const inV = { ...key(insider), 'x-team-id': teamV };
    const byMember = await create({ actionType: 'webhook:send', payload: event }, inV);
    expect(byMember.status).toBe(403);
    expect(byMember.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    await setRole('admin');
    const byAdmin = await create({ actionType: 'webhook:send', payload: event }, inV);
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(201);
    expect(byAdmin.body.data).toMatchObject({ actionType: 'webhook:send', status: 'pending' });
    expect(await storedAction(t, byAdmin.body.data.id)).toMatchObject({ teamId: teamV, createdBy: insider.id });
    await runCron(t);
    expect(await storedAction(t, byAdmin.body.data.id)).toMatchObject({ status: 'completed' });
    expect(receiver.on('/victim').map((r) => JSON.parse(r.body).data)).toEqual([{ entityType: 'posts', entityId: 'active', record: { v: 1 } }]);
  });

  it('webhook:send without a teamId by a creator in no team is accepted and sends to no endpoint', async () => {
    const loner = await signUp(t);
    await t.database.prisma.user.update({ where: { id: loner.id }, data: { role: 'developer' } });
    await t.database.prisma.teamMember.deleteMany({ where: { userId: loner.id } });
    const lonerKey = (await createKey(t, loner, { scopes: devScopes })).key;
    const res = await create({ actionType: 'webhook:send', payload: { eventType: 'posts:updated', entityType: 'posts', entityId: 'none', data: {} } }, { 'x-api-key': lonerKey });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await storedAction(t, res.body.data.id)).toMatchObject({ teamId: null, createdBy: loner.id });
    await runCron(t);
    expect(await storedAction(t, res.body.data.id)).toMatchObject({ status: 'completed', result: { delivered: [], message: expect.stringMatching(/no endpoint/) } });
    expect(receiver.received).toHaveLength(0);
  });

  it('content:publish needs the entity’s update scope on the key', async () => {
    const limited = (await createKey(t, insider, { name: 'sa only', scopes: ['scheduled-actions:*'] })).key;
    const res = await create({ actionType: 'content:publish', payload: { entityType: 'posts', entityId: await draftPost('no-scope') }, teamId: teamV }, { 'x-api-key': limited });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/posts:write scope required/);
  });

  it('never merges into the platform’s own action (deduplication is per creator)', async () => {
    await t.database.prisma.teamMember.updateMany({ where: { teamId: teamV, userId: insider.id }, data: { role: 'admin' } });
    const forged = { eventType: 'customers:created', entityType: 'customers', entityId: 'c-1', data: { name: 'Forged' } };
    const res = await create({ actionType: 'webhook:send', payload: forged, teamId: teamV, scheduledAt: '2100-01-01T00:00:01Z' }, key(insider));
    expect(res.status).toBe(201);
    expect(res.body.data.id).not.toBe(platformActionId);
    expect((await storedAction(t, platformActionId)).payload).toMatchObject({ data: { name: 'Secret Customer Ltd' } });
    expect(await storedAction(t, res.body.data.id)).toMatchObject({ createdBy: insider.id, teamId: teamV });
  });
});

describe('an action created through the API runs with its creator’s authority', () => {
  it('an outsider cannot publish another team’s draft (with no teamId, or their own team’s: the run fails); a superadmin can', async () => {
    const post = await draftPost('outsider-target');
    const ids: string[] = [];
    for (const extra of [{}, { teamId: outsider.activeTeamId }]) {
      const res = await create({ actionType: 'content:publish', payload: { entityType: 'posts', contentId: post }, maxRetries: 1, ...extra }, key(outsider));
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    const report = await runCron(t);
    expect(report.body).toMatchObject({ processed: 2, succeeded: 0, failed: 2 });
    for (const id of ids) {
      expect(await storedAction(t, id)).toMatchObject({ status: 'failed', createdBy: outsider.id, errorMessage: expect.stringMatching(/not found \(among the records the action's creator can see\)/) });
    }
    expect(await postOf(post)).toMatchObject({ status: 'draft', publishedAt: null });

    const res = await create({ actionType: 'content:publish', payload: { entityType: 'posts', entityId: post }, teamId: teamV }, key(superadmin));
    expect(res.status).toBe(201);
    expect((await runCron(t)).body).toMatchObject({ processed: 1, succeeded: 1 });
    expect(await postOf(post)).toMatchObject({ status: 'published' });
    expect(await storedAction(t, res.body.data.id)).toMatchObject({ status: 'completed', createdBy: superadmin.id });
  });

  it('checked when it runs: a member who became a viewer meanwhile publishes nothing; restored, the retry publishes', async () => {
    const post = await draftPost('demoted-target');
    const res = await create({ actionType: 'content:publish', payload: { entityType: 'posts', entityId: post }, teamId: teamV, maxRetries: 1 }, key(insider));
    expect(res.status).toBe(201);
    await setRole('viewer');
    expect((await runCron(t)).body).toMatchObject({ processed: 1, failed: 1 });
    expect(await storedAction(t, res.body.data.id)).toMatchObject({ status: 'failed', errorMessage: expect.stringMatching(/may no longer write team/) });
    expect(await postOf(post)).toMatchObject({ status: 'draft' });

    await setRole('member');
    expect((await t.json('POST', `${base}/${res.body.data.id}/retry`, undefined, key(insider))).status).toBe(200);
    expect((await runCron(t)).body).toMatchObject({ processed: 1, succeeded: 1 });
    expect(await postOf(post)).toMatchObject({ status: 'published' });
  });

  it('a creator disabled by an operator runs nothing as them; enabled again, the retry publishes', async () => {
    const post = await draftPost('disabled-creator-target');
    const res = await create({ actionType: 'content:publish', payload: { entityType: 'posts', entityId: post }, teamId: teamV, maxRetries: 1 }, key(insider));
    expect(res.status).toBe(201);
    const setDisabled = (disabledAt: Date | null) => t.database.prisma.user.update({ where: { id: insider.id }, data: { disabledAt } });
    await setDisabled(new Date());
    try {
      expect((await runCron(t)).body).toMatchObject({ processed: 1, failed: 1 });
      expect(await storedAction(t, res.body.data.id)).toMatchObject({ status: 'failed', errorMessage: expect.stringMatching(/is disabled/) });
      expect(await postOf(post)).toMatchObject({ status: 'draft' });
    } finally {
      await setDisabled(null);
    }
    expect((await t.json('POST', `${base}/${res.body.data.id}/retry`, undefined, key(insider))).status).toBe(200);
    expect((await runCron(t)).body).toMatchObject({ processed: 1, succeeded: 1 });
    expect(await postOf(post)).toMatchObject({ status: 'published' });
  });

  it('a published post of another team is visible to the creator, still not theirs to change', async () => {
    const post = await draftPost('public-target');
    await t.json('PATCH', `/api/v1/posts/${post}`, { status: 'published' }, { cookie: owner.cookie });
    await dropChangeEvents();
    const before = await postOf(post);
    const res = await create({ actionType: 'content:publish', payload: { entityType: 'posts', entityId: post }, maxRetries: 1 }, key(outsider));
    await runCron(t);
    expect(await storedAction(t, res.body.data.id)).toMatchObject({ status: 'failed', errorMessage: expect.stringMatching(/^Not permitted: .* cannot write the team/) });
    expect((await postOf(post)).updatedAt).toEqual(before.updatedAt);
  });

  it('webhook:send: an admin who is no longer one sends nothing', async () => {
    await t.database.prisma.teamMember.updateMany({ where: { teamId: teamV, userId: insider.id }, data: { role: 'admin' } });
    const event = { eventType: 'posts:updated', entityType: 'posts', entityId: 'w-1', data: { v: 1 } };
    const res = await create({ actionType: 'webhook:send', payload: event, teamId: teamV, maxRetries: 1 }, key(insider));
    expect(res.status).toBe(201);
    await setRole('member');
    await runCron(t);
    expect(await storedAction(t, res.body.data.id)).toMatchObject({ status: 'failed', errorMessage: expect.stringMatching(/no longer manages team/) });
    expect(receiver.on('/victim')).toHaveLength(0);
  });

  it('the next occurrence of a recurring action keeps its creator', async () => {
    const res = await create({ actionType: 'social:refresh-tokens', payload: {}, teamId: teamV, recurringInterval: 'daily' }, key(insider));
    await runCron(t);
    const done = await storedAction(t, res.body.data.id);
    expect(done).toMatchObject({ status: 'completed', nextActionId: expect.any(String) });
    expect(await storedAction(t, done.nextActionId!)).toMatchObject({ status: 'pending', createdBy: insider.id, teamId: teamV });
  });
});
