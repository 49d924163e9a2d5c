// The queue through the front door (GET /api/v1/cron/process) on a controllable clock: every
// transition, the retry arithmetic, both recurrence types, lock groups, timeouts, crash reclaim,
// retention, the secret, the built-in handlers and the built-in scheduler.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { testClock } from '../../testkit/clock.js';
import { cronSecret, queueScope, runCron, storedAction, withActions } from '../../testkit/scheduled-actions.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { defineAction } from '../module-description.js';
import { scheduleAction, scheduleRecurringAction } from './service.js';

const clock = testClock();
const start = '2030-01-01T10:00:00.000Z';
const minute = 60_000;
let t: TestApp;
let owner: SignedUpUser;

const calls: Record<string, number> = {};
const count = (key: string) => (calls[key] = (calls[key] ?? 0) + 1);
const observed: { status: string; startedAt: Date | null; attempts: number }[] = [];
let abortedBy: unknown = null;

const succeeding = defineAction({ handler: { actionType: 'test:ok', payload: z.object({ key: z.string() }), run: async ({ key }) => ({ calls: count(key) }) } });
const failing = defineAction({ handler: {
  actionType: 'test:fail',
  payload: z.object({ key: z.string(), times: z.number().int().default(1_000) }),
  run: async ({ key, times }) => {
    if (count(key) <= times) throw new Error(`failure ${calls[key]} of ${key}`);
    return { recovered: true };
  },
} });
const slow = defineAction({ handler: {
  actionType: 'test:slow',
  payload: z.object({}),
  run: (_payload, { signal }) =>
    new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        abortedBy = signal.reason;
        resolve(undefined);
      });
    }),
} });
const observing = defineAction({ handler: {
  actionType: 'test:observe',
  payload: z.object({}),
  run: async (_payload, { action, system }) => {
    const row = await system.prisma.scheduledAction.findUniqueOrThrow({ where: { id: action.id } });
    observed.push({ status: row.status, startedAt: row.startedAt, attempts: row.attempts });
  },
} });

/** The platform's modules with this file's action types. */
const testModules = withActions(succeeding, failing, slow, observing);

beforeAll(async () => {
  clock.set(start);
  t = await createTestApp({ CRON_SECRET: cronSecret, SCHEDULED_ACTIONS_TIMEOUTS: 'test:slow=100' }, undefined, { now: clock.now, modules: testModules });
  owner = await signUp(t);
});
afterAll(() => t.close());
beforeEach(async () => {
  clock.set(start);
  await t.database.prisma.scheduledAction.deleteMany();
});

const scope = () => queueScope(t, clock);
const at = (iso: string) => new Date(iso);
const cron = async () => {
  const res = await runCron(t);
  expect(res.status).toBe(200);
  return res.body as { processed: number; succeeded: number; failed: number; errors: { actionId: string; error: string }[] };
};

describe('the cron route', () => {
  it('answers 401 {error, message} without the secret or with a wrong one, and runs nothing', async () => {
    const id = await scheduleAction(scope(), 'test:ok', { key: 'secret-check' });
    for (const headers of [{} as Record<string, string>, { 'x-cron-secret': 'wrong' }, { 'x-cron-secret': `${cronSecret}x` }, { 'x-cron-secret': cronSecret.slice(0, -1) }]) {
      const res = await runCron(t, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Unauthorized', message: expect.any(String) });
    }
    expect((await storedAction(t, id)).status).toBe('pending');
  });

  it('refuses to run (401, "disabled") while CRON_SECRET is unset or shorter than 32 characters', async () => {
    for (const env of [{} as Record<string, string>, { CRON_SECRET: 'x'.repeat(31) }]) {
      const other = await createTestApp(env, t, { modules: testModules });
      try {
        const res = await runCron(other, { 'x-cron-secret': env.CRON_SECRET ?? '' });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'Unauthorized', message: expect.stringMatching(/^Cron processing is disabled: CRON_SECRET/) });
      } finally {
        await other.close();
      }
    }
  });

  it('answers zeros when nothing is due, not enveloped', async () => {
    await scheduleAction(scope(), 'test:ok', { key: 'later' }, { scheduledAt: at('2030-01-01T10:00:01Z') });
    expect(await cron()).toEqual({ processed: 0, succeeded: 0, failed: 0, errors: [] });
  });

  it('takes at most batchSize (10) actions, earliest scheduled first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await scheduleAction(scope(), 'test:ok', { key: `batch-${i}` }, { scheduledAt: new Date(Date.parse(start) - (12 - i) * 1000) }));
    expect(await cron()).toMatchObject({ processed: 10, succeeded: 10, failed: 0 });
    const rows = await t.database.prisma.scheduledAction.findMany({ where: { id: { in: ids } } });
    expect(rows.filter((r) => r.status === 'pending').map((r) => r.id).sort()).toEqual(ids.slice(10).sort());
    expect(await cron()).toMatchObject({ processed: 2 });
  });
});

