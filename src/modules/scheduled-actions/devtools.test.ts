// The developer endpoints (/api/v1/devtools/scheduled-actions) and their GraphQL twins: who may call
// them (developer or superadmin keys; others 403, nobody 401), list/get/create/retry/cancel, and
// their 400s and 404s.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../../testkit/api-keys.js';
import { testClock } from '../../testkit/clock.js';
import { cronSecret, runCron, storedAction, userWithRole } from '../../testkit/scheduled-actions.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

const clock = testClock('2030-01-01T10:00:00.000Z');
const base = '/api/v1/devtools/scheduled-actions';
let t: TestApp;
let developer: Awaited<ReturnType<typeof userWithRole>>;
let superadmin: Awaited<ReturnType<typeof userWithRole>>;
let member: Awaited<ReturnType<typeof userWithRole>>;

beforeAll(async () => {
  t = await createTestApp({ CRON_SECRET: cronSecret }, undefined, { now: clock.now });
  developer = await userWithRole(t, 'developer', ['scheduled-actions:*', 'posts:write', 'webhooks:write']);
  superadmin = await userWithRole(t, 'superadmin', ['*']);
  member = await userWithRole(t, 'member');
});
afterAll(() => t.close());
beforeEach(async () => {
  clock.set('2030-01-01T10:00:00.000Z');
  await t.database.prisma.scheduledAction.deleteMany();
});

const dev = () => ({ 'x-api-key': developer.key.key });
const create = (body: Record<string, unknown>, headers: Record<string, string> = dev()) => t.json('POST', base, body, headers);
const refresh = { actionType: 'social:refresh-tokens', payload: {} };

describe('who may call', () => {
  it('no key → 401; a member’s key or session → 403 "Developer role required"; developer and superadmin keys → 200', async () => {
    const paths: [string, string, unknown?][] = [['GET', base], ['GET', `${base}/00000000-0000-4000-8000-000000000000`], ['POST', base, refresh], ['POST', `${base}/00000000-0000-4000-8000-000000000000/retry`], ['DELETE', `${base}/00000000-0000-4000-8000-000000000000`]];
    for (const [method, path, body] of paths) {
      const none = await t.json(method, path, body);
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ success: false, error: 'Unauthorized' });
      const byMember = await t.json(method, path, body, { 'x-api-key': member.key.key });
      expect(byMember.status).toBe(403);
      expect(byMember.body).toMatchObject({ success: false, error: 'Developer role required', code: 'FORBIDDEN' });
      expect((await t.json(method, path, body, { cookie: member.cookie })).status).toBe(403);
    }
    expect((await t.json('GET', base, undefined, { 'x-api-key': developer.key.key })).status).toBe(200);
    expect((await t.json('GET', base, undefined, bearer(superadmin.key.key))).status).toBe(200);
    expect(await t.database.prisma.scheduledAction.count()).toBe(0);
  });

  it('RLS reads the owner’s current role: a demoted developer’s still-cached key sees no action, and 403 once it is verified again', async () => {
    const { id } = (await create(refresh)).body.data;
    const demoted = await userWithRole(t, 'developer');
    expect((await t.json('GET', base, undefined, { 'x-api-key': demoted.key.key })).body.data.pagination.total).toBe(1);
    await t.database.prisma.user.update({ where: { id: demoted.id }, data: { role: 'member' } }); // behind the key cache's back
    const cached = await t.json('GET', base, undefined, { 'x-api-key': demoted.key.key });
    expect(cached.body.data).toMatchObject({ actions: [], pagination: { total: 0 } });
    expect((await t.json('GET', `${base}/${id}`, undefined, { 'x-api-key': demoted.key.key })).status).toBe(404);
    const fresh = await createTestApp({}, t); // another instance: no cached verification
    try {
      expect((await fresh.json('GET', base, undefined, { 'x-api-key': demoted.key.key })).status).toBe(403);
    } finally {
      await fresh.close();
    }
  });
});

