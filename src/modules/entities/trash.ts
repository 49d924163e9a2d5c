// The trash of a soft-deleting entity: its deleted records the caller could see were they live (the
// team's for a shared entity, their own for a private one), listed with LIST's filters, restored (a
// new change: its version kept, its hooks run; 409 naming the field when a live record took its unique
// value meanwhile, since unique values are unique among live records only), or purged: removed for
// good by an owner or admin of the team (for a private entity, by its creator), live or trashed. A
// definition's `softDelete.purgeAfter` purges trashed records that many days after their deletion:
// the trash sweep, named system work.
import type { EntityDefinition } from '../../config/entity-definition.js';
import type { SystemDb } from '../../db/request-db.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { AppError, forbidden, unauthenticated } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { recordChange } from './change.js';
import { authorOf } from './history.js';
import { afterChange, afterDelete, beforeDelete } from './hooks.js';
import { checkListQuery, type ListQuery, type View } from './query.js';
import { delegateOf, isForeignKeyViolation, isUniqueViolation, type Row } from './repository.js';
import { callerFor, conflict, includeOf, listRows, stillKept, takenField, written, type Caller, type ListResult } from './service.js';
import { seenConditions } from './visibility.js';
import { contextOf } from './writes.js';
import type { Values } from './validate.js';

type Member = Extract<Caller, { kind: 'user' }>;

function requireTrash(d: EntityDefinition): void {
  if (!d.softDelete) throw new AppError('NOT_FOUND', `${d.slug} have no trash: their deletes are final`);
}

/** The records the caller would see were they live: live ones (`deleted` false) or trashed ones (true), or both (null). */
export function amongWhere(d: EntityDefinition, caller: Caller, deleted: boolean | null): Values[] {
  return seenConditions(d, caller).flatMap(([column, value]) => (column !== 'deletedAt' ? [{ [column]: value }] : deleted === null ? [] : [{ deletedAt: deleted ? { not: null } : null }]));
}

/** The caller's trash of `d`: LIST's query over its deleted records. */
export async function listTrash(scope: RequestScope, d: EntityDefinition, query: ListQuery, view: View): Promise<ListResult> {
  requireTrash(d);
  const caller = callerFor(scope, d, 'list');
  if (caller.kind !== 'user') throw unauthenticated();
  return listRows(scope, d, caller, checkListQuery(d, query, view), amongWhere(d, caller, true));
}

async function findAmong(scope: RequestScope, d: EntityDefinition, caller: Member, id: string, deleted: boolean | null, missing: string): Promise<Row> {
  const row = isUuid(id) ? await delegateOf(await scope.db.tx(), d.name).findFirst({ where: { AND: [{ id }, ...amongWhere(d, caller, deleted)] }, ...includeOf(d, caller, []) }) : null;
  if (!row) throw new AppError('NOT_FOUND', missing);
  return row;
}

/** A unique violation on restore, as 409 naming the field whose value a live record holds now. */
function takenMeanwhile(d: EntityDefinition) {
  return (error: unknown): never => {
    const field = isUniqueViolation(error) ? takenField(d, error) : undefined;
    if (!field) return conflict(d)(error);
    throw new AppError('CONFLICT', `Another ${d.name} has taken this record's ${field.name} since it was deleted: change that one first`, { [field.name]: 'is taken by a live record of this team' });
  };
}

/** Takes a record out of the trash (the delete rule, as deleting it took): a new change with its version, hooks and event. */
export async function restoreFromTrash(scope: RequestScope, d: EntityDefinition, id: string): Promise<Values> {
  requireTrash(d);
  const caller = callerFor(scope, d, 'delete') as Member;
  const row = await findAmong(scope, d, caller, id, true, `${d.name} not found in the trash`);
  const previous = written(d, row, caller);
  const tx = await scope.db.tx();
  const record = written(d, await delegateOf(tx, d.name).update({ where: { id }, data: { deletedAt: null }, ...includeOf(d, caller, []) }).catch(takenMeanwhile(d)), caller);
  await afterChange(d, 'update', record, previous, contextOf(scope, caller));
  await recordChange(scope, tx, { d, child: null, operation: 'restore', verb: 'created', record, previous, author: authorOf(scope) });
  return record;
}

/**
 * Removes a record for good, live or trashed (owners and admins; for a private entity its creator,
 * the only one who sees it). A live record's delete hooks and event run as a delete's; a trashed one
 * had them when it was deleted.
 */
export async function purge(scope: RequestScope, d: EntityDefinition, id: string): Promise<void> {
  const caller = callerFor(scope, d, 'delete') as Member;
  if (d.access.shared && caller.role !== 'owner' && caller.role !== 'admin') throw forbidden('Only owners and admins of the team purge records');
  const row = await findAmong(scope, d, caller, id, d.softDelete ? null : false, `${d.name} not found`);
  const before = written(d, row, caller);
  const live = !row.deletedAt;
  const context = contextOf(scope, caller);
  if (live) await beforeDelete(d, before, context);
  const tx = await scope.db.tx();
  await delegateOf(tx, d.name).delete({ where: { id } }).catch(stillKept(d));
  if (live) await afterDelete(d, before, context);
  await recordChange(scope, tx, { d, child: null, operation: 'delete', verb: live ? 'deleted' : null, record: before, previous: before, author: authorOf(scope) });
}

/**
 * Purges the trashed records of each definition with `softDelete.purgeAfter`, deleted more than that
 * many days before `now`, as the system; at most `batch` per definition per run. A record a restrict
 * relation still holds stays (the next run tries again). Returns how many went.
 */
export async function sweepTrash(system: SystemDb, definitions: readonly EntityDefinition[], now: Date, batch = 1000): Promise<number> {
  let removed = 0;
  for (const d of definitions) {
    if (!d.purgeAfterDays) continue;
    const model = delegateOf(system.prisma as never, d.name);
    const expired = await model.findMany({ where: { deletedAt: { lt: new Date(now.getTime() - d.purgeAfterDays * 86_400_000) } }, select: { id: true }, take: batch, orderBy: { deletedAt: 'asc' } });
    for (const { id } of expired) {
      removed += await model.delete({ where: { id } }).then(
        () => 1,
        (error: unknown) => (isForeignKeyViolation(error) ? 0 : Promise.reject(error)),
      );
    }
  }
  return removed;
}
