// The children of an entity's records (`customers → notes`): listed, created, changed and deleted
// through their parent, whose rules they follow (its read scope and visibility to see them, its update
// scope to change them); each change records its webhook event (`<child slug>:created|updated|deleted`,
// with the fields only when the parent entity is shared), in the change's transaction.
import type { ChildDefinition, EntityDefinition } from '../../config/entity-definition.js';
import type { Tx } from '../../db/request-db.js';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { isUuid } from '../../shared/validation.js';
import { delegateOf, type Row } from './repository.js';
import { recordChange } from './change.js';
import { authorOf } from './history.js';
import { afterChange, afterDelete, beforeDelete, validatedWrite } from './hooks.js';
import { callerFor, conflict, present, visible, type Caller } from './service.js';
import { contextOf } from './writes.js';
import type { Values } from './validate.js';

function childOf(d: EntityDefinition, slug: string): ChildDefinition {
  const child = d.children.find((c) => c.slug === slug);
  if (!child) throw new AppError('NOT_FOUND', `${d.name} has no child "${slug}"`);
  return child;
}

/** Children follow the parent: its read scope to see them, its update scope to change them. */
async function parentFor(scope: RequestScope, d: EntityDefinition, parentId: string, op: 'read' | 'update') {
  const caller = callerFor(scope, d, op);
  await visible(scope, d, caller, parentId);
  return caller;
}

export async function listChildren(scope: RequestScope, d: EntityDefinition, parentId: string, slug: string): Promise<Values[]> {
  const child = childOf(d, slug);
  const caller = await parentFor(scope, d, parentId, 'read');
  const rows = await delegateOf(await scope.db.tx(), child.name).findMany({ where: { parentId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: 1000 });
  return rows.map((r) => present(child, r, caller, null));
}

export async function createChild(scope: RequestScope, d: EntityDefinition, parentId: string, slug: string, body: unknown): Promise<Values> {
  const child = childOf(d, slug);
  const caller = (await parentFor(scope, d, parentId, 'update')) as Extract<Caller, { kind: 'user' }>;
  const context = contextOf(scope, caller);
  const { values } = await validatedWrite(child, 'create', body, null, context);
  const tx = await scope.db.tx();
  const record = present(child, await delegateOf(tx, child.name).create({ data: { ...values, parentId, teamId: caller.teamId, userId: caller.actor.userId } }).catch(conflict(child)), caller, null);
  await afterChange(child, 'create', record, null, context);
  await recordChange(scope, tx, { d, child, operation: 'create', verb: 'created', record, previous: null, author: authorOf(scope) });
  return record;
}

async function visibleChild(tx: Tx, child: ChildDefinition, parentId: string, childId: string): Promise<Row> {
  const row = isUuid(childId) ? await delegateOf(tx, child.name).findFirst({ where: { id: childId, parentId } }) : null;
  if (!row) throw new AppError('NOT_FOUND', `${child.name} not found`);
  return row;
}

export async function updateChild(scope: RequestScope, d: EntityDefinition, parentId: string, slug: string, childId: string, body: unknown): Promise<Values> {
  const child = childOf(d, slug);
  const caller = (await parentFor(scope, d, parentId, 'update')) as Extract<Caller, { kind: 'user' }>;
  const context = contextOf(scope, caller);
  const tx = await scope.db.tx();
  const previous = present(child, await visibleChild(tx, child, parentId, childId), caller, null);
  const { values } = await validatedWrite(child, 'update', body, previous, context);
  const record = present(child, await delegateOf(tx, child.name).update({ where: { id: childId }, data: values }).catch(conflict(child)), caller, null);
  await afterChange(child, 'update', record, previous, context);
  await recordChange(scope, tx, { d, child, operation: 'update', verb: 'updated', record, previous, author: authorOf(scope) });
  return record;
}

export async function removeChild(scope: RequestScope, d: EntityDefinition, parentId: string, slug: string, childId: string): Promise<void> {
  const child = childOf(d, slug);
  const caller = (await parentFor(scope, d, parentId, 'update')) as Extract<Caller, { kind: 'user' }>;
  const context = contextOf(scope, caller);
  const tx = await scope.db.tx();
  const current = present(child, await visibleChild(tx, child, parentId, childId), caller, null);
  await beforeDelete(child, current, context);
  await delegateOf(tx, child.name).delete({ where: { id: childId } });
  await afterDelete(child, current, context);
  await recordChange(scope, tx, { d, child, operation: 'delete', verb: 'deleted', record: current, previous: current, author: authorOf(scope) });
}
