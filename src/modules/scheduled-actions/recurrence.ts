// When the next occurrence of a recurring action is due: pure arithmetic over instants. Intervals are
// fixed durations (a day is 24 hours of UTC time, whatever the wall clock does at a DST change).
import type { RecurrenceType, RecurringInterval } from './interfaces.js';

const minute = 60_000;

/** Each interval's length in milliseconds. */
export const intervalMs: Record<RecurringInterval, number> = {
  'every-30-minutes': 30 * minute,
  hourly: 60 * minute,
  daily: 24 * 60 * minute,
  weekly: 7 * 24 * 60 * minute,
};

/**
 * The slot of the next occurrence. `fixed`: the first slot of the original grid (`slotAt + k × interval`,
 * k ≥ 1) strictly after `now`; missed slots are skipped, not replayed. `rolling`: `finishedAt + interval`.
 */
export function nextOccurrence(type: RecurrenceType, interval: RecurringInterval, slotAt: Date, finishedAt: Date, now: Date): Date {
  const step = intervalMs[interval];
  if (type === 'rolling') return new Date(finishedAt.getTime() + step);
  const k = Math.max(1, Math.floor((now.getTime() - slotAt.getTime()) / step) + 1);
  return new Date(slotAt.getTime() + k * step);
}
