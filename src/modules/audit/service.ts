// The audit trail: other modules record an entry from their service, in the transaction of the change
// it records (a rolled-back change leaves none); owners and admins read their team's log. A failed
// sign-in is the exception: its request fails and rolls back, so its entry is written by named system
// access outside that transaction (recordFailedSignIn).
import type { RequestScope } from '../../auth/request-scope.js';
import type { SystemDb, Tx } from '../../db/request-db.js';
import { AppError, forbidden, unauthenticated } from '../../shared/errors.js';
import { pageOf, type Page } from '../../shared/pagination.js';
import { isUuid } from '../../shared/validation.js';
import type { AuditAction, AuditTarget, DetailValue } from './actions.js';
import type { AuditLogQuery } from './inputs.js';
import * as repo from './repository.js';

export type { AuditAction } from './actions.js';
export type AuditEntry = repo.EntryRow;

/** Whose log an entry belongs to: one team's, or (a user-level event) its user's, shown in each of their teams. */
export type AuditSubject = { teamId: string } | { userId: string };

/** One entry to record. */
export type AuditRecord = AuditSubject & {
  action: AuditAction;
  target?: AuditTarget;
  details?: Record<string, DetailValue>;
};

/** Who acted when the request's own caller is not it (a sign-in: the request is anonymous until it succeeds). */
export interface AuditActor {
  userId: string | null;
  apiKeyId?: string | null;
}

// Details are written by our own services, which pass names, roles and addresses; this guard keeps a
// careless future caller from storing a credential anyway: such keys are dropped, not stored.
const secretName = /secret|token|password|hash|recovery|otp|^key$|code/i;

function safeDetails(details: Record<string, DetailValue> = {}): Record<string, DetailValue> {
  return Object.fromEntries(Object.entries(details).filter(([name, value]) => value !== undefined && !secretName.test(name)));
}

function entryOf(record: AuditRecord, actor: AuditActor, client: { ip: string | null; userAgent: string | null } | null): repo.NewEntry {
  return {
    teamId: 'teamId' in record ? record.teamId : null,
    userId: 'userId' in record ? record.userId : null,
    actorUserId: actor.userId,
    actorApiKeyId: actor.apiKeyId ?? null,
    action: record.action,
    targetType: record.target?.type ?? null,
    targetId: record.target?.id ?? null,
    details: safeDetails(record.details),
    ipAddress: client?.ip ?? null,
    userAgent: client?.userAgent ?? null,
  };
}

/** The request's caller as an actor: the user and the API key they used; none when anonymous. */
function callerOf(scope: Pick<RequestScope, 'actor'>): AuditActor {
  return scope.actor.kind === 'user' ? { userId: scope.actor.userId, apiKeyId: scope.actor.apiKeyId ?? null } : { userId: null };
}

/**
 * Records an entry in `tx`, the transaction of the change it records, with the request's address and
 * user agent; the actor is the request's caller unless `actor` names who acted (a sign-in).
 */
export async function recordAudit(scope: Pick<RequestScope, 'actor' | 'client'>, tx: Tx, record: AuditRecord, actor: AuditActor = callerOf(scope)): Promise<void> {
  await repo.insertEntry(tx, entryOf(record, actor, scope.client));
}

/** Records an entry of work with no request (an operator's CLI command): no address, `actor` or the system. */
export async function recordOperatorAudit(tx: Tx, record: AuditRecord, actor: AuditActor = { userId: null }): Promise<void> {
  await repo.insertEntry(tx, entryOf(record, actor, null));
}

/**
 * Records a failed sign-in of `userId` (right e-mail, wrong password or second factor). Named system
 * access outside the request's transaction: the request fails and rolls back, the entry stays.
 */
export async function recordFailedSignIn(scope: Pick<RequestScope, 'client' | 'system'>, userId: string, details: Record<string, DetailValue> = {}): Promise<void> {
  const system: SystemDb = scope.system('audit: failed sign-in');
  await repo.insertEntry(system.prisma, entryOf({ userId, action: 'sign_in.failed', target: { type: 'user', id: userId }, details }, { userId: null }, scope.client));
}

/** A page of a team's log, newest first: owners and admins only (another member: 403; not a member: 404). */
export async function auditLog(scope: RequestScope, teamId: string, q: AuditLogQuery): Promise<Page<AuditEntry>> {
  if (scope.actor.kind !== 'user') throw unauthenticated();
  const notFound = () => new AppError('NOT_FOUND', 'Team not found');
  if (!isUuid(teamId)) throw notFound();
  const tx = await scope.db.tx();
  const role = await repo.roleIn(tx, teamId, scope.actor.userId);
  if (!role) throw notFound();
  if (role !== 'owner' && role !== 'admin') throw forbidden('Only owners and admins may read the audit log');
  if (q.actor && !isUuid(q.actor)) return pageOf([], 0, q.page, q.limit);
  const filter = { teamId, actor: q.actor, action: q.action, from: q.from, to: q.to };
  const { rows, total } = await repo.listEntries(tx, filter, { skip: (q.page - 1) * q.limit, take: q.limit });
  return pageOf(rows, total, q.page, q.limit);
}

/** Deletes entries older than the retention period (AUDIT_RETENTION_DAYS); how many. Named system work. */
export function sweepAudit(system: SystemDb, retentionMs: number, now: Date): Promise<number> {
  return repo.deleteOlderThan(system, new Date(now.getTime() - retentionMs));
}

/** The newest `limit` entries of a team's log, for an operator (CLI `audit list`): named system access. 404 for no such team. */
export async function operatorAuditLog(system: SystemDb, teamId: string, filter: { action?: string }, limit: number): Promise<AuditEntry[]> {
  if (!isUuid(teamId) || !(await system.prisma.team.findUnique({ where: { id: teamId }, select: { id: true } }))) throw new AppError('NOT_FOUND', `No team with id ${teamId}`);
  return (await repo.listEntries(system.prisma, { teamId, action: filter.action }, { skip: 0, take: limit })).rows;
}
