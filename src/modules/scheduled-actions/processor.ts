// One batch of the queue (the contract's 7 steps): reclaim actions a dead process left running, claim
// due actions (one statement: running, attempts + 1, one per lock group), run their handlers concurrently under their timeouts, settle each (completed, retry with
// linear backoff, or failed; the next occurrence of a recurring action in the same statement), then
// delete old finished actions in bounded chunks. Safe to run from any number of callers and instances
// at once: the database decides who runs what (see repository.ts, claimDue).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { asUser as asUserWith, noEvictions } from '../../auth/user-scope.js';
import type { Config } from '../../config/config.js';
import type { Database } from '../../db/database.js';
import { systemDb, type SystemDb } from '../../db/request-db.js';
import type { Services } from '../../shared/services.js';
import { mayRetry, retryAt } from './backoff.js';
import { creatorRefusal, loadCreator, type AsUser, type Creator } from './creator.js';
import type { BatchReport, RecurrenceType, RecurringInterval } from './interfaces.js';
import { nextOccurrence } from './recurrence.js';
import { actionHandlersKey, type ActionHandlers } from './registry.js';
import * as repo from './repository.js';
import { runHandler, type Outcome } from './run-handler.js';

export interface QueueDeps {
  /** Named system access: processing is not done on behalf of a caller. */
  system: SystemDb;
  /** Work with a request scope of a user: actions created through the API run as their creator. */
  asUser: AsUser;
  /** The app's configuration: the queue reads `scheduledActions`; handlers get all of it. */
  config: Config;
  now(): Date;
  log: Logger;
  /** The services of the app's modules: its action handlers, and what handlers use. */
  services: Services;
}

/** The queue of an app: batches run as named system work; actions created through the API run as their creator (creator.ts). */
export function queueDeps(database: Database, config: Config, now: () => Date, log: Logger, services: Services): QueueDeps {
  // Evictions of cached keys are the server's (through its broadcast); an action's entity writes make none.
  const asUser: AsUser = (userId, work) => asUserWith({ database, config, services, logger: log, agent: 'scheduled-actions', now }, { id: userId }, noEvictions, work);
  return { system: systemDb(database, 'scheduled actions: processing'), asUser, config, now, log, services };
}

/** Stale running actions settled per batch, and the retention's chunk size and chunks per batch. */
const reclaimLimit = 100;
const purgeChunk = 500;
const purgeChunksPerBatch = 10;

/** The handler timeout of an action type: SCHEDULED_ACTIONS_TIMEOUTS, else the handler's own, else the default. */
export function timeoutOf(config: Config['scheduledActions'], handlers: ActionHandlers, actionType: string): number {
  return config.timeouts[actionType] ?? handlers.of(actionType)?.timeoutMs ?? config.timeoutMs;
}

/** What an attempt's outcome makes of the action (pure: the clock and the next id are inputs). */
export function settlementFor(action: repo.ActionRow, outcome: Outcome, now: Date, retryBaseMs: number, nextId: string = randomUUID()): repo.Settlement {
  const base = { id: action.id, attempts: action.attempts, scheduledAt: null, completedAt: null, result: null };
  const next = action.recurringInterval
    ? { id: nextId, at: nextOccurrence((action.recurrenceType ?? 'fixed') as RecurrenceType, action.recurringInterval as RecurringInterval, action.slotAt, now, now) }
    : null;
  if (outcome.ok) return { ...base, status: 'completed', completedAt: now, errorMessage: null, result: outcome.result, next };
  if (mayRetry(action.attempts, action.maxRetries)) return { ...base, status: 'pending', scheduledAt: retryAt(now, action.attempts, retryBaseMs), errorMessage: outcome.error, next: null };
  return { ...base, status: 'failed', errorMessage: outcome.error, next };
}

/** Runs one batch; the cron route's answer. */
export async function processBatch(deps: QueueDeps): Promise<BatchReport> {
  const report: BatchReport = { processed: 0, succeeded: 0, failed: 0, errors: [] };
  await reclaimStale(deps, report);
  const claimed = await claim(deps);
  await Promise.all(claimed.map((action) => execute(deps, action, report)));
  await purgeOld(deps);
  return report;
}

function tally(report: BatchReport, actionId: string, outcome: Outcome): void {
  report.processed += 1;
  if (outcome.ok) report.succeeded += 1;
  else {
    report.failed += 1;
    report.errors.push({ actionId, error: outcome.error });
  }
}

