// Entity events end to end: a record's create, update and delete (soft deletes, children and
// scheduled publishing included) schedule `webhook:send` in the change's own transaction, and the
// queue delivers them to the team's subscribed endpoints. A change that rolls back leaves no event; a
// team with no subscribed endpoint gets no action at all; a `created` is never merged into the
// `updated` that follows it, while updates of one record within the dedup window are.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { testClock } from '../../testkit/clock.js';
import { cronSecret, queueScope, runCron } from '../../testkit/scheduled-actions.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { createEndpoint, startReceiver, type CreatedEndpoint, type Receiver } from '../../testkit/webhooks.js';
import { scheduleAction } from '../scheduled-actions/service.js';

const clock = testClock();
let t: TestApp;
let receiver: Receiver;
let alice: SignedUpUser; // owner of the team with the endpoint
let bob: SignedUpUser; // a member of it: cannot read its endpoints, still triggers its events
let endpoint: CreatedEndpoint;

beforeAll(async () => {
  t = await createTestApp({ CRON_SECRET: cronSecret, WEBHOOKS_ALLOW_PRIVATE: 'true' }, undefined, { now: clock.now });
  receiver = await startReceiver();
  alice = await signUp(t);
  bob = await signUp(t);
  await joinTeam(t, alice, alice.activeTeamId, bob, 'member');
  endpoint = await createEndpoint(t, alice, { url: receiver.url('/events'), eventTypes: ['tasks:*', 'posts:*', 'customers:created', 'notes:*'] });
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(async () => {
  clock.set(new Date());
  receiver.received.length = 0;
  await t.database.prisma.scheduledAction.deleteMany();
});

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
const pending = () => t.database.prisma.scheduledAction.findMany({ where: { actionType: 'webhook:send', status: 'pending' }, orderBy: { createdAt: 'asc' } });
/** Runs the queue, then every event the receiver got (each signature verified), in arrival order. */
const delivered = async () => {
  const report = (await runCron(t)).body;
  expect(report.failed).toBe(0);
  return receiver.on('/events').map((r) => new Webhook(endpoint.secret).verify(r.body, r.headers as Record<string, string>) as { type: string; data: { entityType: string; entityId: string; record: Record<string, unknown> } });
};
const byType = (events: Awaited<ReturnType<typeof delivered>>) => Object.fromEntries(events.map((e) => [e.type, e]));

describe('entity events', () => {
  it('create, update and delete each deliver their event; a private entity\'s (tasks) carries ids and stamps, not its creator\'s fields', async () => {
    const created = (await t.json('POST', '/api/v1/tasks', { title: 'Draft the launch note' }, as(bob))).body.data;
    const first = (await t.json('PATCH', `/api/v1/tasks/${created.id}`, { status: 'in-progress' }, as(bob))).body.data;
    const second = (await t.json('PATCH', `/api/v1/tasks/${created.id}`, { status: 'done', completed: true }, as(bob))).body.data;
    expect(first.status).toBe('in-progress');
    // Within the dedup window: `created` stays its own event; the two updates are one, with the latest record.
    expect((await pending()).map((a) => [(a.payload as { eventType: string }).eventType, a.teamId])).toEqual([['tasks:created', alice.activeTeamId], ['tasks:updated', alice.activeTeamId]]);

    const events = byType(await delivered());
    expect(Object.keys(events).sort()).toEqual(['tasks:created', 'tasks:updated']);
    // Tasks are their creator's alone; the team's webhooks are its admins'.
    const stamps = (r: Record<string, unknown>) => ({ id: r.id, teamId: r.teamId, userId: r.userId, createdAt: r.createdAt, updatedAt: r.updatedAt });
    expect(events['tasks:created']!.data).toEqual({ entityType: 'tasks', entityId: created.id, record: stamps(created) });
    expect(events['tasks:updated']!.data).toEqual({ entityType: 'tasks', entityId: created.id, record: stamps(second) });

    receiver.received.length = 0;
    expect((await t.json('DELETE', `/api/v1/tasks/${created.id}`, undefined, as(bob))).status).toBe(200);
    expect(await delivered()).toEqual([{ type: 'tasks:deleted', timestamp: expect.any(String), data: { entityType: 'tasks', entityId: created.id, record: stamps(second) } }]);
  });

  it('a soft delete is a deleted event carrying deletedAt', async () => {
    const post = (await t.json('POST', '/api/v1/posts', { title: 'Hello', slug: 'hello-events' }, as(alice))).body.data;
    const removed = await t.json('DELETE', `/api/v1/posts/${post.id}`, undefined, as(alice));
    const events = byType(await delivered());
    expect(events['posts:deleted']!.data.record).toMatchObject({ id: post.id, title: 'Hello', deletedAt: removed.body.data.deletedAt });
    expect(events['posts:deleted']!.data.record.deletedAt).toEqual(expect.any(String));
  });

  it('children have events of their own (`notes:*`), and only subscribed event types are sent', async () => {
    const customer = (await t.json('POST', '/api/v1/customers', { name: 'ACME', account: 42, office: 'Lyon', metas: { tier: 'gold' } }, as(alice))).body.data;
    await t.json('PATCH', `/api/v1/customers/${customer.id}`, { office: 'Paris' }, as(alice)); // customers:updated: not subscribed
    const note = (await t.json('POST', `/api/v1/customers/${customer.id}/child/notes`, { body: 'Called them' }, as(alice))).body.data;
    const changed = (await t.json('PATCH', `/api/v1/customers/${customer.id}/child/notes/${note.id}`, { body: 'Called them twice' }, as(alice))).body.data;
    expect((await t.json('DELETE', `/api/v1/customers/${customer.id}/child/notes/${note.id}`, undefined, as(alice))).status).toBe(200);

    const events = byType(await delivered());
    expect(Object.keys(events).sort()).toEqual(['customers:created', 'notes:created', 'notes:deleted', 'notes:updated']);
    expect(events['customers:created']!.data.record).toEqual(customer);
    expect(customer.metas).toEqual({ tier: 'gold' });
    expect(events['notes:created']!.data).toEqual({ entityType: 'notes', entityId: note.id, record: note });
    expect(events['notes:updated']!.data.record).toEqual(changed);
    expect(events['notes:deleted']!.data.record).toMatchObject({ id: note.id, parentId: customer.id, body: 'Called them twice' });
  });

  it('a change that rolls back leaves no event (and an event never outlives its change)', async () => {
    const res = await t.graphql('mutation { kept: createTask(input: { title: "rolled back" }) { id } refused: createTask(input: { title: "" }) { id } }', {}, as(alice));
    expect(res.body.errors).toHaveLength(1);
    expect(await t.database.prisma.task.count({ where: { title: 'rolled back' } })).toBe(0);
    expect(await pending()).toEqual([]);
    expect(await delivered()).toEqual([]);
  });

  it('schedules nothing for a team without an active endpoint subscribed to the event', async () => {
    const carol = await signUp(t);
    await t.json('POST', '/api/v1/tasks', { title: 'No one listens' }, as(carol));
    const hook = await createEndpoint(t, carol, { url: receiver.url('/carol'), eventTypes: ['posts:created'] });
    await t.json('POST', '/api/v1/tasks', { title: 'Still no one' }, as(carol));
    await t.json('PATCH', `/api/v1/webhooks/${hook.id}`, { eventTypes: ['tasks:created'], active: false }, as(carol));
    await t.json('POST', '/api/v1/tasks', { title: 'Inactive' }, as(carol));
    expect(await pending()).toEqual([]);
    await t.json('PATCH', `/api/v1/webhooks/${hook.id}`, { active: true }, as(carol));
    await t.json('POST', '/api/v1/tasks', { title: 'Heard' }, as(carol));
    expect((await pending()).map((a) => (a.payload as { eventType: string }).eventType)).toEqual(['tasks:created']);
  });

  it('scheduled publishing (content:publish) is an update: its event follows the change', async () => {
    const post = (await t.json('POST', '/api/v1/posts', { title: 'Later', slug: 'later-events' }, as(alice))).body.data;
    await delivered();
    receiver.received.length = 0;
    await scheduleAction(queueScope(t, clock), 'content:publish', { entityType: 'posts', entityId: post.id }, { teamId: alice.activeTeamId });
    await runCron(t); // publishes, and schedules posts:updated in the same transaction
    const events = await delivered();
    expect(events.map((e) => e.type)).toEqual(['posts:updated']);
    expect(events[0]!.data.record).toMatchObject({ id: post.id, status: 'published', publishedAt: clock.now().toISOString() });
  });
});
