// The related records of an entity's GraphQL type: a relation's record (`Task.customer`), the to-many
// sides (reverse sides `Customer.projects`, many-to-many `Project.tasks` both ways, with LIST's
// arguments), and media fields' media (`Order.attachment`); each loaded for a whole page at once.
import { inversesOf, mediaFields, readableRelations, relationTarget, type Inverse } from '../../config/entity-relations.js';
import type { EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import type { EntityTypes, Loose, RecordRef } from './graphql-refs.js';

type Values = Record<string, unknown>;

/**
 * The related records of relation fields: the target's record type (every entity's is built before
 * the schema is), the target's read rule, and the loader answering records by id in one query for
 * every record of the request's page (null for an id the caller cannot see).
 */
export interface Relations {
  record: (target: EntityDefinition) => RecordRef | undefined;
  authScopes: (target: EntityDefinition) => unknown;
  load: (target: EntityDefinition, ids: readonly string[], ctx: unknown) => Promise<(Values | null)[]>;
  /** The types of an entity (a reverse side's referring entity: its where and sort field). */
  types: (d: EntityDefinition) => EntityTypes | undefined;
  /** LIST's rule of an entity: a reverse side reads the referring entity's list. */
  listAuthScopes: (d: EntityDefinition) => unknown;
  /** The referring records of each record id (a reverse side), each list ordered and limited by `args`. */
  loadReferring: (inverse: Inverse, ids: readonly string[], args: Values, ctx: unknown) => Promise<Values[][]>;
  /** The related records of each record id through a many-to-many relation of `d`, as loadReferring. */
  loadLinked: (d: EntityDefinition, f: FieldDefinition, ids: readonly string[], args: Values, ctx: unknown) => Promise<Values[][]>;
  /** The media library's record type, its read rule, and its records by id (null: not active, or not the caller's). */
  media: { type: () => unknown; authScopes: unknown; load: (ids: readonly string[], ctx: unknown) => Promise<unknown[]> };
}

type ArgBuilder = (options: object) => unknown;

/**
 * A to-many side listing records of `listed` (with its LIST: types, scopes): `(where, sortBy,
 * sortOrder, limit)`, loaded for every record of a page at once by `load`.
 */
function toMany(t: Loose, listed: EntityDefinition, types: EntityTypes, relations: Relations, what: string, load: (ids: string[], ctx: unknown, args: Values) => Promise<Values[][]>): unknown {
  if (!types.where || !types.sortField) return undefined;
  const arg = t.arg as ArgBuilder;
  return (t.loadableList as ArgBuilder)({
    type: types.record,
    description: `${what}, among those the caller can see (${listed.slug}' list scope).`,
    authScopes: relations.listAuthScopes(listed),
    // One loader per place in the query (its arguments): every record of a page in one statement.
    byPath: true,
    loaderOptions: { cache: false },
    args: {
      where: arg({ type: types.where, required: false }),
      sortBy: arg({ type: types.sortField, required: false }),
      sortOrder: arg({ type: 'SortOrder', required: false }),
      limit: arg({ type: 'Int', required: false, description: 'At most this many per record: 1 to 100 (default 10).' }),
    },
    resolve: (r: Values) => String(r.id),
    load,
  });
}

/**
 * A relation's related record (`Task.customer`), for targets that can be read; a reverse side
 * (`Customer.projects`), for referring entities that can be listed.
 */
export function relatedFields(t: Loose, d: EntityDefinition, relations: Relations): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of readableRelations(d)) {
    const target = relationTarget(f);
    const type = relations.record(target);
    if (!type) continue;
    out[f.relation] = (t.loadable as (options: object) => unknown)({
      type,
      nullable: true,
      description: `The ${target.name} of ${f.name}; null when none, or one the caller cannot see. Needs ${target.slug}' read scope.`,
      authScopes: relations.authScopes(target),
      // No cache: a write earlier in the same operation is seen by a later read (mutations run in turn).
      loaderOptions: { cache: false },
      resolve: (r: Values) => (r[f.name] as string | null | undefined) ?? null,
      load: (ids: string[], ctx: unknown) => relations.load(target, ids, ctx),
    });
  }
  // Media fields: the media record (`Order.attachment`), or the list of them in their order (`Project.files`).
  for (const f of mediaFields(d)) {
    out[f.relation] = (t.loadable as (options: object) => unknown)({
      type: f.many ? [relations.media.type()] : relations.media.type(),
      nullable: f.many ? { list: false, items: false } : true,
      description: f.many ? `The media of ${f.name}, in its order (those active in the team). Needs media:read.` : `The media of ${f.name}; null when none. Needs media:read.`,
      authScopes: relations.media.authScopes,
      loaderOptions: { cache: false },
      resolve: (r: Values) => (f.many ? ((r[f.name] as string[] | undefined) ?? []) : ((r[f.name] as string | null | undefined) ?? null)),
      load: (ids: string[], ctx: unknown) => relations.media.load(ids, ctx),
    });
  }
  // To-many sides: reverse sides (`Customer.projects`), and many-to-many relations from either end (`Project.tasks`, `Task.projects`).
  for (const inverse of inversesOf(d)) {
    const listed = relations.types(inverse.source);
    const what = inverse.field.many ? `The ${inverse.source.slug} having this among their ${inverse.field.relation}` : `The ${inverse.source.slug} whose ${inverse.field.relation} this is`;
    if (listed) out[inverse.name] = toMany(t, inverse.source, listed, relations, what, (ids, ctx, args) => relations.loadReferring(inverse, ids, args, ctx));
  }
  for (const f of d.links) {
    const listed = relations.types(relationTarget(f));
    if (listed) out[f.relation] = toMany(t, relationTarget(f), listed, relations, `Its ${f.relation} (ids in ${f.name})`, (ids, ctx, args) => relations.loadLinked(d, f, ids, args, ctx));
  }
  return out;
}
