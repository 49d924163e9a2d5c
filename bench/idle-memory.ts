// The product's resident memory when idle (issue 40): a freshly started server on PostgreSQL and one
// on the embedded database, each started as `npm start` starts it (run.ts startEnv: MALLOC_ARENA_MAX=2, MALLOC_MMAP_THRESHOLD_=32768,
// --max-old-space-size=512 --max-semi-space-size=16), read from /proc once /healthz answered and `settleMs` passed with no
// request. Goals: ≤ 180 MB on PostgreSQL, ≤ 250 MB on PGlite (the largest reading of the rounds). A
// missed one is reported as a performance goal: memory is not correctness, and the run goes on.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Goal } from './report.js';
import { readRss } from './rss.js';
import type { RunningServer } from './targets.js';

export const idleDatabases = ['postgres', 'pglite'] as const;
export type IdleDatabase = (typeof idleDatabases)[number];

/** The budgets of issue 40, in MB. */
export const idleBudgetMb: Record<IdleDatabase, number> = { postgres: 180, pglite: 250 };

/** How long a fresh server is left alone before its memory is read (start-up work settles, timers run once). */
const settleMs = 5_000;

export interface IdleMemory {
  round: number;
  database: IdleDatabase;
  rssMb: number;
}

/** The RSS of `server`, freshly started and not yet asked anything but /healthz, after `settleMs`. */
export async function idleMemory(server: RunningServer, database: IdleDatabase, round: number): Promise<IdleMemory> {
  await sleep(settleMs);
  return { round, database, rssMb: (await readRss(server.pid)).rssMb };
}

export function idleGoals(readings: readonly IdleMemory[]): Goal[] {
  return idleDatabases.flatMap((database) => {
    const of = readings.filter((r) => r.database === database);
    if (!of.length) return [];
    const value = Math.max(...of.map((r) => r.rssMb));
    const threshold = idleBudgetMb[database];
    const shown = `${value.toFixed(0)} MB (${of.map((r) => r.rssMb.toFixed(0)).join(', ')})`;
    return [{ text: `a fresh server idles at ≤ ${threshold} MB RSS on ${database === 'postgres' ? 'PostgreSQL' : 'PGlite'} (largest of the rounds)`, threshold, value, shown, pass: value <= threshold, kind: 'performance' as const }];
  });
}
