// The words of the scheduled-actions module. An *action* is a unit of background work of one *action
// type* with a *payload*; a *handler* runs it. The *queue* is the scheduled_actions table; a *batch* is
// one processing call (the cron route or the built-in scheduler): it *reclaims* actions a dead process
// left running, *claims* due ones (running, attempts + 1), runs their handlers under a timeout and
// *settles* each: completed, back to pending with backoff (a *retry*), or failed. A *lock group* runs
// one action at a time. A *recurring* action ends its *occurrence* and a new row holds the next one.
// An action created through the API has a *creator*: it runs with the creator's authority as it
// stands when it runs (creator.ts); the platform's own actions have none and are system work.
import type { z } from 'zod';
import type { Logger } from 'pino';
import type { AppError } from '../../shared/errors.js';
import type { Config } from '../../config/config.js';
import type { SystemDb } from '../../db/request-db.js';
import type { Creator, CreatorStanding } from './creator.js';
import type { Services } from '../../shared/services.js';

export const actionStatuses = ['pending', 'running', 'completed', 'failed'] as const;
export type ActionStatus = (typeof actionStatuses)[number];

export const recurringIntervals = ['every-30-minutes', 'hourly', 'daily', 'weekly'] as const;
export type RecurringInterval = (typeof recurringIntervals)[number];

/** `fixed`: the next slot on the original grid after now; `rolling`: completion time + interval. */
export const recurrenceTypes = ['fixed', 'rolling'] as const;
export type RecurrenceType = (typeof recurrenceTypes)[number];

/** One row of the queue, as services and the API see it. */
export interface ScheduledAction {
  id: string;
  actionType: string;
  status: ActionStatus;
  payload: Record<string, unknown>;
  teamId: string | null;
  scheduledAt: Date;
  /** The occurrence's slot on its recurrence grid: scheduledAt at creation; retries move scheduledAt, not this. */
  slotAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  errorMessage: string | null;
  /** What the handler reported on success. */
  result: Record<string, unknown> | null;
  attempts: number;
  maxRetries: number;
  recurringInterval: RecurringInterval | null;
  recurrenceType: RecurrenceType | null;
  lockGroup: string | null;
  /** The row of the next occurrence, once this recurring action has ended its occurrence. */
  nextActionId: string | null;
  /** Who created it through the API (it runs as them); null for the platform's own work. */
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a handler receives besides its parsed payload. */
export interface HandlerContext {
  action: Pick<ScheduledAction, 'id' | 'actionType' | 'teamId' | 'attempts' | 'maxRetries' | 'scheduledAt' | 'lockGroup' | 'createdBy'>;
  /**
   * The creator of an action created through the API, as they stand now (role, teams) and a way to
   * work through RLS as them: a handler that acts on data acts as the creator (a superadmin acts
   * across teams). Null: the platform's own action, system work.
   */
  creator: Creator | null;
  /** Aborted when the handler's timeout passes: stop work and return. */
  signal: AbortSignal;
  /** All-rows database access, named for the queue: handlers are system work. */
  system: SystemDb;
  now(): Date;
  log: Logger;
  /** The app's configuration (settings of the module a handler serves, and what scheduling a follow-up needs). */
  config: Config;
  /** The services of the app's modules (its action handlers, for a follow-up; media storage). */
  services: Services;
}

/** A handler's report on success, kept in the action's `result`. */
export type HandlerResult = Record<string, unknown> | void;

/** One action type: its payload schema and what runs it. Throwing (or timing out) fails the attempt. */
export interface ActionHandler<P = unknown> {
  actionType: string;
  payload: z.ZodType<P>;
  /** Default timeout of this type; SCHEDULED_ACTIONS_TIMEOUTS overrides it. */
  timeoutMs?: number;
  /**
   * Payload keys that must also be equal for scheduleAction to merge two actions about one entity
   * (beyond entityType and entityId): `webhook:send` names `eventType`, so a `created` is never
   * swallowed by the `updated` that follows it.
   */
  dedupKeys?: readonly string[];
  /**
   * Why `creator` may not create this action through the API (an AppError: 400, 403), or null. The
   * queue has already checked that a team's action has a creator who may write the team; this adds
   * what the type needs (content:publish: the entity's update scope; webhook:send: a team the creator
   * manages). run() must check the creator's authority again: it may have changed since.
   */
  refuseCreation?(payload: P, creator: CreatorStanding, teamId: string | null): AppError | null;
  /**
   * 'active': created through the API without a teamId, the action is for the creator's active team
   * (webhook:send: endpoints belong to a team), checked as if the caller had named it.
   */
  teamDefault?: 'active';
  run(payload: P, ctx: HandlerContext): Promise<HandlerResult>;
}

/** Options of scheduleAction and scheduleRecurringAction (contract names). */
export interface ScheduleOptions {
  /** Default: now. */
  scheduledAt?: Date;
  teamId?: string | null;
  recurringInterval?: RecurringInterval | null;
  /** Total executions before the action fails; default 3. */
  maxRetries?: number;
  lockGroup?: string | null;
  /** Default `fixed`. */
  recurrenceType?: RecurrenceType;
}

/** The outcome of one batch: the cron route's answer. */
export interface BatchReport {
  processed: number;
  succeeded: number;
  failed: number;
  errors: { actionId: string; error: string }[];
}
