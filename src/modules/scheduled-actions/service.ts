// Scheduled actions: the in-process interface (scheduleAction, scheduleRecurringAction,
// cancelScheduledAction), usable inside a caller's transaction, and the developer operations behind
// /api/v1/devtools/scheduled-actions and their GraphQL twins. Their fields require the developer (or
// superadmin) role and a `scheduled-actions` scope (schema.ts); here: developers reach the actions of
// their teams and those with no team, superadmins every action (RLS enforces the same), and viewers of
// a team may not change its actions. An action created through them runs as its creator (creator.ts).
import type { AuthenticatedActor } from '../../auth/actor.js';
import type { Tx } from '../../db/request-db.js';
import { AppError, forbidden, unauthenticated } from '../../shared/errors.js';
import { paginationOf, type Pagination } from '../../shared/pagination.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { isUuid, parseInput } from '../../shared/validation.js';
import type { ActionPayloads } from './handlers/built-in.js';
import { actsAcrossTeams, mayWriteTeam, type CreatorStanding } from './creator.js';
import { scheduleOptions, type CreateActionInput, type ListActionsInput } from './inputs.js';
import type { ActionStatus, RecurrenceType, RecurringInterval, ScheduledAction, ScheduleOptions } from './interfaces.js';
import { actionHandlersKey, type ActionHandlers } from './registry.js';
import * as repo from './repository.js';

/** What scheduling needs of its caller: a request's scope, or the processor's (no request). */
export type QueueScope = Pick<RequestScope, 'system' | 'now' | 'config' | 'services'>;

/** The payload type of a built-in action type; any object for types registered elsewhere. */
export type PayloadOf<T extends string> = T extends keyof ActionPayloads ? ActionPayloads[T] : Record<string, unknown>;

/** Scheduling options, plus the transaction to schedule in (an entity change and its event commit together). */
export interface InTransaction {
  /** The caller's transaction (a request's RLS transaction or a system one); default: named system access. */
  tx?: Tx;
}

export const cancelledMessage = 'Cancelled';

function databaseOf(scope: QueueScope, options: InTransaction): Tx {
  return options.tx ?? scope.system('scheduled actions: scheduling').prisma;
}

/** Why `creator` may not create an action of `handler`'s type for `teamId` through the API; null when they may. */
function creationRefusal(creator: CreatorStanding, handler: NonNullable<ReturnType<ActionHandlers['of']>>, payload: unknown, teamId: string | null): AppError | null {
  if (teamId && !mayWriteTeam(creator, teamId)) {
    const member = creator.teams.some((t) => t.teamId === teamId);
    return forbidden(member ? 'Viewers cannot schedule actions for this team' : 'You can schedule actions only for teams you belong to');
  }
  return handler.refuseCreation?.(payload, creator, teamId) ?? null;
}

async function schedule(scope: QueueScope, actionType: string, payload: unknown, options: ScheduleOptions & InTransaction, deduplicate: boolean, creator: CreatorStanding | null = null): Promise<string> {
  const handlers = scope.services.get(actionHandlersKey);
  const handler = handlers.of(actionType);
  if (!handler) throw new AppError('VALIDATION_ERROR', `Unknown action type "${actionType}"`, { registeredActionTypes: handlers.types() });
  const { tx, ...rest } = options;
  const opts = parseInput(scheduleOptions, rest, 'Invalid options');
  const parsed = parseInput(handler.payload, payload, 'Invalid payload') as Record<string, unknown>;
  const refusal = creator && creationRefusal(creator, handler, parsed, opts.teamId ?? null);
  if (refusal) throw refusal;
  const now = scope.now();
  const interval = opts.recurringInterval ?? null;
  const scheduled = await repo.scheduleRow(
    databaseOf(scope, { tx }),
    {
      actionType,
      payload: parsed,
      teamId: opts.teamId ?? null,
      scheduledAt: opts.scheduledAt ?? now,
      maxRetries: opts.maxRetries ?? 3,
      recurringInterval: interval,
      recurrenceType: opts.recurrenceType ?? 'fixed',
      lockGroup: opts.lockGroup ?? null,
      dedupWindowMs: deduplicate ? scope.config.scheduledActions.dedupWindowMs : null,
      dedupKeys: handler.dedupKeys ?? [],
      createdBy: creator?.userId ?? null,
    },
    now,
  );
  if ('refused' in scheduled) {
    if (scheduled.refused === 'unknown-team') throw new AppError('VALIDATION_ERROR', 'Invalid options: teamId names no team', { teamId: 'names no team' });
    throw forbidden('The caller may not schedule actions for this team');
  }
  return scheduled.id;
}

