// GraphQL face of entities, built at start-up from the definitions (types: graphql-types.ts): per
// entity `tasks(…)` (pages, cursors, filters, distinct values), `task(id)`, `createTask(input)`,
// `updateTask(id, input)`, `deleteTask(id)`, and per child `createNote(parentId, input)`… . A
// disabled operation has no field. Every field declares its rule, made from `definition.permissions`
// (rules.ts: any listed scope grants, public entities' reads also grant anonymous callers, an operation
// listing no scope refuses everyone, LIST needs the read rule of what its where reaches). Typed arguments are turned
// back into what the one semantic validator (validate.ts) reads: stored enum strings (the enums'
// internal values), days as YYYY-MM-DD, instants as ISO strings.
import type { GraphQLResolveInfo } from 'graphql';
import type { ChildDefinition, EntityDefinition } from '../../config/entity-definition.js';
import { entityDefinitions } from '../../config/entities/index.js';
import type { Builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import { selectedBelow } from '../../graphql/selection.js';
import { registerAggregate } from './aggregate-schema.js';
import { historyEnums, registerHistory } from './history-schema.js';
import { graphqlNames } from './graphql-names.js';
import { mediaOfFields } from './media-fields.js';
import { listFieldRule, operationRule } from './rules.js';
import type { Relations } from './graphql-relations.js';
import type { EntityTypes } from './graphql-refs.js';
import { entityTypes, sharedTypes } from './graphql-types.js';
import { childField } from './prisma-model.js';
import type { ListQuery } from './query.js';
import * as children from './children.js';
import * as sides from './related-lists.js';
import * as records from './service.js';
import * as trash from './trash.js';
import * as writes from './writes.js';

type Values = Record<string, unknown>;

/** Registers the entities' types and fields on `b` (the platform's builder, or a test's own); gives each definition's types. */
export function registerEntities(b: Builder, definitions: readonly EntityDefinition[]): ReadonlyMap<EntityDefinition, EntityTypes> {
  const shared = sharedTypes(b);
  const built = new Map<EntityDefinition, EntityTypes>();
  // A relation's field reads its target's record type, built in this same loop (fields are built with the schema).
  const relations: Relations = {
    record: (target) => built.get(target)?.record,
    authScopes: (target) => operationRule(target, 'read'),
    load: (target, ids, ctx) => records.related(ctx as Context, target, ids),
    types: (d) => built.get(d),
    listAuthScopes: (d) => listFieldRule(d),
    loadReferring: (inverse, ids, args, ctx) => sides.referring(ctx as Context, inverse, ids, args as ListQuery),
    loadLinked: (d, f, ids, args, ctx) => sides.linked(ctx as Context, d, f, 'related', ids, args as ListQuery),
    media: mediaOfFields(b),
  };
  for (const d of definitions) built.set(d, entityTypes(b, d, shared, (r, child, ctx) => children.listChildren(ctx as Context, d, String(r.id), child.slug), relations));
  const enums = historyEnums(b);
  for (const [d, types] of built) {
    registerQueries(b, d, types);
    if (d.operations.list) registerAggregate(b, d, types, listFieldRule(d));
    registerMutations(b, d, types);
    registerHistory(b, d, types, enums);
  }
  return built;
}

/** Child slugs selected on the records of `under` (`items` of a page), or of the record itself. */
function childrenSelected(d: EntityDefinition, info: GraphQLResolveInfo, under: string | null): string[] {
  if (!d.children.length) return [];
  const names = selectedBelow(info, under ? [under] : []);
  return d.children.filter((c) => names.has(childField(c))).map((c) => c.slug);
}

const view = (d: EntityDefinition, children: string[]) => ({ fields: null, metas: d.metas, children });

type QueryBuilder = Parameters<Parameters<Builder['queryFields']>[0]>[0];

/** LIST's arguments (also the trash's). */
function listArgs(t: QueryBuilder, types: EntityTypes) {
  return {
          page: t.arg.int(),
          limit: t.arg.int({ description: '1 to 100 (default 10).' }),
          first: t.arg.int({ description: 'Cursor pagination: the first records after `after` (1 to 100, default 10).' }),
          after: t.arg.string({ description: 'Cursor pagination: a cursor of this list (an edge’s, or `endCursor`).' }),
          last: t.arg.int({ description: 'Cursor pagination backwards: the last records before `before`.' }),
          before: t.arg.string({ description: 'Cursor pagination backwards: a cursor of this list (`startCursor`).' }),
          sortBy: t.arg({ type: types.sortField as never }),
          sortOrder: t.arg({ type: 'SortOrder' as never }),
          search: t.arg.string(),
          ids: t.arg.idList(),
          from: t.arg({ type: 'Date', description: 'First day of the range on dateField.' }),
          to: t.arg({ type: 'Date', description: 'Last day of the range on dateField (included).' }),
          dateField: t.arg({ type: types.dateField as never }),
          ...(types.filter ? { filter: t.arg({ type: types.filter as never }) } : {}),
          where: t.arg({ type: types.where as never, description: 'Conditions with operators, grouped with AND/OR/NOT; combined with the other arguments by AND.' }),
          distinct: t.arg({ type: types.fieldName as never, description: 'The distinct values of this filterable field (in `values`) instead of records.' }),
        
  };
}

function registerQueries(b: Builder, d: EntityDefinition, types: EntityTypes): void {
  const names = graphqlNames(d);
  b.queryFields((t) => ({
    ...(d.operations.list
      ? {
          [names.list]: t.field({
            type: types.page as never,
            description: `LIST ${d.slug}: pages (page, limit) or cursors (first, after), sort, search, ids, a day range, field filters, or the distinct values of one field.`,
            authScopes: listFieldRule(d) as never,
            args: listArgs(t, types),
            resolve: (_root, args, ctx, info) => records.list(ctx, d, args as ListQuery, view(d, childrenSelected(d, info, 'items'))) as never,
          }),
        }
      : {}),
    ...(d.operations.list && d.softDelete
      ? {
          [names.trash]: t.field({
            type: types.page as never,
            description: `The trash of ${d.slug}: the deleted records the caller would see were they live, with LIST's arguments (restore${d.name} takes one out).`,
            authScopes: listFieldRule(d) as never,
            args: listArgs(t, types),
            resolve: (_root, args, ctx, info) => trash.listTrash(ctx, d, args as ListQuery, view(d, childrenSelected(d, info, 'items'))) as never,
          }),
        }
      : {}),
    ...(d.operations.read
      ? {
          [names.read]: t.field({
            type: types.record as never,
            authScopes: operationRule(d, 'read') as never,
            args: { id: t.arg.id({ required: true }) },
            resolve: (_root, { id }, ctx, info) => records.read(ctx, d, String(id), view(d, childrenSelected(d, info, null))) as never,
          }),
        }
      : {}),
  }));
}

function registerMutations(b: Builder, d: EntityDefinition, types: EntityTypes): void {
  const names = graphqlNames(d);
  const on = d.operations;
  b.mutationFields((t) => ({
    ...(on.create
      ? { [names.create]: t.field({ type: types.record as never, authScopes: operationRule(d, 'create') as never, args: { input: t.arg({ type: types.createInput as never, required: true }) }, resolve: (_root, { input }, ctx) => writes.create(ctx, d, input as Values) as never }) }
      : {}),
    ...(on.update
      ? {
          [names.update]: t.field({
            type: types.record as never,
            authScopes: operationRule(d, 'update') as never,
            args: { id: t.arg.id({ required: true }), input: t.arg({ type: types.updateInput as never, required: true }) },
            resolve: (_root, { id, input }, ctx) => writes.update(ctx, d, String(id), input as Values) as never,
          }),
        }
      : {}),
    ...(on.delete
      ? {
          [names.delete]: t.field({
            type: types.deletion as never,
            authScopes: operationRule(d, 'delete') as never,
            args: { id: t.arg.id({ required: true }), purge: t.arg.boolean({ description: `Remove the record for good${d.softDelete ? ', live or from the trash' : ''} (owners and admins; a private record: its creator).` }) },
            resolve: async (_root, { id, purge }, ctx) => {
              if (purge) return (await trash.purge(ctx, d, String(id)), { id: String(id), message: `${d.name} purged`, record: null }) as never;
              const { deleted } = await writes.remove(ctx, d, String(id));
              return { id: String(id), message: `${d.name} deleted`, record: deleted } as never;
            },
          }),
          ...(d.softDelete
            ? {
                [names.restore]: t.field({
                  type: types.record as never,
                  description: `Takes a ${d.name} out of the trash (the delete rule; 409 naming the field when a live record took its unique value since).`,
                  authScopes: operationRule(d, 'delete') as never,
                  args: { id: t.arg.id({ required: true }) },
                  resolve: (_root, { id }, ctx) => trash.restoreFromTrash(ctx, d, String(id)) as never,
                }),
              }
            : {}),
        }
      : {}),
    // Children are changed under their parent, with the parent's update scopes.
    ...(on.update ? Object.fromEntries(types.children.flatMap((c) => childMutations(t, d, c.child, c))) : {}),
  }));
}

type MutationBuilder = Parameters<Parameters<Builder['mutationFields']>[0]>[0];

function childMutations(t: MutationBuilder, d: EntityDefinition, child: ChildDefinition, types: EntityTypes['children'][number]) {
  const names = graphqlNames(child);
  const authScopes = operationRule(d, 'update') as never;
  const parentId = () => t.arg.id({ required: true });
  return [
    [names.create, t.field({ type: types.record as never, authScopes, args: { parentId: parentId(), input: t.arg({ type: types.createInput as never, required: true }) }, resolve: (_root, args, ctx) => children.createChild(ctx, d, String(args.parentId), child.slug, args.input as Values) as never })],
    [names.update, t.field({ type: types.record as never, authScopes, args: { parentId: parentId(), id: t.arg.id({ required: true }), input: t.arg({ type: types.updateInput as never, required: true }) }, resolve: (_root, args, ctx) => children.updateChild(ctx, d, String(args.parentId), child.slug, String(args.id), args.input as Values) as never })],
    [names.delete, t.boolean({ authScopes, args: { parentId: parentId(), id: t.arg.id({ required: true }) }, resolve: async (_root, args, ctx) => (await children.removeChild(ctx, d, String(args.parentId), child.slug, String(args.id)), true) })],
  ] as const;
}

/** The entities' types on each builder they were registered on (the module's registerSchema). */
const registered = new WeakMap<Builder, ReadonlyMap<EntityDefinition, EntityTypes>>();

/** Registers the configured definitions on `b` (the entities module's registerSchema). */
export function registerEntitySchema(b: Builder): void {
  registered.set(b, registerEntities(b, entityDefinitions));
}

/**
 * An entity's GraphQL face on builder `b`, for fields of other modules over its records (realtime's
 * `taskEvents`, registered after the entities): its types, its names, and LIST's rule (they filter as LIST does).
 */
export function entityFace(b: Builder, d: EntityDefinition): { types: EntityTypes; names: ReturnType<typeof graphqlNames>; listAuthScopes: ReturnType<typeof listFieldRule> } {
  const types = registered.get(b)?.get(d);
  if (!types) throw new Error(`Entity ${d.slug} has no GraphQL types on this builder: list the entities module before the modules that use them`);
  return { types, names: graphqlNames(d), listAuthScopes: listFieldRule(d) };
}