/** Crash safety: an action running longer than its timeout plus the grace period is a failed attempt. */
async function reclaimStale(deps: QueueDeps, report: BatchReport): Promise<void> {
  const config = deps.config.scheduledActions;
  const handlers = deps.services.get(actionHandlersKey);
  const byType = Object.fromEntries(handlers.types().map((type) => [type, timeoutOf(config, handlers, type)]));
  const reclaimed = await deps.system.prisma.$transaction(async (tx) => {
    const now = deps.now();
    const stale = await repo.lockStale(tx, now, { defaultMs: config.timeoutMs, byType: { ...config.timeouts, ...byType } }, config.reclaimGraceMs, reclaimLimit);
    const settled: { id: string; outcome: Outcome }[] = [];
    for (const action of stale) {
      const limit = timeoutOf(config, handlers, action.actionType);
      const outcome: Outcome = { ok: false, error: `Reclaimed: running since ${action.startedAt?.toISOString()}, longer than its ${limit}ms timeout plus ${config.reclaimGraceMs}ms grace (its process stopped)` };
      if (await repo.settle(tx, settlementFor(action, outcome, now, config.retryBaseMs), now)) settled.push({ id: action.id, outcome });
    }
    return settled;
  });
  for (const { id, outcome } of reclaimed) {
    deps.log.warn({ actionId: id }, 'scheduled action reclaimed from a stopped process');
    tally(report, id, outcome);
  }
}

/** The claim; one that met the lock-group index (the backstop, never expected) is made again, at most three times in all. */
async function claim(deps: QueueDeps): Promise<repo.ActionRow[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await repo.claimDue(deps.system.prisma, deps.now(), deps.config.scheduledActions.batchSize);
    } catch (error) {
      if (!repo.isLockGroupConflict(error) || attempt === 3) throw error;
      deps.log.warn({ attempt }, 'scheduled actions claim met a running lock group; claiming again');
    }
  }
}

async function execute(deps: QueueDeps, action: repo.ActionRow, report: BatchReport): Promise<void> {
  const log = deps.log.child({ actionId: action.id, actionType: action.actionType });
  const handlers = deps.services.get(actionHandlersKey);
  const timeoutMs = timeoutOf(deps.config.scheduledActions, handlers, action.actionType);
  const outcome = await withCreator(deps, action, (creator) =>
    runHandler(handlers.of(action.actionType), action.actionType, action.payload, { action, creator, system: deps.system, now: deps.now, log, config: deps.config, services: deps.services }, timeoutMs),
  );
  try {
    const now = deps.now();
    const settled = await repo.settle(deps.system.prisma, settlementFor(action, outcome, now, deps.config.scheduledActions.retryBaseMs), now);
    if (!settled) log.warn('scheduled action was reclaimed before its outcome was recorded; outcome dropped');
    if (!outcome.ok) log.warn({ error: outcome.error, attempts: action.attempts, maxRetries: action.maxRetries }, 'scheduled action failed');
    tally(report, action.id, outcome);
  } catch (error) {
    log.error({ err: error }, 'could not record a scheduled action outcome; it will be reclaimed');
    tally(report, action.id, { ok: false, error: 'The outcome could not be recorded; the action will be reclaimed' });
  }
}

/**
 * Runs `work` with the action's creator as they stand now (null for the platform's own actions). An
 * action whose creator is gone, or may no longer write its team, fails without running.
 */
async function withCreator(deps: QueueDeps, action: repo.ActionRow, work: (creator: Creator | null) => Promise<Outcome>): Promise<Outcome> {
  if (!action.createdBy) return work(null);
  let creator: Creator | null;
  try {
    creator = await loadCreator(deps.system.prisma, action.createdBy, deps.asUser);
  } catch (error) {
    deps.log.error({ err: error, actionId: action.id }, 'could not read a scheduled action creator');
    return { ok: false, error: 'The action’s creator could not be read; it will be tried again' };
  }
  const refusal = creatorRefusal(creator, action.createdBy, action.teamId);
  return refusal ? { ok: false, error: refusal } : work(creator);
}

/** Retention: completed and failed actions older than retentionDays, in bounded chunks. */
async function purgeOld(deps: QueueDeps): Promise<void> {
  const cutoff = new Date(deps.now().getTime() - deps.config.scheduledActions.retentionMs);
  try {
    for (let chunk = 0; chunk < purgeChunksPerBatch; chunk++) {
      if ((await repo.purgeFinished(deps.system.prisma, cutoff, purgeChunk)) < purgeChunk) return;
    }
  } catch (error) {
    deps.log.error({ err: error }, 'scheduled actions retention failed; the next batch tries again');
  }
}