/**
 * Schedules an action; its id. Unknown action types and payloads that do not fit the type's schema
 * are refused (400). Deduplicated: a pending action of the same type about the same entity
 * (payload.entityType and payload.entityId, and the handler's dedupKeys; same team) that has not run
 * yet and is scheduled within the dedup window of this one takes the new payload and keeps its id,
 * which is returned.
 */
export function scheduleAction<T extends string>(scope: QueueScope, actionType: T, payload: PayloadOf<T>, options: ScheduleOptions & InTransaction = {}): Promise<string> {
  return schedule(scope, actionType, payload, options, true);
}

/** Schedules a recurring action: always a new action (no deduplication); its id. */
export function scheduleRecurringAction<T extends string>(scope: QueueScope, actionType: T, payload: PayloadOf<T>, interval: RecurringInterval, options: ScheduleOptions & InTransaction = {}): Promise<string> {
  return schedule(scope, actionType, payload, { ...options, recurringInterval: interval }, false);
}

/** Cancels a pending action (it becomes `failed`, "Cancelled"); false when there is no pending action with that id. */
export async function cancelScheduledAction(scope: QueueScope, actionId: string, options: InTransaction = {}): Promise<boolean> {
  if (!isUuid(actionId)) return false;
  return repo.cancelPending(databaseOf(scope, options), actionId, cancelledMessage, scope.now());
}

/**
 * Cancels every pending action the user created (they run with the creator's authority), in the
 * caller's transaction: an account taken over by the owner of its e-mail runs nothing its maker
 * scheduled. How many.
 */
export function cancelActionsCreatedBy(scope: Pick<QueueScope, 'now'>, tx: Tx, userId: string): Promise<number> {
  return repo.cancelPendingCreatedBy(tx, userId, cancelledMessage, scope.now());
}

/** The contract's in-process interface, bound to a scope: `scheduleAction(actionType, payload, options)` and the rest. */
export function scheduledActions(scope: QueueScope) {
  return {
    scheduleAction: <T extends string>(actionType: T, payload: PayloadOf<T>, options?: ScheduleOptions & InTransaction) => scheduleAction(scope, actionType, payload, options),
    scheduleRecurringAction: <T extends string>(actionType: T, payload: PayloadOf<T>, interval: RecurringInterval, options?: ScheduleOptions & InTransaction) =>
      scheduleRecurringAction(scope, actionType, payload, interval, options),
    cancelScheduledAction: (actionId: string, options?: InTransaction) => cancelScheduledAction(scope, actionId, options),
  };
}

// ---- developer operations --------------------------------------------------------------------

/** The signed-in developer calling (their fields let nobody else through). */
function developer(scope: RequestScope): AuthenticatedActor {
  const { actor } = scope;
  if (actor.kind !== 'user') throw unauthenticated();
  return actor;
}

function standingOf(actor: AuthenticatedActor): CreatorStanding {
  return { userId: actor.userId, role: actor.role, teams: actor.teams, scopes: actor.scopes, via: actor.via };
}

/** Superadmins reach every action; developers those of their teams and those with no team. */
function reachOf(actor: AuthenticatedActor): repo.Reach {
  return actsAcrossTeams(standingOf(actor)) ? { allTeams: true } : { allTeams: false, teamIds: actor.teams.map((t) => t.teamId) };
}

