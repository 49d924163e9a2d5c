// The in-process interface: scheduleAction (validation, deduplication, also under concurrency),
// scheduleRecurringAction, cancelScheduledAction, and scheduling inside a caller's transaction
// (what entity events will do): committed with it, rolled back with it, refused for another team.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RequestDb, runAsUser } from '../../db/request-db.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { testClock } from '../../testkit/clock.js';
import { queueScope, storedAction, withActions } from '../../testkit/scheduled-actions.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { defineAction } from '../module-description.js';
import { actionHandlersKey } from './registry.js';
import { cancelScheduledAction, scheduleAction, scheduledActions, scheduleRecurringAction } from './service.js';

const clock = testClock('2030-01-01T10:00:00.000Z');
let t: TestApp;
let alice: SignedUpUser;
let bob: SignedUpUser;

const entityEvent = { actionType: 'test:entity', payload: z.object({ entityType: z.string(), entityId: z.string(), version: z.number() }), run: async () => undefined };

beforeAll(async () => {
  t = await createTestApp({}, undefined, { now: clock.now, modules: withActions(defineAction({ handler: entityEvent })) });
  alice = await signUp(t);
  bob = await signUp(t);
});
afterAll(() => t.close());
beforeEach(async () => {
  clock.set('2030-01-01T10:00:00.000Z');
  await t.database.prisma.scheduledAction.deleteMany();
});

const scope = () => queueScope(t, clock);
const event = (entityId: string, version: number) => ({ entityType: 'tasks', entityId, version });
const later = (ms: number) => new Date(clock.now().getTime() + ms);

