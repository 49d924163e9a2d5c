// Pure arithmetic: the next occurrence (fixed grid, rolling), the linear backoff, and what an
// attempt's outcome makes of an action.
import { describe, expect, it } from 'vitest';
import { mayRetry, retryAt } from './backoff.js';
import { settlementFor } from './processor.js';
import { intervalMs, nextOccurrence } from './recurrence.js';
import type { ActionRow } from './repository.js';

const at = (iso: string) => new Date(iso);
const min = 60_000;

describe('nextOccurrence', () => {
  it('fixed: the first slot of the original grid strictly after now, missed slots skipped', () => {
    const slot = at('2030-01-01T10:00:00Z');
    expect(nextOccurrence('fixed', 'hourly', slot, at('2030-01-01T10:00:30Z'), at('2030-01-01T10:00:30Z'))).toEqual(at('2030-01-01T11:00:00Z'));
    expect(nextOccurrence('fixed', 'hourly', slot, at('2030-01-01T13:20:00Z'), at('2030-01-01T13:20:00Z'))).toEqual(at('2030-01-01T14:00:00Z'));
    expect(nextOccurrence('fixed', 'hourly', slot, at('2030-01-01T11:00:00Z'), at('2030-01-01T11:00:00Z'))).toEqual(at('2030-01-01T12:00:00Z'));
    expect(nextOccurrence('fixed', 'every-30-minutes', slot, at('2030-01-01T10:31:00Z'), at('2030-01-01T10:31:00Z'))).toEqual(at('2030-01-01T11:00:00Z'));
    expect(nextOccurrence('fixed', 'daily', slot, at('2030-01-04T09:00:00Z'), at('2030-01-04T09:00:00Z'))).toEqual(at('2030-01-04T10:00:00Z'));
    expect(nextOccurrence('fixed', 'weekly', slot, at('2030-01-01T10:00:01Z'), at('2030-01-01T10:00:01Z'))).toEqual(at('2030-01-08T10:00:00Z'));
  });

  it('fixed: a run before its slot still moves one interval on', () => {
    const slot = at('2030-01-01T10:00:00Z');
    expect(nextOccurrence('fixed', 'hourly', slot, at('2030-01-01T09:59:00Z'), at('2030-01-01T09:59:00Z'))).toEqual(at('2030-01-01T11:00:00Z'));
  });

  it('rolling: completion time + interval, whatever the grid', () => {
    const slot = at('2030-01-01T10:00:00Z');
    expect(nextOccurrence('rolling', 'hourly', slot, at('2030-01-01T10:07:13Z'), at('2030-01-01T10:07:13Z'))).toEqual(at('2030-01-01T11:07:13Z'));
    expect(nextOccurrence('rolling', 'weekly', slot, at('2030-01-03T00:00:00Z'), at('2030-01-03T00:00:00Z'))).toEqual(at('2030-01-10T00:00:00Z'));
  });

  it('knows the four intervals', () => {
    expect(intervalMs).toEqual({ 'every-30-minutes': 30 * min, hourly: 60 * min, daily: 1440 * min, weekly: 10_080 * min });
  });
});

describe('backoff', () => {
  it('is linear in the attempts made: now + attempts × base', () => {
    const now = at('2030-01-01T10:00:00Z');
    expect(retryAt(now, 1, 5 * min)).toEqual(at('2030-01-01T10:05:00Z'));
    expect(retryAt(now, 2, 5 * min)).toEqual(at('2030-01-01T10:10:00Z'));
    expect(retryAt(now, 3, 5 * min)).toEqual(at('2030-01-01T10:15:00Z'));
  });

  it('allows exactly maxRetries executions', () => {
    expect([1, 2, 3].map((attempts) => mayRetry(attempts, 3))).toEqual([true, true, false]);
    expect(mayRetry(1, 1)).toBe(false);
  });
});

describe('settlementFor', () => {
  const row = (over: Partial<ActionRow> = {}): ActionRow => ({
    id: 'a', actionType: 't', status: 'running', payload: {}, teamId: null, scheduledAt: at('2030-01-01T10:00:00Z'), slotAt: at('2030-01-01T10:00:00Z'),
    startedAt: at('2030-01-01T10:00:00Z'), completedAt: null, errorMessage: null, result: null, attempts: 1, maxRetries: 3, recurringInterval: null,
    recurrenceType: 'fixed', lockGroup: null, nextActionId: null, createdBy: null, createdAt: at('2030-01-01T09:00:00Z'), updatedAt: at('2030-01-01T10:00:00Z'), ...over,
  });
  const now = at('2030-01-01T10:00:02Z');

  it('success → completed, no next occurrence for a one-off', () => {
    expect(settlementFor(row(), { ok: true, result: { n: 1 } }, now, 5 * min)).toMatchObject({ status: 'completed', completedAt: now, result: { n: 1 }, errorMessage: null, next: null });
  });

  it('failure with attempts left → pending at now + attempts × base, error kept, no next occurrence', () => {
    expect(settlementFor(row({ attempts: 2 }), { ok: false, error: 'boom' }, now, 5 * min)).toMatchObject({ status: 'pending', scheduledAt: at('2030-01-01T10:10:02Z'), errorMessage: 'boom', next: null });
  });

  it('final failure → failed; a recurring action then gets its next occurrence', () => {
    expect(settlementFor(row({ attempts: 3 }), { ok: false, error: 'boom' }, now, 5 * min)).toMatchObject({ status: 'failed', errorMessage: 'boom', next: null });
    const recurring = settlementFor(row({ attempts: 3, recurringInterval: 'hourly' }), { ok: false, error: 'boom' }, now, 5 * min, 'next-id');
    expect(recurring).toMatchObject({ status: 'failed', next: { id: 'next-id', at: at('2030-01-01T11:00:00Z') } });
  });

  it('a recurring action that succeeds after retries stays on the grid of its slot', () => {
    const retried = row({ recurringInterval: 'hourly', attempts: 2, scheduledAt: at('2030-01-01T10:05:00Z') });
    expect(settlementFor(retried, { ok: true, result: null }, at('2030-01-01T10:05:01Z'), 5 * min, 'n').next).toEqual({ id: 'n', at: at('2030-01-01T11:00:00Z') });
    const rolling = row({ recurringInterval: 'hourly', recurrenceType: 'rolling', attempts: 2, scheduledAt: at('2030-01-01T10:05:00Z') });
    expect(settlementFor(rolling, { ok: true, result: null }, at('2030-01-01T10:05:01Z'), 5 * min, 'n').next).toEqual({ id: 'n', at: at('2030-01-01T11:05:01Z') });
  });
});