describe('create', () => {
  it('201 {id, actionType, status}; the stored action has the given options and defaults', async () => {
    const res = await create({ actionType: 'content:publish', payload: { entityType: 'posts', entityId: 'p1', contentId: 'p1' }, teamId: developer.activeTeamId, scheduledAt: '2030-01-02T00:00:00Z', recurringInterval: 'daily', lockGroup: 'publishing', recurrenceType: 'rolling', maxRetries: 5 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true, data: { id: expect.any(String), actionType: 'content:publish', status: 'pending' } });
    expect(await storedAction(t, res.body.data.id)).toMatchObject({ teamId: developer.activeTeamId, scheduledAt: new Date('2030-01-02T00:00:00Z'), recurringInterval: 'daily', lockGroup: 'publishing', recurrenceType: 'rolling', maxRetries: 5, attempts: 0 });
    const plain = await create(refresh);
    expect(await storedAction(t, plain.body.data.id)).toMatchObject({ scheduledAt: clock.now(), maxRetries: 3, recurrenceType: 'fixed', teamId: null });
  });

  it.each([
    [{ actionType: 'nope', payload: {} }, /Unknown action type "nope"/],
    [{ actionType: 'webhook:send', payload: { eventType: 'x' } }, /^Invalid payload: entityType/],
    [{ actionType: 'social:refresh-tokens', payload: { extra: 1 } }, /^Invalid payload/],
    [{ actionType: 'content:publish', payload: { entityType: 'posts' } }, /^Invalid payload: entityId/],
    [{ actionType: 'social:refresh-tokens' }, /payload/],
    [{ actionType: 'social:refresh-tokens', payload: {}, recurringInterval: 'monthly' }, /recurringInterval/],
    [{ actionType: 'social:refresh-tokens', payload: {}, recurrenceType: 'sometimes' }, /recurrenceType/],
    [{ actionType: 'social:refresh-tokens', payload: {}, scheduledAt: 'tomorrow' }, /scheduledAt/],
    [{ actionType: 'social:refresh-tokens', payload: {}, maxRetries: 0 }, /maxRetries/],
    [{ actionType: 'social:refresh-tokens', payload: {}, other: true }, /other/],
  ])('refuses %j with a 400 naming the problem', async (body, message) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.error).toMatch(message);
    expect(await t.database.prisma.scheduledAction.count()).toBe(0);
  });

  it('a teamId that names no team: 400 for a superadmin, 403 for a developer (who may name only their own teams)', async () => {
    const body = { ...refresh, teamId: '00000000-0000-4000-8000-000000000000' };
    const bySuperadmin = await create(body, bearer(superadmin.key.key));
    expect(bySuperadmin.status).toBe(400);
    expect(bySuperadmin.body.error).toMatch(/teamId/);
    expect((await create(body)).status).toBe(403);
    expect(await t.database.prisma.scheduledAction.count()).toBe(0);
  });

  it('deduplicates like scheduleAction: the same entity within 5 s is the same action', async () => {
    const payload = (v: number) => ({ eventType: 'posts:updated', entityType: 'posts', entityId: 'p9', data: { v } });
    const teamId = developer.activeTeamId;
    const a = await create({ actionType: 'webhook:send', payload: payload(1), teamId });
    const b = await create({ actionType: 'webhook:send', payload: payload(2), teamId, scheduledAt: '2030-01-01T10:00:04Z' });
    expect(b.body.data.id).toBe(a.body.data.id);
    expect((await storedAction(t, a.body.data.id)).payload).toEqual(payload(2));
  });
});

describe('list and get', () => {
  it('pages, filters by status and action_type, and reports the registered action types', async () => {
    for (let i = 0; i < 3; i++) await create({ ...refresh, scheduledAt: `2029-12-2${i + 1}T12:00:00Z` });
    await create({ actionType: 'webhook:send', payload: { eventType: 'x', entityType: 'posts', entityId: 'p', data: {} }, teamId: developer.activeTeamId });
    const all = await t.json('GET', `${base}?limit=2`, undefined, dev());
    expect(all.status).toBe(200);
    expect(all.body.data.pagination).toEqual({ total: 4, page: 1, limit: 2, totalPages: 2 });
    expect(all.body.data.meta.registeredActionTypes).toEqual(expect.arrayContaining(['content:publish', 'social:refresh-tokens', 'webhook:send']));
    expect(all.body.data.actions.map((a: { scheduledAt: string }) => a.scheduledAt)).toEqual(['2030-01-01T10:00:00.000Z', '2029-12-23T12:00:00.000Z']);
    expect(all.body.data.actions[1]).toMatchObject({ actionType: 'social:refresh-tokens', status: 'pending', payload: {}, attempts: 0, maxRetries: 3, errorMessage: null, startedAt: null });

    const page2 = await t.json('GET', `${base}?limit=2&page=2`, undefined, dev());
    expect(page2.body.data.actions).toHaveLength(2);
    const hooks = await t.json('GET', `${base}?action_type=webhook:send`, undefined, dev());
    expect(hooks.body.data.actions.map((a: { actionType: string }) => a.actionType)).toEqual(['webhook:send']);
    await runCron(t);
    const completed = await t.json('GET', `${base}?status=completed`, undefined, dev());
    expect(completed.body.data.pagination.total).toBe(4); // the event too: its team has no endpoint
    expect(completed.body.data.actions[1]).toMatchObject({ status: 'completed', result: { refreshed: 0 } });
  });

  it.each(['status=done', 'limit=101', 'limit=0', 'page=0', 'sort=x'])('refuses ?%s with a 400', async (query) => {
    const res = await t.json('GET', `${base}?${query}`, undefined, dev());
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
  });

  it('gets one action; a missing or malformed id is 404', async () => {
    const { id } = (await create(refresh)).body.data;
    const one = await t.json('GET', `${base}/${id}`, undefined, dev());
    expect(one.body).toMatchObject({ success: true, data: { id, actionType: 'social:refresh-tokens', status: 'pending' } });
    for (const missing of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const res = await t.json('GET', `${base}/${missing}`, undefined, dev());
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: 'Scheduled action not found', code: 'NOT_FOUND' });
    }
  });
});

