// S9, the scheduled-actions queue on PostgreSQL: 10,000 due no-op actions (`social:refresh-tokens`,
// which completes without side effects while no token provider is configured) seeded in SQL as the
// database owner, a tenth of them in 50 lock groups, then K concurrent callers call
// GET /api/v1/cron/process (batch size 100) until none of them is pending or running. Measured: wall
// time from the first call to drained (actions/s). Checked in SQL, hard failures of the run: every
// action completed exactly once (attempts = 1: no duplicate; none pending, running or failed: none
// lost) and no two actions of a lock group with overlapping [startedAt, completedAt].
import type pg from 'pg';
import { withClient } from './database.js';

export const queueActions = 10_000;
export const queueBatchSize = 100;
export const queueCallers = [1, 2, 4] as const;
const lockGroups = 50;
/** Every `groupedEvery`-th action has a lock group (10%). */
const groupedEvery = 10;
/** The cheapest built-in type: a no-op without token providers. */
const actionType = 'social:refresh-tokens';
/** At least 32 characters (the route refuses shorter secrets). */
export const queueCronSecret = 'bench-cron-secret-0123456789abcdef-0123456789';
/** What the product needs to process the queue through the cron route, in batches of 100, only when called. */
export const queueEnv = { CRON_SECRET: queueCronSecret, SCHEDULED_ACTIONS_BATCH_SIZE: String(queueBatchSize), CRON_INTERVAL_SECONDS: undefined };
/** A drain slower than this is a failure, not a measurement. */
const maxDrainMs = 300_000;

export interface QueueCheck {
  round: number;
  callers: number;
  actions: number;
  groupedActions: number;
  seconds: number;
  actionsPerSec: number;
  /** Cron calls made, all callers together. */
  calls: number;
  /** Sum of the calls' `succeeded` (actions of other origin included, if any were due). */
  succeeded: number;
  /** Attempts the calls reported failed (a sample is logged). */
  failedAttempts: number;
  failures: string[];
  /** Seeded actions that ran more than once (attempts > 1). */
  duplicates: number;
  /** Seeded actions not completed (pending, running, failed or missing). */
  lost: number;
  /** Pairs of actions of one lock group whose [startedAt, completedAt] overlap. */
  overlaps: number;
}

interface BatchAnswer {
  processed: number;
  succeeded: number;
  failed: number;
  errors: { actionId: string; error: string }[];
}

/** Deterministic ids, distinct per round and K, so the checks look at exactly the seeded rows. */
const idsSql = `md5('bench-queue-' || $1::int || '-' || $2::int || '-' || i)::uuid`;

async function seed(url: string, round: number, callers: number): Promise<void> {
  await withClient(url, async (c) => {
    // Due for an hour, one millisecond apart: the claim's order (scheduledAt, id) is the seeding order.
    await c.query(
      `INSERT INTO scheduled_actions (id, action_type, status, payload, scheduled_at, slot_at, attempts, max_retries, lock_group, created_at, updated_at)
       SELECT ${idsSql}, $3, 'pending', '{}'::jsonb, t, t, 0, 3,
              CASE WHEN i % ${groupedEvery} = 0 THEN 'bench-queue-' || ((i / ${groupedEvery}) % ${lockGroups}) END, now(), now()
         FROM generate_series(1, $4::int) AS i, LATERAL (SELECT now() - interval '1 hour' + i * interval '1 millisecond' AS t) s`,
      [round, callers, actionType, queueActions],
    );
    await c.query('ANALYZE scheduled_actions');
  });
}

const seededWhere = `id IN (SELECT ${idsSql} FROM generate_series(1, $3::int) AS i)`;

async function outstanding(c: pg.Client, round: number, callers: number): Promise<number> {
  const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM scheduled_actions WHERE ${seededWhere} AND (status = 'running' OR (status = 'pending' AND scheduled_at <= now()))`, [round, callers, queueActions]);
  return rows[0]!.n;
}

async function callOnce(baseUrl: string): Promise<BatchAnswer> {
  const response = await fetch(`${baseUrl}/api/v1/cron/process`, { headers: { 'x-cron-secret': queueCronSecret } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`cron call answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as BatchAnswer;
}

