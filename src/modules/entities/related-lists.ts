// The to-many sides of a page's records, each in one statement: a relation's reverse side
// (`Customer.projects(where, sortBy, sortOrder, limit)`) and a many-to-many relation from either end
// (`Project.tasks`, `Task.projects`), every list checked like a LIST of its entity by the caller.
import { relationTarget, type Inverse } from '../../config/entity-relations.js';
import type { EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { inverseField, linksField } from './prisma-model.js';
import { checkListQuery, type ListQuery, type View } from './query.js';
import { delegateOf, type Row } from './repository.js';
import { baseWhere, callerFor, carriedOf, decorate, filterWhere, orderOf, sortField } from './service.js';
import type { Values } from './validate.js';

type SideQuery = Pick<ListQuery, 'where' | 'sortBy' | 'sortOrder' | 'limit'>;

/** The records a side lists, checked like a LIST of `listed` by the caller: where, order, limit. */
function sideQuery(scope: RequestScope, listed: EntityDefinition, query: SideQuery) {
  const caller = callerFor(scope, listed, 'list');
  const view: View = { fields: null, metas: listed.metas, children: [] };
  const q = checkListQuery(listed, { where: query.where, sortBy: query.sortBy, sortOrder: query.sortOrder, limit: query.limit }, view);
  const where = { AND: [...baseWhere(listed, caller), ...filterWhere(listed, q)] };
  return { caller, view, where, orderBy: orderOf({ field: sortField(listed, q.sortBy), order: q.sortOrder }), take: q.limit };
}

/**
 * A reverse side (`Customer.projects(where, sortBy, sortOrder, limit)`, and `Task.projects` of a
 * many-to-many relation) for every record of a page, in one statement: each record's referring records
 * the caller can list (its rules, RLS), filtered, ordered and limited per record in the database (a
 * lateral join), whatever the page's size.
 */
export async function referring(scope: RequestScope, inverse: Inverse, ids: readonly string[], query: SideQuery): Promise<Values[][]> {
  if (inverse.field.many) return linked(scope, inverse.source, inverse.field, 'record', ids, query);
  const { source: d } = inverse;
  const { caller, view, where, orderBy, take } = sideQuery(scope, d, query);
  const field = inverseField(d, inverse.field);
  const rows = await delegateOf(await scope.db.tx(), relationTarget(inverse.field).name).findMany({
    where: { id: { in: [...new Set(ids)] } },
    select: { id: true, [field]: { where, orderBy, take, ...carriedOf(d, caller) } },
    relationLoadStrategy: 'join',
  });
  const byId = new Map(rows.map((row) => [row.id, (row[field] as Row[]).map((r) => decorate(d, r, caller, view))]));
  return ids.map((id) => byId.get(id) ?? []);
}

/**
 * A many-to-many relation of `d` for every record of a page, in one statement, through its join rows:
 * from the records (`Project.tasks`: `side` 'related') or from the related records (`Task.projects`:
 * `side` 'record'), each list as `referring` makes it.
 */
export async function linked(scope: RequestScope, d: EntityDefinition, f: FieldDefinition, side: 'related' | 'record', ids: readonly string[], query: SideQuery): Promise<Values[][]> {
  const target = relationTarget(f);
  const [paged, listed] = side === 'related' ? [d, target] : [target, d];
  const { caller, view, where, orderBy, take } = sideQuery(scope, listed, query);
  const field = side === 'related' ? linksField(f) : inverseField(d, f);
  const rows = await delegateOf(await scope.db.tx(), paged.name).findMany({
    where: { id: { in: [...new Set(ids)] } },
    select: { id: true, [field]: { where: { [side]: { is: where } }, orderBy: orderBy.map((o) => ({ [side]: o })), take, select: { [side]: carriedOf(listed, caller).include ? carriedOf(listed, caller) : true } } },
    relationLoadStrategy: 'join',
  });
  const byId = new Map(rows.map((row) => [row.id, (row[field] as Row[]).map((link) => decorate(listed, link[side] as Row, caller, view))]));
  return ids.map((id) => byId.get(id) ?? []);
}