describe('transitions', () => {
  it('pending → running (startedAt, attempts + 1) → completed (completedAt, result)', async () => {
    const id = await scheduleAction(scope(), 'test:observe', {});
    const created = await storedAction(t, id);
    expect(created).toMatchObject({ status: 'pending', attempts: 0, maxRetries: 3, recurrenceType: 'fixed', scheduledAt: at(start), startedAt: null });
    clock.advance(1000);
    expect(await cron()).toEqual({ processed: 1, succeeded: 1, failed: 0, errors: [] });
    expect(observed.at(-1)).toEqual({ status: 'running', startedAt: at('2030-01-01T10:00:01Z'), attempts: 1 });
    expect(await storedAction(t, id)).toMatchObject({ status: 'completed', attempts: 1, completedAt: at('2030-01-01T10:00:01Z'), errorMessage: null });

    const ok = await scheduleAction(scope(), 'test:ok', { key: 'result' });
    await cron();
    expect((await storedAction(t, ok)).result).toEqual({ calls: 1 });
  });

  it('a failure goes back to pending at now + attempts × 5 min, and fails for good after exactly maxRetries executions', async () => {
    const id = await scheduleAction(scope(), 'test:fail', { key: 'thrice' });
    let report = await cron();
    expect(report).toEqual({ processed: 1, succeeded: 0, failed: 1, errors: [{ actionId: id, error: 'failure 1 of thrice' }] });
    expect(await storedAction(t, id)).toMatchObject({ status: 'pending', attempts: 1, errorMessage: 'failure 1 of thrice', scheduledAt: at('2030-01-01T10:05:00Z') });

    clock.set('2030-01-01T10:04:59Z');
    expect((await cron()).processed).toBe(0); // not due yet
    clock.set('2030-01-01T10:05:00Z');
    report = await cron();
    expect(report.failed).toBe(1);
    expect(await storedAction(t, id)).toMatchObject({ status: 'pending', attempts: 2, scheduledAt: at('2030-01-01T10:15:00Z') });

    clock.set('2030-01-01T10:15:00Z');
    await cron();
    expect(await storedAction(t, id)).toMatchObject({ status: 'failed', attempts: 3, errorMessage: 'failure 3 of thrice', scheduledAt: at('2030-01-01T10:15:00Z') });
    clock.set('2030-01-02T00:00:00Z');
    expect((await cron()).processed).toBe(0);
    expect(calls.thrice).toBe(3);
  });

  it('maxRetries 1 fails on the first failure; a later success completes', async () => {
    const once = await scheduleAction(scope(), 'test:fail', { key: 'once' }, { maxRetries: 1 });
    const recovers = await scheduleAction(scope(), 'test:fail', { key: 'recovers', times: 1 });
    await cron();
    expect(await storedAction(t, once)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(await storedAction(t, recovers)).toMatchObject({ status: 'pending', attempts: 1 });
    clock.advance(5 * minute);
    expect(await cron()).toMatchObject({ processed: 1, succeeded: 1 });
    expect(await storedAction(t, recovers)).toMatchObject({ status: 'completed', attempts: 2, result: { recovered: true }, errorMessage: null });
  });

  it('times a handler out with an AbortSignal: "Handler timeout after <ms>ms", a failed attempt', async () => {
    const id = await scheduleAction(scope(), 'test:slow', {});
    const started = performance.now();
    const report = await cron();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(report).toEqual({ processed: 1, succeeded: 0, failed: 1, errors: [{ actionId: id, error: 'Handler timeout after 100ms' }] });
    expect((abortedBy as Error).message).toBe('Handler timeout after 100ms');
    expect(await storedAction(t, id)).toMatchObject({ status: 'pending', attempts: 1, errorMessage: 'Handler timeout after 100ms' });
  });

  it('fails an action whose type has no handler, and one whose stored payload no longer fits', async () => {
    const [unknown] = await t.database.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO scheduled_actions (id, action_type, payload, scheduled_at, slot_at, max_retries) VALUES (gen_random_uuid(), 'test:gone', '{}', ${at(start)}, ${at(start)}, 1) RETURNING id::text`;
    const [bad] = await t.database.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO scheduled_actions (id, action_type, payload, scheduled_at, slot_at, max_retries) VALUES (gen_random_uuid(), 'test:ok', '{"key": 7}', ${at(start)}, ${at(start)}, 1) RETURNING id::text`;
    const report = await cron();
    expect(report.failed).toBe(2);
    expect(await storedAction(t, unknown!.id)).toMatchObject({ status: 'failed', errorMessage: 'No handler is registered for action type test:gone' });
    expect((await storedAction(t, bad!.id)).errorMessage).toMatch(/^Invalid payload: key:/);
  });
});

describe('recurrence', () => {
  it('fixed: the finished row stays as history; the next occurrence is the next slot of the grid, missed slots skipped', async () => {
    const team = owner.activeTeamId;
    const first = await scheduleRecurringAction(scope(), 'test:ok', { key: 'fixed' }, 'hourly', { teamId: team, lockGroup: 'fixed-group', maxRetries: 5 });
    clock.set('2030-01-01T10:00:30Z');
    await cron();
    const done = await storedAction(t, first);
    expect(done).toMatchObject({ status: 'completed', recurringInterval: 'hourly' });
    const second = await storedAction(t, done.nextActionId!);
    expect(second).toMatchObject({
      status: 'pending', actionType: 'test:ok', payload: { key: 'fixed' }, teamId: team, recurringInterval: 'hourly', recurrenceType: 'fixed',
      maxRetries: 5, lockGroup: 'fixed-group', attempts: 0, scheduledAt: at('2030-01-01T11:00:00Z'), slotAt: at('2030-01-01T11:00:00Z'),
    });

    clock.set('2030-01-01T13:20:00Z'); // 11:00 is late; 12:00 and 13:00 were missed
    expect((await cron()).processed).toBe(1);
    const third = await storedAction(t, (await storedAction(t, second.id)).nextActionId!);
    expect(third.scheduledAt).toEqual(at('2030-01-01T14:00:00Z'));
    expect(await t.database.prisma.scheduledAction.count({ where: { payload: { equals: { key: 'fixed' } } } })).toBe(3);
  });

  it('fixed: an occurrence that succeeds on a retry keeps its grid', async () => {
    const id = await scheduleRecurringAction(scope(), 'test:fail', { key: 'grid', times: 1 }, 'hourly');
    await cron();
    clock.set('2030-01-01T10:05:00Z');
    await cron();
    const done = await storedAction(t, id);
    expect(done).toMatchObject({ status: 'completed', attempts: 2 });
    expect((await storedAction(t, done.nextActionId!)).scheduledAt).toEqual(at('2030-01-01T11:00:00Z'));
  });

  it('rolling: completion time + interval', async () => {
    const id = await scheduleRecurringAction(scope(), 'test:ok', { key: 'rolling' }, 'every-30-minutes', { recurrenceType: 'rolling' });
    clock.set('2030-01-01T10:07:13Z');
    await cron();
    const next = await storedAction(t, (await storedAction(t, id)).nextActionId!);
    expect(next).toMatchObject({ status: 'pending', recurrenceType: 'rolling', scheduledAt: at('2030-01-01T10:37:13Z') });
  });

  it('a final failure also ends the occurrence: the next one is scheduled', async () => {
    const id = await scheduleRecurringAction(scope(), 'test:fail', { key: 'daily-fail' }, 'daily', { maxRetries: 1 });
    await cron();
    const failed = await storedAction(t, id);
    expect(failed.status).toBe('failed');
    expect((await storedAction(t, failed.nextActionId!)).scheduledAt).toEqual(at('2030-01-02T10:00:00Z'));
  });

  it('a retried occurrence that already made its successor does not make a second one', async () => {
    const id = await scheduleRecurringAction(scope(), 'test:fail', { key: 'no-twin', times: 1 }, 'weekly', { maxRetries: 1 });
    await cron(); // fails for good: the next occurrence is made
    const failed = await storedAction(t, id);
    expect(failed.status).toBe('failed');
    // What the developer retry does (failed → pending, attempts reset), then the run succeeds.
    await t.database.prisma.scheduledAction.update({ where: { id }, data: { status: 'pending', attempts: 0, scheduledAt: clock.now() } });
    await cron();
    expect(await storedAction(t, id)).toMatchObject({ status: 'completed', nextActionId: failed.nextActionId });
    expect(await t.database.prisma.scheduledAction.count({ where: { payload: { path: ['key'], equals: 'no-twin' } } })).toBe(2);
  });
});

describe('lock groups', () => {
  it('runs one action per lock group per batch, earliest first', async () => {
    const a1 = await scheduleAction(scope(), 'test:ok', { key: 'a1' }, { lockGroup: 'a', scheduledAt: at('2030-01-01T09:00:00Z') });
    const a2 = await scheduleAction(scope(), 'test:ok', { key: 'a2' }, { lockGroup: 'a', scheduledAt: at('2030-01-01T09:30:00Z') });
    const b1 = await scheduleAction(scope(), 'test:ok', { key: 'b1' }, { lockGroup: 'b' });
    const free = await scheduleAction(scope(), 'test:ok', { key: 'free' });
    expect((await cron()).processed).toBe(3);
    const status = async (id: string) => (await storedAction(t, id)).status;
    expect([await status(a1), await status(a2), await status(b1), await status(free)]).toEqual(['completed', 'pending', 'completed', 'completed']);
    expect((await cron()).processed).toBe(1);
    expect(await status(a2)).toBe('completed');
  });

  it('claims nothing of a group that already has a running action', async () => {
    await t.database.prisma.$executeRaw`
      INSERT INTO scheduled_actions (id, action_type, status, payload, scheduled_at, slot_at, started_at, attempts, lock_group)
      VALUES (gen_random_uuid(), 'test:ok', 'running', '{"key": "busy"}', ${at(start)}, ${at(start)}, ${at(start)}, 1, 'busy')`;
    const waiting = await scheduleAction(scope(), 'test:ok', { key: 'waiting' }, { lockGroup: 'busy' });
    expect((await cron()).processed).toBe(0);
    expect((await storedAction(t, waiting)).status).toBe('pending');
  });

  it('the database refuses a second running action in one group', async () => {
    const insert = () => t.database.prisma.$executeRaw`
      INSERT INTO scheduled_actions (id, action_type, status, payload, scheduled_at, slot_at, lock_group) VALUES (gen_random_uuid(), 'test:ok', 'running', '{}', now(), now(), 'only-one')`;
    await insert();
    await expect(insert()).rejects.toThrow(/scheduled_actions_one_running_per_lock_group|23505/);
  });
});

describe('crash safety and retention', () => {
  const seedRunning = async (startedAt: Date, attempts: number, type = 'test:ok', lockGroup: string | null = null) => {
    const [row] = await t.database.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO scheduled_actions (id, action_type, status, payload, scheduled_at, slot_at, started_at, attempts, max_retries, lock_group)
      VALUES (gen_random_uuid(), ${type}, 'running', '{"key": "crashed"}', ${startedAt}, ${startedAt}, ${startedAt}, ${attempts}, 3, ${lockGroup}) RETURNING id::text`;
    return row!.id;
  };

  it('reclaims an action running longer than its timeout plus the grace as a failed attempt, in the next batch', async () => {
    const limit = 30_000 + 60_000; // default timeout + default grace
    const fresh = await seedRunning(new Date(Date.parse(start) - limit + 1000), 1, 'test:ok', 'crash-group');
    expect((await cron()).processed).toBe(0);
    expect((await storedAction(t, fresh)).status).toBe('running');

    clock.advance(2000);
    const report = await cron();
    expect(report).toMatchObject({ processed: 1, failed: 1, errors: [{ actionId: fresh, error: expect.stringContaining('Reclaimed') }] });
    expect(await storedAction(t, fresh)).toMatchObject({ status: 'pending', attempts: 1, scheduledAt: new Date(clock.now().getTime() + 5 * minute) });
    // The group is free again: its other actions may run.
    const next = await scheduleAction(scope(), 'test:ok', { key: 'after-crash' }, { lockGroup: 'crash-group' });
    await cron();
    expect((await storedAction(t, next)).status).toBe('completed');
  });

  it('a reclaimed last attempt is failed for good; the per-type timeout counts', async () => {
    const last = await seedRunning(new Date(Date.parse(start) - 90_001), 3);
    const slow = await seedRunning(new Date(Date.parse(start) - 60_101), 1, 'test:slow'); // 100 ms timeout + 60 s grace
    const report = await cron();
    expect(report.failed).toBe(2);
    expect(await storedAction(t, last)).toMatchObject({ status: 'failed', attempts: 3 });
    expect(await storedAction(t, slow)).toMatchObject({ status: 'pending', attempts: 1 });
  });

  it('deletes completed and failed actions older than retentionDays (7), never pending ones', async () => {
    const old = await scheduleAction(scope(), 'test:ok', { key: 'old' });
    const oldFailed = await scheduleAction(scope(), 'test:fail', { key: 'old-failed' }, { maxRetries: 1 });
    const keptPending = await scheduleAction(scope(), 'test:ok', { key: 'kept' }, { scheduledAt: at('2030-02-01T00:00:00Z') });
    await cron();
    clock.set('2030-01-08T09:59:59Z');
    const recent = await scheduleAction(scope(), 'test:ok', { key: 'recent' });
    await cron(); // runs `recent`; the old ones are not 7 days old yet
    expect(await t.database.prisma.scheduledAction.count({ where: { id: { in: [old, oldFailed] } } })).toBe(2);
    clock.set('2030-01-08T10:00:01Z');
    await cron();
    const left = (await t.database.prisma.scheduledAction.findMany({ select: { id: true } })).map((r) => r.id);
    expect(left.sort()).toEqual([keptPending, recent].sort());
  });

  it('deletes in bounded chunks: a large backlog goes over several batches', async () => {
    await t.database.prisma.$executeRaw`
      INSERT INTO scheduled_actions (id, action_type, status, payload, scheduled_at, slot_at, updated_at)
      SELECT gen_random_uuid(), 'test:ok', 'completed', '{}', ${at('2029-01-01T00:00:00Z')}, ${at('2029-01-01T00:00:00Z')}, ${at('2029-01-01T00:00:00Z')} FROM generate_series(1, 5200)`;
    await cron();
    expect(await t.database.prisma.scheduledAction.count()).toBe(200); // 10 chunks of 500 per batch
    await cron();
    expect(await t.database.prisma.scheduledAction.count()).toBe(0);
  });
});

describe('built-in handlers', () => {
  it('content:publish sets a post’s status and publishedAt; a missing record fails', async () => {
    const created = await t.json('POST', '/api/v1/posts', { title: 'Soon', slug: 'soon' }, { cookie: owner.cookie });
    expect(created.status).toBe(201);
    const post = created.body.data;
    expect(post.status).toBe('draft');
    const id = await scheduleAction(scope(), 'content:publish', { entityType: 'posts', entityId: post.id, contentId: post.id }, { teamId: owner.activeTeamId });
    const missing = await scheduleAction(scope(), 'content:publish', { entityType: 'posts', entityId: '00000000-0000-4000-8000-000000000000' }, { maxRetries: 1 });
    clock.set('2030-01-01T10:00:05Z');
    const report = await cron();
    expect(report).toMatchObject({ processed: 2, succeeded: 1, failed: 1, errors: [{ actionId: missing, error: 'Post 00000000-0000-4000-8000-000000000000 not found' }] });
    expect((await storedAction(t, id)).result).toEqual({ entityType: 'posts', entityId: post.id, published: true, fields: ['status', 'publishedAt'] });
    const read = await t.json('GET', `/api/v1/posts/${post.id}`, undefined, { cookie: owner.cookie });
    expect(read.body.data).toMatchObject({ status: 'published', publishedAt: '2030-01-01T10:00:05.000Z' });
  });

  it('content:publish refuses unknown entity types when scheduling; an entity without those fields completes saying so', async () => {
    await expect(scheduleAction(scope(), 'content:publish', { entityType: 'nope', entityId: 'x' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const task = await t.json('POST', '/api/v1/tasks', { title: 'T' }, { cookie: owner.cookie });
    expect(task.status).toBe(201);
    const id = await scheduleAction(scope(), 'content:publish', { entityType: 'tasks', contentId: task.body.data.id });
    await cron();
    expect(await storedAction(t, id)).toMatchObject({ status: 'completed', result: { published: false, message: expect.stringContaining('nothing to set') } });
  });

  it('content:publish only touches a record of the action’s team', async () => {
    const other = await signUp(t);
    const post = (await t.json('POST', '/api/v1/posts', { title: 'Theirs', slug: 'theirs' }, { cookie: other.cookie })).body.data;
    const id = await scheduleAction(scope(), 'content:publish', { entityType: 'posts', entityId: post.id }, { teamId: owner.activeTeamId, maxRetries: 1 });
    await cron();
    expect((await storedAction(t, id)).status).toBe('failed');
    expect((await t.json('GET', `/api/v1/posts/${post.id}`, undefined, { cookie: other.cookie })).body.data.status).toBe('draft');
  });

  it('social:refresh-tokens completes and says no provider is configured', async () => {
    const id = await scheduleAction(scope(), 'social:refresh-tokens', {});
    await cron();
    expect(await storedAction(t, id)).toMatchObject({ status: 'completed', result: { refreshed: 0, message: expect.stringContaining('No social token providers') } });
  });

  it('webhook:send checks its payload; without a team it fails (endpoints are a team’s), with one and no endpoint it completes saying so', async () => {
    await expect(scheduleAction(scope(), 'webhook:send', { eventType: 'tasks:created', entityType: 'tasks', entityId: 'x' } as never)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const teamless = await scheduleAction(scope(), 'webhook:send', { eventType: 'tasks:created', entityType: 'tasks', entityId: 'x', data: {} }, { maxRetries: 1 });
    const unheard = await scheduleAction(scope(), 'webhook:send', { eventType: 'tasks:created', entityType: 'tasks', entityId: 'x', data: {} }, { teamId: owner.activeTeamId });
    await cron();
    expect(await storedAction(t, teamless)).toMatchObject({ status: 'failed', errorMessage: expect.stringContaining('needs the action’s teamId') });
    expect(await storedAction(t, unheard)).toMatchObject({ status: 'completed', result: { delivered: [], message: 'No active endpoint of the team is subscribed to tasks:created' } });
  });
});

describe('the built-in scheduler', () => {
  it('with CRON_INTERVAL_SECONDS, the server processes due actions itself', async () => {
    const id = await scheduleAction(scope(), 'test:ok', { key: 'by-itself' });
    const ticking = await createTestApp({ CRON_INTERVAL_SECONDS: '1' }, t, { now: clock.now, modules: testModules });
    try {
      for (let i = 0; i < 50 && (await storedAction(t, id)).status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await storedAction(t, id)).status).toBe('completed');
    } finally {
      await ticking.close();
    }
  });
});