describe('retry and cancel', () => {
  it('retry: failed → pending with attempts reset; any other status 400; missing 404', async () => {
    // A post that does not exist: every run fails.
    const { id } = (await create({ actionType: 'content:publish', payload: { entityType: 'posts', entityId: 'r' }, maxRetries: 1 })).body.data;
    const early = await t.json('POST', `${base}/${id}/retry`, undefined, dev());
    expect(early.status).toBe(400);
    expect(early.body.error).toMatch(/Only failed actions can be retried; this one is pending/);
    await runCron(t);
    expect(await storedAction(t, id)).toMatchObject({ status: 'failed', attempts: 1 });
    clock.advance(60_000);
    const res = await t.json('POST', `${base}/${id}/retry`, undefined, dev());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String), data: { id, status: 'pending', attempts: 0 } });
    expect(await storedAction(t, id)).toMatchObject({ status: 'pending', attempts: 0, scheduledAt: clock.now() });
    expect((await runCron(t)).body).toMatchObject({ processed: 1, failed: 1 }); // due at once, and fails again
    expect((await t.json('POST', `${base}/00000000-0000-4000-8000-000000000000/retry`, undefined, dev())).status).toBe(404);
  });

  it('cancel: pending → failed "Cancelled"; any other status 400; missing 404', async () => {
    const { id } = (await create(refresh)).body.data;
    const res = await t.json('DELETE', `${base}/${id}`, undefined, dev());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: expect.any(String), data: { id, status: 'failed' } });
    expect(await storedAction(t, id)).toMatchObject({ status: 'failed', errorMessage: 'Cancelled' });
    const again = await t.json('DELETE', `${base}/${id}`, undefined, dev());
    expect(again.status).toBe(400);
    expect(again.body.error).toMatch(/Only pending actions can be cancelled; this one is failed/);
    expect((await t.json('DELETE', `${base}/00000000-0000-4000-8000-000000000000`, undefined, dev())).status).toBe(404);
    // A cancelled action can be retried.
    expect((await t.json('POST', `${base}/${id}/retry`, undefined, dev())).status).toBe(200);
  });
});

describe('GraphQL', () => {
  it('offers the same operations to developers, and refuses members', async () => {
    const created = await t.graphql('mutation($i: CreateScheduledActionInput!) { createScheduledAction(input: $i) { id actionType status } }', { i: refresh }, dev());
    const id = created.body.data.createScheduledAction.id;
    expect(created.body.data.createScheduledAction).toEqual({ id, actionType: 'social:refresh-tokens', status: 'pending' });
    const list = await t.graphql('{ scheduledActions(status: "pending") { actions { id status } pagination { total } meta { registeredActionTypes } } }', undefined, dev());
    expect(list.body.data.scheduledActions).toMatchObject({ actions: [{ id, status: 'pending' }], pagination: { total: 1 } });
    const cancelled = await t.graphql(`mutation { cancelScheduledAction(id: "${id}") { id status } }`, undefined, dev());
    expect(cancelled.body.data.cancelScheduledAction).toEqual({ id, status: 'failed' });
    const retried = await t.graphql(`mutation { retryScheduledAction(id: "${id}") { status attempts } }`, undefined, dev());
    expect(retried.body.data.retryScheduledAction).toEqual({ status: 'pending', attempts: 0 });
    const one = await t.graphql(`{ scheduledAction(id: "${id}") { status errorMessage } }`, undefined, dev());
    expect(one.body.data.scheduledAction).toEqual({ status: 'pending', errorMessage: 'Cancelled' });

    const refused = await t.graphql('{ scheduledActions { pagination { total } } }', undefined, { 'x-api-key': member.key.key });
    expect(refused.body.errors[0]).toMatchObject({ message: 'Developer role required', extensions: { code: 'FORBIDDEN' } });
    const anonymous = await t.graphql('{ scheduledActions { pagination { total } } }');
    expect(anonymous.body.errors[0].extensions.code).toBe('AUTHENTICATION_FAILED');
    const badStatus = await t.graphql('{ scheduledActions(status: "done") { pagination { total } } }', undefined, dev());
    expect(badStatus.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });
});

describe('documentation', () => {
  it('lists the developer routes and the cron route in the OpenAPI document', async () => {
    const paths = (await t.json('GET', '/api/v1/openapi.json')).body.paths;
    expect(Object.keys(paths)).toEqual(expect.arrayContaining([base, `${base}/{id}`, `${base}/{id}/retry`, '/api/v1/cron/process']));
    expect(Object.keys(paths['/api/v1/cron/process'].get.responses)).toEqual(expect.arrayContaining(['200', '401']));
  });
});