function toAction(row: repo.ActionRow): ScheduledAction {
  return {
    ...row,
    status: row.status as ActionStatus,
    payload: (row.payload ?? {}) as Record<string, unknown>,
    result: (row.result ?? null) as Record<string, unknown> | null,
    recurringInterval: row.recurringInterval as RecurringInterval | null,
    recurrenceType: row.recurrenceType as RecurrenceType | null,
  };
}

export interface ActionList {
  actions: ScheduledAction[];
  pagination: Pagination;
  meta: { registeredActionTypes: string[] };
}

export async function listActions(scope: RequestScope, q: ListActionsInput): Promise<ActionList> {
  const actor = developer(scope);
  const { rows, total } = await repo.listActions(await scope.db.tx(), reachOf(actor), { status: q.status, actionType: q.actionType }, (q.page - 1) * q.limit, q.limit);
  return {
    actions: rows.map(toAction),
    pagination: paginationOf(q.page, q.limit, total),
    meta: { registeredActionTypes: scope.services.get(actionHandlersKey).types() },
  };
}

async function existing(scope: RequestScope, id: string, access: 'read' | 'change'): Promise<repo.ActionRow> {
  const actor = developer(scope);
  const row = isUuid(id) ? await repo.findAction(await scope.db.tx(), reachOf(actor), id) : null;
  if (!row) throw new AppError('NOT_FOUND', 'Scheduled action not found');
  // Retry and cancel change the action: a viewer of its team may see it, not change it.
  if (access === 'change' && row.teamId && !mayWriteTeam(standingOf(actor), row.teamId)) throw forbidden('Viewers cannot retry or cancel this team’s actions');
  return row;
}

export async function getAction(scope: RequestScope, id: string): Promise<ScheduledAction> {
  return toAction(await existing(scope, id, 'read'));
}

/**
 * Creates an action as scheduleAction does (payload checked against the type's schema; deduplicated
 * with the caller's own actions only), recording the caller as its creator: it runs as them.
 */
export async function createAction(scope: RequestScope, body: CreateActionInput): Promise<{ id: string; actionType: string; status: ActionStatus }> {
  const actor = developer(scope);
  const id = await schedule(scope, body.actionType, body.payload, {
    tx: await scope.db.tx(),
    scheduledAt: body.scheduledAt ? new Date(body.scheduledAt) : undefined,
    teamId: body.teamId ?? (scope.services.get(actionHandlersKey).of(body.actionType)?.teamDefault === 'active' ? actor.activeTeamId : null),
    recurringInterval: body.recurringInterval ?? null,
    maxRetries: body.maxRetries ?? undefined,
    lockGroup: body.lockGroup ?? null,
    recurrenceType: body.recurrenceType ?? undefined,
  }, true, standingOf(actor));
  return { id, actionType: body.actionType, status: 'pending' };
}

/** The refusal to retry an action that is not failed (the developer endpoint and the operators' CLI). */
export const notRetriable = (status: string) => new AppError('VALIDATION_ERROR', `Only failed actions can be retried; this one is ${status}`, { status });

/** failed → pending, attempts reset to 0, due now; any other status is 400. */
export async function retryAction(scope: RequestScope, id: string): Promise<{ id: string; status: ActionStatus; attempts: number }> {
  const row = await existing(scope, id, 'change');
  if (!(await repo.retryFailed(await scope.db.tx(), id, scope.now()))) throw notRetriable(row.status);
  return { id, status: 'pending', attempts: 0 };
}

/** Cancels a pending action (→ failed, "Cancelled"); any other status is 400. */
export async function cancelAction(scope: RequestScope, id: string): Promise<{ id: string; status: ActionStatus; attempts: number }> {
  const row = await existing(scope, id, 'change');
  if (!(await repo.cancelPending(await scope.db.tx(), id, cancelledMessage, scope.now()))) {
    throw new AppError('VALIDATION_ERROR', `Only pending actions can be cancelled; this one is ${row.status}`, { status: row.status });
  }
  return { id, status: 'failed', attempts: row.attempts };
}
