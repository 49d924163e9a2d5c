// What an operator does with the queue from the CLI, across every team (named system access, no
// caller): list the actions whose last run failed, and put a failed one back to run now (the same
// change as the developer endpoint's retry: pending, attempts 0, due now).
import type { SystemDb } from '../../db/request-db.js';
import { AppError } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { notRetriable } from './service.js';
import * as repo from './repository.js';

/** An action whose last run failed: given up (`failed`: retries used up, or cancelled), or `pending` a retry after a failed attempt. */
export interface FailedAction {
  id: string;
  actionType: string;
  status: 'failed' | 'pending';
  teamId: string | null;
  /** Attempts made (each of them failed, unless the action was cancelled before running). */
  failures: number;
  maxRetries: number;
  lastError: string | null;
  lastFailedAt: Date;
  /** When it runs next: its retry's due time, or null once it gave up. */
  nextRunAt: Date | null;
}

/** Failed actions and pending retries, most recently failed first, at most `limit`. */
export async function failedActions(system: SystemDb, limit: number): Promise<FailedAction[]> {
  const rows = await system.prisma.scheduledAction.findMany({
    where: { OR: [{ status: 'failed' }, { status: 'pending', attempts: { gt: 0 }, errorMessage: { not: null } }] },
    orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
    take: limit,
    select: { id: true, actionType: true, status: true, teamId: true, attempts: true, maxRetries: true, errorMessage: true, updatedAt: true, scheduledAt: true },
  });
  return rows.map((r) => ({
    id: r.id,
    actionType: r.actionType,
    status: r.status as FailedAction['status'],
    teamId: r.teamId,
    failures: r.attempts,
    maxRetries: r.maxRetries,
    lastError: r.errorMessage,
    lastFailedAt: r.updatedAt,
    nextRunAt: r.status === 'pending' ? r.scheduledAt : null,
  }));
}

/** Puts a failed action back to run now (pending, attempts 0); 404 for no such action, 400 for one that is not failed. */
export async function retryFailedAction(system: SystemDb, id: string, now: Date): Promise<{ id: string; actionType: string; status: 'pending'; attempts: number; scheduledAt: Date }> {
  const row = isUuid(id) ? await system.prisma.scheduledAction.findUnique({ where: { id }, select: { actionType: true, status: true } }) : null;
  if (!row) throw new AppError('NOT_FOUND', `No scheduled action with id ${id}`);
  if (!(await repo.retryFailed(system.prisma, id, now))) throw notRetriable(row.status);
  return { id, actionType: row.actionType, status: 'pending', attempts: 0, scheduledAt: now };
}