/** K callers calling the cron route until no seeded action is pending or running; returns the wall time and the calls' totals. */
async function drain(url: string, baseUrl: string, round: number, callers: number): Promise<{ ms: number; calls: number; succeeded: number; failedAttempts: number; failures: string[] }> {
  return withClient(url, async (c) => {
    let calls = 0;
    let succeeded = 0;
    let failedAttempts = 0;
    const failures: string[] = [];
    let done = false;
    let checking = Promise.resolve(0);
    const started = performance.now();
    const caller = async () => {
      while (!done) {
        if (performance.now() - started > maxDrainMs) throw new Error(`queue not drained after ${maxDrainMs / 1000} s`);
        const answer = await callOnce(baseUrl);
        calls++;
        succeeded += answer.succeeded;
        failedAttempts += answer.failed;
        for (const e of answer.errors) if (failures.length < 5) failures.push(`${e.actionId}: ${e.error}`);
        // Nothing claimed: drained, or what is left is in lock groups running elsewhere.
        if (answer.processed === 0) {
          // One query at a time on the shared connection.
          const left = (checking = checking.then(() => outstanding(c, round, callers)));
          if ((await left) === 0) done = true;
          else await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }
    };
    await Promise.all(Array.from({ length: callers }, caller));
    return { ms: performance.now() - started, calls, succeeded, failedAttempts, failures };
  });
}

async function check(url: string, round: number, callers: number): Promise<Pick<QueueCheck, 'duplicates' | 'lost' | 'overlaps' | 'groupedActions'>> {
  return withClient(url, async (c) => {
    const params = [round, callers, queueActions];
    const { rows } = await c.query<{ duplicates: number; lost: number; grouped: number }>(
      `WITH seeded AS (SELECT ${idsSql} AS id FROM generate_series(1, $3::int) AS i)
       SELECT count(*) FILTER (WHERE a.attempts > 1)::int AS duplicates,
              count(*) FILTER (WHERE a.id IS NULL OR a.status <> 'completed' OR a.attempts <> 1 OR a.started_at IS NULL OR a.completed_at IS NULL)::int AS lost,
              count(a.lock_group)::int AS grouped
         FROM seeded s LEFT JOIN scheduled_actions a ON a.id = s.id`,
      params,
    );
    // Strict: one action may start in the millisecond the previous one of its group completed.
    const overlap = await c.query<{ overlaps: number }>(
      `WITH g AS (SELECT id, lock_group, started_at, completed_at FROM scheduled_actions WHERE ${seededWhere} AND lock_group IS NOT NULL)
       SELECT count(*)::int AS overlaps FROM g a JOIN g b ON a.lock_group = b.lock_group AND a.id < b.id
        WHERE a.started_at < b.completed_at AND b.started_at < a.completed_at`,
      params,
    );
    const r = rows[0]!;
    return { duplicates: r.duplicates, lost: r.lost, groupedActions: r.grouped, overlaps: overlap.rows[0]!.overlaps };
  });
}

async function remove(url: string, round: number, callers: number): Promise<void> {
  await withClient(url, (c) => c.query(`DELETE FROM scheduled_actions WHERE ${seededWhere}`, [round, callers, queueActions]));
}

/** One drain with `callers` concurrent callers against a product started with `queueEnv`; the seeded rows are deleted afterwards. */
export async function measureQueue(url: string, baseUrl: string, round: number, callers: number): Promise<QueueCheck> {
  await remove(url, round, callers);
  await seed(url, round, callers);
  try {
    const drained = await drain(url, baseUrl, round, callers);
    const checks = await check(url, round, callers);
    const seconds = drained.ms / 1000;
    return { round, callers, actions: queueActions, seconds, actionsPerSec: queueActions / seconds, calls: drained.calls, succeeded: drained.succeeded, failedAttempts: drained.failedAttempts, failures: drained.failures, ...checks };
  } finally {
    await remove(url, round, callers);
  }
}
