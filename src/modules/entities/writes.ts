// The write path of entity records (create, update, delete), the one every face takes (REST, GraphQL,
// the CLI's seed, hooks' context.entities): the caller's rules (service.ts callerFor), the definition's
// hooks around validation and the row (hooks.ts), relation ids the caller may name, many-to-many
// links, the plan limit, and the record's webhook and realtime event in the same transaction.
import { entityNamed } from '../../config/entities/index.js';
import type { HookCaller, HookEntities } from '../../config/entity-hooks.js';
import { type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { mediaFields, relationFields, relationTarget } from '../../config/entity-relations.js';
import type { Tx } from '../../db/request-db.js';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { lockMediaForRecord } from '../media/service.js';
import { assertAddedWithinLimit } from '../teams/plan-usage.js';
import { recordChange } from './change.js';
import { authorOf, restoredValues, versionOf, type VersionOperation } from './history.js';
import { afterChange, afterDelete, beforeDelete, lazyContext, validatedWrite } from './hooks.js';
import { linkModel, linksField } from './prisma-model.js';
import { delegateOf, isForeignKeyViolation, isRowSecurityViolation } from './repository.js';
import { baseWhere, callerFor, conflict, includeOf, read, stillKept, visible, written, type Caller } from './service.js';
import type { Values } from './validate.js';

const unrelatable = (f: FieldDefinition) => `must be the id of a ${f.to} record you can see in this team`;

/**
 * A write's relation ids must name records the caller can see in its team (the target's rules: the
 * creator's own for a private entity, not soft-deleted): 422 otherwise, the same answer whether such a
 * record exists in another team or nowhere. A target deleted at the same moment is the foreign key's
 * to refuse (`relationGone`). Media ids must name active media of the team, locked until the write
 * commits (a media deletion at the same moment waits, then its onDelete sees this record).
 */
async function checkRelated(scope: RequestScope, d: EntityDefinition, caller: Extract<Caller, { kind: 'user' }>, values: Values): Promise<void> {
  const problems: Record<string, string> = {};
  for (const f of relationFields(d)) {
    const id = values[f.name];
    if (typeof id !== 'string') continue;
    const target = relationTarget(f);
    const found = await delegateOf(await scope.db.tx(), target.name).findFirst({ where: { AND: [{ id }, ...baseWhere(target, caller)] }, select: { id: true } });
    if (!found) problems[f.name] = unrelatable(f);
  }
  for (const f of d.links) {
    const ids = values[f.name] as string[] | undefined;
    if (!ids?.length) continue;
    const target = relationTarget(f);
    const found = await delegateOf(await scope.db.tx(), target.name).count({ where: { AND: [{ id: { in: ids } }, ...baseWhere(target, caller)] } });
    if (found !== ids.length) problems[f.name] = `must be ids of ${f.to} records you can see in this team`;
  }
  for (const f of mediaFields(d)) {
    const given = values[f.name];
    const ids = Array.isArray(given) ? (given as string[]) : typeof given === 'string' ? [given] : [];
    // Another team's media, a deleted one or none at all: the same answer (nothing told).
    if (ids.length && (await lockMediaForRecord(scope, caller.teamId, ids)) !== ids.length) problems[f.name] = f.many ? 'must be ids of media of this team' : 'must be the id of a media record of this team';
  }
  if (Object.keys(problems).length) throw new AppError('VALIDATION_FAILED', 'Validation failed', problems);
}

/**
 * A write's many-to-many sets: the record's own values apart, and the join rows linking the given
 * records, as a nested write (existing links kept).
 */
function linkWrites(d: EntityDefinition, caller: Extract<Caller, { kind: 'user' }>, values: Values): { own: Values; links: Values } {
  const own = { ...values };
  const links: Values = {};
  for (const f of d.links) {
    const ids = own[f.name] as string[] | undefined;
    delete own[f.name];
    if (ids?.length) links[linksField(f)] = { createMany: { data: ids.map((relatedId) => ({ relatedId, teamId: caller.teamId })), skipDuplicates: true } };
  }
  return { own, links };
}

/**
 * An update's many-to-many sets become the given ones among the related records the caller can see:
 * links to others are removed first; links to records it cannot see (another user's private tasks)
 * stay as they are.
 */
async function unlinkOthers(tx: Tx, d: EntityDefinition, caller: Caller, id: string, values: Values): Promise<void> {
  for (const f of d.links) {
    const ids = values[f.name] as string[] | undefined;
    if (!ids) continue;
    await delegateOf(tx, linkModel(d, f)).deleteMany({ where: { recordId: id, relatedId: { notIn: ids }, related: { is: { AND: baseWhere(relationTarget(f), caller) } } } });
  }
}

/**
 * A write refused by a foreign key: a related record deleted since checkRelated saw it; for a
 * many-to-many link, the join table's policy refuses first (the related record is no longer visible).
 */
function relationGone(d: EntityDefinition, values: Values) {
  const linking = d.links.some((f) => (values[f.name] as string[] | undefined)?.length);
  return (error: unknown): never => {
    if (!isForeignKeyViolation(error) && !(linking && isRowSecurityViolation(error))) return conflict(d)(error);
    throw new AppError('VALIDATION_FAILED', 'Validation failed', Object.fromEntries([...relationFields(d), ...d.links].filter((f) => values[f.name]).map((f) => [f.name, unrelatable(f)])));
  };
}

function mergedMetas(current: unknown, changes: Record<string, string | null>): Record<string, string> {
  const merged: Record<string, string | null> = { ...((current as Record<string, string>) ?? {}), ...changes };
  return Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== null));
}