describe('scheduleAction', () => {
  it('refuses unknown action types, payloads that do not fit the schema and bad options, storing nothing', async () => {
    await expect(scheduleAction(scope(), 'nope:nothing', {})).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'Unknown action type "nope:nothing"' });
    await expect(scheduleAction(scope(), 'test:entity', { entityType: 'tasks' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^Invalid payload: entityId/) });
    await expect(scheduleAction(scope(), 'test:entity', event('e', 1), { maxRetries: 0 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(scheduleAction(scope(), 'test:entity', event('e', 1), { teamId: 'not-a-uuid' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(scheduleAction(scope(), 'test:entity', event('e', 1), { teamId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('names no team') });
    expect(await t.database.prisma.scheduledAction.count()).toBe(0);
    expect(t.app.services.get(actionHandlersKey).types()).toEqual(expect.arrayContaining(['content:publish', 'social:refresh-tokens', 'webhook:send', 'test:entity']));
  });

  it('stores the defaults: pending, now, 3 executions, fixed', async () => {
    const id = await scheduleAction(scope(), 'test:entity', event('defaults', 1));
    expect(await storedAction(t, id)).toMatchObject({
      status: 'pending', scheduledAt: clock.now(), slotAt: clock.now(), maxRetries: 3, attempts: 0, recurrenceType: 'fixed', recurringInterval: null, lockGroup: null, teamId: null,
    });
  });

  it('deduplicates: the same type about the same entity, pending within 5 s, takes the new payload and keeps its id', async () => {
    const first = await scheduleAction(scope(), 'test:entity', event('e1', 1), { scheduledAt: later(10_000) });
    expect(await scheduleAction(scope(), 'test:entity', event('e1', 2), { scheduledAt: later(14_000) })).toBe(first);
    expect(await scheduleAction(scope(), 'test:entity', event('e1', 3), { scheduledAt: later(5_000) })).toBe(first);
    expect((await storedAction(t, first)).payload).toEqual(event('e1', 3));
    expect((await storedAction(t, first)).scheduledAt).toEqual(later(10_000));

    // Not merged: outside the window, another entity, another type, another team, a finished action.
    expect(await scheduleAction(scope(), 'test:entity', event('e1', 4), { scheduledAt: later(15_001) })).not.toBe(first);
    expect(await scheduleAction(scope(), 'test:entity', event('e2', 1), { scheduledAt: later(10_000) })).not.toBe(first);
    expect(await scheduleAction(scope(), 'content:publish', { entityType: 'tasks', entityId: 'e1' }, { scheduledAt: later(10_000) })).not.toBe(first);
    expect(await scheduleAction(scope(), 'test:entity', event('e1', 5), { scheduledAt: later(10_000), teamId: alice.activeTeamId })).not.toBe(first);
    await t.database.prisma.scheduledAction.update({ where: { id: first }, data: { status: 'completed' } });
    expect(await scheduleAction(scope(), 'test:entity', event('e1', 6), { scheduledAt: later(10_000) })).not.toBe(first);
    expect(await t.database.prisma.scheduledAction.count()).toBe(6);
  });

  it('does not merge into an action that has already run (a retry keeps its payload), nor across the dedup keys a handler names', async () => {
    const retrying = await scheduleAction(scope(), 'test:entity', event('r1', 1));
    await t.database.prisma.scheduledAction.update({ where: { id: retrying }, data: { attempts: 1 } });
    expect(await scheduleAction(scope(), 'test:entity', event('r1', 2))).not.toBe(retrying);
    expect((await storedAction(t, retrying)).payload).toEqual(event('r1', 1));

    // webhook:send names eventType: a `created` is not swallowed by the `updated` that follows it; two updates merge.
    const hook = (eventType: string, v: number) => ({ eventType, entityType: 'tasks', entityId: 'w1', data: { v } });
    const created = await scheduleAction(scope(), 'webhook:send', hook('tasks:created', 1), { teamId: alice.activeTeamId });
    const updated = await scheduleAction(scope(), 'webhook:send', hook('tasks:updated', 2), { teamId: alice.activeTeamId });
    expect(updated).not.toBe(created);
    expect(await scheduleAction(scope(), 'webhook:send', hook('tasks:updated', 3), { teamId: alice.activeTeamId })).toBe(updated);
    expect([(await storedAction(t, created)).payload, (await storedAction(t, updated)).payload]).toEqual([hook('tasks:created', 1), hook('tasks:updated', 3)]);
  });

  it('deduplicates concurrent calls about one entity into one action', async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => scheduleAction(scope(), 'test:entity', event('race', i), { scheduledAt: later(i * 100) })));
    expect(new Set(ids).size).toBe(1);
    const rows = await t.database.prisma.scheduledAction.findMany({ where: { actionType: 'test:entity' } });
    expect(rows).toHaveLength(1);
    expect((rows[0]!.payload as { version: number }).version).toBeGreaterThanOrEqual(0);
  });

  it('does not deduplicate payloads without entityType and entityId', async () => {
    const a = await scheduleAction(scope(), 'social:refresh-tokens', {});
    const b = await scheduleAction(scope(), 'social:refresh-tokens', {});
    expect(a).not.toBe(b);
  });
});

describe('scheduleRecurringAction and cancelScheduledAction', () => {
  it('scheduleRecurringAction always creates', async () => {
    const a = await scheduleRecurringAction(scope(), 'test:entity', event('r', 1), 'daily');
    const b = await scheduleRecurringAction(scope(), 'test:entity', event('r', 2), 'daily', { recurrenceType: 'rolling', lockGroup: 'g' });
    expect(a).not.toBe(b);
    expect(await storedAction(t, b)).toMatchObject({ recurringInterval: 'daily', recurrenceType: 'rolling', lockGroup: 'g' });
  });

  it('cancels pending actions only: failed with a message saying cancelled; false otherwise', async () => {
    const api = scheduledActions(scope());
    const id = await api.scheduleAction('test:entity', event('c', 1));
    expect(await api.cancelScheduledAction(id)).toBe(true);
    expect(await storedAction(t, id)).toMatchObject({ status: 'failed', errorMessage: 'Cancelled' });
    expect(await api.cancelScheduledAction(id)).toBe(false);
    expect(await cancelScheduledAction(scope(), '00000000-0000-4000-8000-000000000000')).toBe(false);
    expect(await cancelScheduledAction(scope(), 'junk')).toBe(false);
    const running = await api.scheduleAction('test:entity', event('c2', 1));
    await t.database.prisma.scheduledAction.update({ where: { id: running }, data: { status: 'running' } });
    expect(await api.cancelScheduledAction(running)).toBe(false);
    expect((await storedAction(t, running)).status).toBe('running');
  });
});

describe('inside a caller’s transaction', () => {
  it('commits with the caller’s work and rolls back with it', async () => {
    const kept = await runAsUser(t.database, alice.id, (tx) => scheduleAction(scope(), 'test:entity', event('tx', 1), { tx, teamId: alice.activeTeamId }));
    expect((await storedAction(t, kept)).teamId).toBe(alice.activeTeamId);

    const db = new RequestDb(t.database, alice.id);
    const dropped = await scheduleAction(scope(), 'test:entity', event('tx-rolled-back', 1), { tx: await db.tx(), teamId: alice.activeTeamId });
    await db.finish(false);
    expect(await t.database.prisma.scheduledAction.findUnique({ where: { id: dropped } })).toBeNull();
  });

  it('through RLS, schedules only for a team the caller may write; the caller reads no actions', async () => {
    await expect(runAsUser(t.database, alice.id, (tx) => scheduleAction(scope(), 'test:entity', event('x', 1), { tx, teamId: bob.activeTeamId }))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(runAsUser(t.database, alice.id, (tx) => scheduleAction(scope(), 'test:entity', event('x', 1), { tx }))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await scheduleAction(scope(), 'test:entity', event('visible?', 1), { teamId: alice.activeTeamId });
    const seen = await runAsUser(t.database, alice.id, async (tx) => [await tx.scheduledAction.count(), (await tx.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM scheduled_actions`)[0]!.n]);
    expect(seen).toEqual([0, 0]);
    await expect(runAsUser(t.database, alice.id, (tx) => tx.$executeRaw`DELETE FROM scheduled_actions`)).rejects.toThrow();
    await expect(runAsUser(t.database, alice.id, (tx) => tx.$executeRaw`INSERT INTO scheduled_actions (id, action_type, slot_at, team_id) VALUES (gen_random_uuid(), 'x', now(), ${alice.activeTeamId}::uuid)`)).rejects.toThrow();
  });

  it('RLS lets a developer read, and change only what retry and cancel change, the actions of their teams and those with no team; a superadmin every one', async () => {
    const role = (value: string) => t.database.prisma.user.update({ where: { id: bob.id }, data: { role: value } });
    const count = () => runAsUser(t.database, bob.id, async (tx) => (await tx.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM scheduled_actions`)[0]!.n);
    await role('developer');
    try {
      await scheduleAction(scope(), 'test:entity', event('alice', 1), { teamId: alice.activeTeamId });
      await scheduleAction(scope(), 'test:entity', event('bob', 1), { teamId: bob.activeTeamId });
      await scheduleAction(scope(), 'test:entity', event('none', 1));
      expect(await count()).toBe(2);
      await expect(runAsUser(t.database, bob.id, (tx) => tx.$executeRaw`UPDATE scheduled_actions SET payload = '{}'`)).rejects.toThrow();
      expect(await runAsUser(t.database, bob.id, (tx) => tx.$executeRaw`UPDATE scheduled_actions SET status = 'pending'`)).toBe(2);
      await role('superadmin');
      expect(await count()).toBe(3);
      expect(await runAsUser(t.database, bob.id, (tx) => tx.$executeRaw`UPDATE scheduled_actions SET status = 'pending'`)).toBe(3);
    } finally {
      await role('member');
    }
  });
});
