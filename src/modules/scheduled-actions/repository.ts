// The queue in SQL: scheduling (through app_schedule_action, which deduplicates), the claim, reclaiming
// actions a dead process left running, settling an attempt (and creating the next occurrence in the
// same statement), retention, and the developer endpoints' reads and changes. Every timestamp is the
// application's clock, passed in. The functions take the database they run on: a request's RLS
// transaction (developers), a caller's transaction (scheduling with an entity change), or named
// system access (the processor).
import { Prisma } from '../../generated/prisma/client.js';
import { postgresCode } from '../../db/errors.js';
import type { Tx } from '../../db/request-db.js';

/** One row as the module reads it (statuses and intervals as stored; the service narrows them). */
export interface ActionRow {
  id: string;
  actionType: string;
  status: string;
  payload: unknown;
  teamId: string | null;
  scheduledAt: Date;
  slotAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  errorMessage: string | null;
  result: unknown;
  attempts: number;
  maxRetries: number;
  recurringInterval: string | null;
  recurrenceType: string | null;
  lockGroup: string | null;
  nextActionId: string | null;
  /** The user an action created through the API runs as; null for the platform's own work. */
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const columns = Prisma.sql`a.id::text AS id, a.action_type AS "actionType", a.status, a.payload, a.team_id::text AS "teamId",
  a.scheduled_at AS "scheduledAt", a.slot_at AS "slotAt", a.started_at AS "startedAt", a.completed_at AS "completedAt",
  a.error_message AS "errorMessage", a.result, a.attempts, a.max_retries AS "maxRetries",
  a.recurring_interval AS "recurringInterval", a.recurrence_type AS "recurrenceType", a.lock_group AS "lockGroup",
  a.next_action_id::text AS "nextActionId", a.created_by::text AS "createdBy", a.created_at AS "createdAt", a.updated_at AS "updatedAt"`;

export interface NewAction {
  actionType: string;
  payload: Record<string, unknown>;
  teamId: string | null;
  scheduledAt: Date;
  maxRetries: number;
  recurringInterval: string | null;
  recurrenceType: string | null;
  lockGroup: string | null;
  /** null: always a new row (recurring actions); else merge into a pending action about the same entity within this window. */
  dedupWindowMs: number | null;
  /** Payload keys that must also be equal for a merge (the handler's dedupKeys). */
  dedupKeys: readonly string[];
  /** The user the action runs as (created through the API); null: the platform's own work. */
  createdBy: string | null;
}

/** Why the database refused to schedule: the team does not exist, or a request's caller may not write it. */
export type ScheduleRefusal = 'unknown-team' | 'team-not-writable';

/** Inserts an action, or merges it into a pending one about the same entity; the id either way. */
export async function scheduleRow(db: Tx, action: NewAction, now: Date): Promise<{ id: string; deduplicated: boolean } | { refused: ScheduleRefusal }> {
  try {
    const rows = await db.$queryRaw<{ id: string; deduplicated: boolean }[]>`
      SELECT action_id::text AS id, deduplicated FROM app_schedule_action(
        ${action.actionType}, ${JSON.stringify(action.payload)}::jsonb, ${action.teamId}::uuid, ${action.scheduledAt}::timestamptz,
        ${action.maxRetries}::int, ${action.recurringInterval}::text, ${action.recurrenceType}::text, ${action.lockGroup}::text,
        ${action.dedupWindowMs}::int, ${[...action.dedupKeys]}::text[], ${action.createdBy}::uuid, ${now}::timestamptz)`;
    return rows[0]!;
  } catch (error) {
    const code = postgresCode(error);
    if (code === '23503') return { refused: 'unknown-team' };
    if (code === '42501') return { refused: 'team-not-writable' };
    throw error;
  }
}

/** Whether a claim failed on the one-running-action-per-lock-group index (the backstop of the claim). */
export function isLockGroupConflict(error: unknown): boolean {
  return postgresCode(error) === '23505';
}

/**
 * The claim, in one statement: due pending actions in `scheduled_at` order, at most `limit`, each
 * locked (`FOR UPDATE SKIP LOCKED`: rows another claimer holds are passed over, never waited for)
 * and marked running with `attempts + 1`. A lock-grouped action is taken only when it is the earliest
 * due action of its group (one per group per batch) and app_claim_lock_group agrees: the group's
 * advisory lock is free and, seen with a fresh snapshot, no action of the group is running. The
 * partial unique index on running lock groups backs this up.
 */
export function claimDue(db: Tx, now: Date, limit: number): Promise<ActionRow[]> {
  return db.$queryRaw<ActionRow[]>`
    WITH picked AS (
      SELECT c.id FROM scheduled_actions c
       WHERE c.status = 'pending' AND c.scheduled_at <= ${now}::timestamptz
         AND (c.lock_group IS NULL OR (
              NOT EXISTS (SELECT 1 FROM scheduled_actions e
                           WHERE e.lock_group = c.lock_group AND e.status = 'pending' AND e.scheduled_at <= ${now}::timestamptz
                             AND (e.scheduled_at, e.id) < (c.scheduled_at, c.id))
              AND app_claim_lock_group(c.lock_group)))
       ORDER BY c.scheduled_at, c.id
       LIMIT ${limit}
       FOR UPDATE OF c SKIP LOCKED
    )
    UPDATE scheduled_actions a
       SET status = 'running', started_at = ${now}::timestamptz, attempts = a.attempts + 1, updated_at = ${now}::timestamptz
      FROM picked
     WHERE a.id = picked.id
    RETURNING ${columns}`;
}

/**
 * Running actions whose process must have died: started longer ago than their type's timeout plus
 * the grace period. Locked (SKIP LOCKED) until the caller's transaction settles them.
 */
export function lockStale(tx: Tx, now: Date, timeouts: { defaultMs: number; byType: Record<string, number> }, graceMs: number, limit: number): Promise<ActionRow[]> {
  const types = Object.keys(timeouts.byType);
  const ms = types.map((type) => timeouts.byType[type]!);
  return tx.$queryRaw<ActionRow[]>`
    SELECT ${columns} FROM scheduled_actions a
      LEFT JOIN unnest(${types}::text[], ${ms}::int[]) AS t(action_type, timeout_ms) ON t.action_type = a.action_type
     WHERE a.status = 'running'
       AND a.started_at < ${now}::timestamptz - (coalesce(t.timeout_ms, ${timeouts.defaultMs}::int) + ${graceMs}::int) * interval '1 millisecond'
     ORDER BY a.started_at
     LIMIT ${limit}
       FOR UPDATE OF a SKIP LOCKED`;
}

export interface Settlement {
  id: string;
  /** The attempt being settled: a row that has since been reclaimed (or retried) is left alone. */
  attempts: number;
  status: 'pending' | 'completed' | 'failed';
  /** The retry's due time (pending); unchanged otherwise. */
  scheduledAt: Date | null;
  completedAt: Date | null;
  errorMessage: string | null;
  result: Record<string, unknown> | null;
  /** The next occurrence to create (recurring actions that ended their occurrence), unless this row already made one. */
  next: { id: string; at: Date } | null;
}

/** Records an attempt's outcome and, in the same statement, the next occurrence; false when the attempt was no longer running. */
export async function settle(db: Tx, s: Settlement, now: Date): Promise<boolean> {
  const nextId = s.next?.id ?? null;
  const [row] = await db.$queryRaw<{ settled: number }[]>`
    WITH settled AS (
      UPDATE scheduled_actions
         SET status = ${s.status}, scheduled_at = coalesce(${s.scheduledAt}::timestamptz, scheduled_at),
             completed_at = ${s.completedAt}::timestamptz, error_message = ${s.errorMessage}::text,
             result = ${s.result === null ? null : JSON.stringify(s.result)}::jsonb, updated_at = ${now}::timestamptz,
             next_action_id = CASE WHEN next_action_id IS NULL THEN ${nextId}::uuid ELSE next_action_id END
       WHERE id = ${s.id}::uuid AND status = 'running' AND attempts = ${s.attempts}::int
      RETURNING action_type, payload, team_id, max_retries, recurring_interval, recurrence_type, lock_group, next_action_id, created_by
    ), spawned AS (
      INSERT INTO scheduled_actions (id, action_type, payload, team_id, scheduled_at, slot_at, max_retries,
                                     recurring_interval, recurrence_type, lock_group, created_by, created_at, updated_at)
      SELECT next_action_id, action_type, payload, team_id, ${s.next?.at ?? null}::timestamptz, ${s.next?.at ?? null}::timestamptz, max_retries,
             recurring_interval, recurrence_type, lock_group, created_by, ${now}::timestamptz, ${now}::timestamptz
        FROM settled WHERE next_action_id = ${nextId}::uuid
      RETURNING id
    )
    SELECT (SELECT count(*) FROM settled)::int AS settled`;
  return (row?.settled ?? 0) > 0;
}

/** Deletes up to `limit` completed or failed actions last changed before `cutoff`; how many. */
export function purgeFinished(db: Tx, cutoff: Date, limit: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM scheduled_actions WHERE id IN (
      SELECT id FROM scheduled_actions
       WHERE status IN ('completed', 'failed') AND updated_at < ${cutoff}::timestamptz
       LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
}

// ---- developer endpoints (through the request's RLS transaction: developers only) -------------

const view = {
  id: true, actionType: true, status: true, payload: true, teamId: true, scheduledAt: true, slotAt: true, startedAt: true,
  completedAt: true, errorMessage: true, result: true, attempts: true, maxRetries: true, recurringInterval: true,
  recurrenceType: true, lockGroup: true, nextActionId: true, createdBy: true, createdAt: true, updatedAt: true,
} as const;

/** Which actions a caller reaches: every one (superadmins), or those of these teams and those with no team. */
export type Reach = { allTeams: true } | { allTeams: false; teamIds: readonly string[] };

function reachWhere(reach: Reach) {
  return reach.allTeams ? {} : { OR: [{ teamId: null }, { teamId: { in: [...reach.teamIds] } }] };
}

/** A page of the actions within `reach`, latest scheduled first, and how many match. */
export async function listActions(tx: Tx, reach: Reach, filter: { status?: string; actionType?: string }, skip: number, take: number): Promise<{ rows: ActionRow[]; total: number }> {
  const where = { ...reachWhere(reach), ...(filter.status ? { status: filter.status } : {}), ...(filter.actionType ? { actionType: filter.actionType } : {}) };
  const [rows, total] = [await tx.scheduledAction.findMany({ where, orderBy: [{ scheduledAt: 'desc' }, { id: 'desc' }], skip, take, select: view }), await tx.scheduledAction.count({ where })];
  return { rows, total };
}

/** One action within `reach`, or null (missing and out of reach look the same). */
export function findAction(tx: Tx, reach: Reach, id: string): Promise<ActionRow | null> {
  return tx.scheduledAction.findFirst({ where: { id, ...reachWhere(reach) }, select: view });
}

/** failed → pending, attempts reset, due now; false when the action is not failed. */
export async function retryFailed(tx: Tx, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.scheduledAction.updateMany({ where: { id, status: 'failed' }, data: { status: 'pending', attempts: 0, scheduledAt: now, updatedAt: now } });
  return count > 0;
}

/** pending → failed with `message`; false when the action is not pending. */
export async function cancelPending(db: Tx, id: string, message: string, now: Date): Promise<boolean> {
  const { count } = await db.scheduledAction.updateMany({ where: { id, status: 'pending' }, data: { status: 'failed', errorMessage: message, updatedAt: now } });
  return count > 0;
}

/** Every pending action created by the user → failed with `message`; how many. */
export async function cancelPendingCreatedBy(db: Tx, userId: string, message: string, now: Date): Promise<number> {
  const { count } = await db.scheduledAction.updateMany({ where: { createdBy: userId, status: 'pending' }, data: { status: 'failed', errorMessage: message, updatedAt: now } });
  return count;
}

// ---- the creator of an action, at run time (named system access: the processor) ----------------

/** A creator's global role and team roles as they are now; null when the user no longer exists. */
export async function creatorStanding(db: Tx, userId: string): Promise<{ role: string; disabled: boolean; teams: { teamId: string; role: string }[] } | null> {
  const [row] = await db.$queryRaw<{ role: string; disabled: boolean; teams: { teamId: string; role: string }[] }[]>`
    SELECT u.role, u.disabled_at IS NOT NULL AS disabled,
           coalesce(json_agg(json_build_object('teamId', m.team_id, 'role', m.role)) FILTER (WHERE m.team_id IS NOT NULL), '[]'::json) AS teams
      FROM users u LEFT JOIN team_members m ON m.user_id = u.id
     WHERE u.id = ${userId}::uuid
     GROUP BY u.id, u.role, u.disabled_at`;
  return row ?? null;
}