export async function create(scope: RequestScope, d: EntityDefinition, body: unknown): Promise<Values> {
  const caller = callerFor(scope, d, 'create') as Extract<Caller, { kind: 'user' }>;
  const context = contextOf(scope, caller);
  const { values, metas } = await validatedWrite(d, 'create', body, null, context);
  const tx = await scope.db.tx();
  await checkRelated(scope, d, caller, values);
  const { own, links } = linkWrites(d, caller, values);
  const data = { ...own, ...links, teamId: caller.teamId, userId: caller.actor.userId, ...(d.metas ? { metas: mergedMetas({}, metas ?? {}) } : {}) };
  const record = written(d, await delegateOf(tx, d.name).create({ data, ...includeOf(d, caller, []) }).catch(relationGone(d, values)), caller);
  // Counted with the record in (plan-usage.ts): a refusal rolls the INSERT back before any hook sees it.
  if (d.planLimit) await assertAddedWithinLimit(scope, tx, caller.teamId, d.planLimit, 1);
  await afterChange(d, 'create', record, null, context);
  await recordChange(scope, tx, { d, child: null, operation: 'create', verb: 'created', record, previous: null, author: authorOf(scope) });
  return record;
}

/** Updates a record (`operation` restore: a version's values written back, history.ts), its version kept with it. */
export async function update(scope: RequestScope, d: EntityDefinition, id: string, body: unknown, operation: Extract<VersionOperation, 'update' | 'restore'> = 'update'): Promise<Values> {
  const caller = callerFor(scope, d, 'update') as Extract<Caller, { kind: 'user' }>;
  const context = contextOf(scope, caller);
  // The record before the change, as its writes answer it: for the hooks, and the fields its version names.
  const current = await visible(scope, d, caller, id, includeOf(d, caller, []));
  const previous = written(d, current, caller);
  const { values, metas } = await validatedWrite(d, 'update', body, previous, context);
  await checkRelated(scope, d, caller, values);
  const { own, links } = linkWrites(d, caller, values);
  const data = { ...own, ...links, ...(metas ? { metas: mergedMetas(current.metas, metas) } : {}) };
  const tx = await scope.db.tx();
  await unlinkOthers(tx, d, caller, id, values);
  const record = written(d, await delegateOf(tx, d.name).update({ where: { id }, data, ...includeOf(d, caller, []) }).catch(relationGone(d, values)), caller);
  await afterChange(d, 'update', record, previous, context);
  await recordChange(scope, tx, { d, child: null, operation, verb: 'updated', record, previous, author: authorOf(scope) });
  return record;
}

/** Deletes (or, with softDelete, marks deleted and returns) a record; its `deleted` event carries the record as it was last shown. */
export async function remove(scope: RequestScope, d: EntityDefinition, id: string): Promise<{ deleted: Values | null }> {
  const caller = callerFor(scope, d, 'delete');
  const context = contextOf(scope, caller as Extract<Caller, { kind: 'user' }>);
  const current = await visible(scope, d, caller, id, includeOf(d, caller, []));
  const before = written(d, current, caller);
  await beforeDelete(d, before, context);
  const tx = await scope.db.tx();
  const model = delegateOf(tx, d.name);
  if (d.softDelete) {
    const row = await model.update({ where: { id }, data: { deletedAt: scope.now() }, ...includeOf(d, caller, []) });
    // The record as its writes answer it (metas included): GraphQL selects what it wants of it.
    const record = written(d, row, caller);
    await afterDelete(d, record, context);
    await recordChange(scope, tx, { d, child: null, operation: 'delete', verb: 'deleted', record, previous: before, author: authorOf(scope) });
    return { deleted: record };
  }
  await model.delete({ where: { id } }).catch(stillKept(d));
  await afterDelete(d, before, context);
  await recordChange(scope, tx, { d, child: null, operation: 'delete', verb: 'deleted', record: before, previous: before, author: authorOf(scope) });
  return { deleted: null };
}

/** Writes version `version` of a record back as a new change (history.ts): the update's rules, validation and hooks. */
export async function restoreVersion(scope: RequestScope, d: EntityDefinition, id: string, version: number): Promise<Values> {
  return update(scope, d, id, restoredValues(d, await versionOf(scope, d, id, version)), 'restore');
}

/** The hooks' context of a write by `caller` (made when a hook first runs). */
export function contextOf(scope: RequestScope, caller: Extract<Caller, { kind: 'user' }>) {
  return lazyContext(() => ({ scope, caller: { userId: caller.actor.userId, teamId: caller.teamId, role: caller.role as HookCaller['role'] }, entities: entitiesAs(scope) }));
}

/** Records of any entity for a hook: the same functions, as the scope's caller, in its transaction. */
export function entitiesAs(scope: RequestScope): HookEntities {
  const named = (slug: string) => {
    const d = entityNamed(slug);
    if (!d) throw new Error(`context.entities: no entity "${slug}"`);
    return d;
  };
  return {
    create: (slug, data) => create(scope, named(slug), data),
    update: (slug, id, data) => update(scope, named(slug), id, data),
    remove: async (slug, id) => void (await remove(scope, named(slug), id)),
    read: (slug, id) => read(scope, named(slug), id).catch((error: unknown) => (error instanceof AppError && error.code === 'NOT_FOUND' ? null : Promise.reject(error))),
  };
}

