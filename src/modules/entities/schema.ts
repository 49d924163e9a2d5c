// GraphQL face of entities, built at start-up from the definitions: per entity a type (`Task`), a
// list query (`tasks`) with pages and cursors, `task(id)`, and `createTask`/`updateTask`/`deleteTask`;
// children as fields of the parent. The generic `entity*` fields take the REST-shaped parameters and
// return REST-shaped JSON: the REST routes run them, so both interfaces share one service.
import type { EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import { entityDefinitions } from '../../config/entities/index.js';
import { defineScopeResource } from '../../auth/scopes.js';
import { builder, type Builder } from '../../graphql/builder.js';
import { AppError } from '../../shared/errors.js';
import { childField } from './prisma-model.js';
import * as records from './service.js';

type Values = Record<string, unknown>;


/** GraphQL passes query parameters as JSON; the query language reads strings, as from a URL. */
function asParams(params: Values | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v === null || v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(',') : String(v);
  }
  return out;
}

/** Registers the entities' types and fields on `b` (the platform's builder, or a test's own). */
export function registerEntities(b: Builder, definitions: readonly EntityDefinition[]): void {
  const definition = (slug: string): EntityDefinition => {
    const d = definitions.find((e) => e.slug === slug);
    if (!d) throw new AppError('NOT_FOUND', `Unknown entity "${slug}"`);
    return d;
  };
  for (const d of definitions) defineScopeResource(d.slug, { description: `${d.name} records` });
  records.countPlanLimits(definitions);
  registerGeneric(b, definition);
  for (const d of definitions) registerTyped(b, d);
}

// ---- generic, REST-shaped fields --------------------------------------------------------------

function registerGeneric(b: Builder, definition: (slug: string) => EntityDefinition): void {
b.queryFields((t) => ({
  entityList: t.field({
    type: 'JSONObject',
    description: 'LIST of any entity with the REST query parameters: `{data, pagination}`.',
    args: { entity: t.arg.string({ required: true }), params: t.arg({ type: 'JSONObject' }) },
    resolve: (_root, { entity, params }, ctx) => records.list(ctx, definition(entity), asParams(params)),
  }),
  entityRecord: t.field({
    type: 'JSONObject',
    description: 'READ of any entity (`fields`, `metas`, `child` parameters).',
    args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), params: t.arg({ type: 'JSONObject' }) },
    resolve: (_root, { entity, id, params }, ctx) => records.read(ctx, definition(entity), String(id), asParams(params)),
  }),
  entityChildren: t.field({
    type: ['JSONObject'],
    args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), child: t.arg.string({ required: true }) },
    resolve: (_root, { entity, id, child }, ctx) => records.listChildren(ctx, definition(entity), String(id), child),
  }),
}));

b.mutationFields((t) => ({
  entityCreate: t.field({
    type: 'JSONObject',
    args: { entity: t.arg.string({ required: true }), data: t.arg({ type: 'JSONObject', required: true }) },
    resolve: (_root, { entity, data }, ctx) => records.create(ctx, definition(entity), data),
  }),
  entityUpdate: t.field({
    type: 'JSONObject',
    args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), data: t.arg({ type: 'JSONObject', required: true }) },
    resolve: (_root, { entity, id, data }, ctx) => records.update(ctx, definition(entity), String(id), data),
  }),
  entityDelete: t.field({
    type: 'JSONObject',
    description: '`{message}`, or `{data}` with `deletedAt` for soft-deleting entities.',
    args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, { entity, id }, ctx) => {
      const d = definition(entity);
      const { deleted } = await records.remove(ctx, d, String(id));
      return deleted ? { data: deleted } : { message: `${d.name} deleted` };
    },
  }),
  entityCreateChild: t.field({
    type: 'JSONObject',
    args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), child: t.arg.string({ required: true }), data: t.arg({ type: 'JSONObject', required: true }) },
    resolve: (_root, { entity, id, child, data }, ctx) => records.createChild(ctx, definition(entity), String(id), child, data),
  }),
  entityUpdateChild: t.field({
    type: 'JSONObject',
    args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), child: t.arg.string({ required: true }), childId: t.arg.id({ required: true }), data: t.arg({ type: 'JSONObject', required: true }) },
    resolve: (_root, { entity, id, child, childId, data }, ctx) => records.updateChild(ctx, definition(entity), String(id), child, String(childId), data),
  }),
  entityDeleteChild: t.boolean({
    args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), child: t.arg.string({ required: true }), childId: t.arg.id({ required: true }) },
    resolve: async (_root, { entity, id, child, childId }, ctx) => {
      await records.removeChild(ctx, definition(entity), String(id), child, String(childId));
      return true;
    },
  }),
}));
}

// ---- typed, per entity -------------------------------------------------------------------------

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

type FieldBuilder = Parameters<NonNullable<Parameters<ReturnType<typeof builder.objectRef<Values>>['implement']>[0]['fields']>>[0];

const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** The GraphQL fields of a record type: system fields, then the definition's fields by type. */
function recordFields(t: FieldBuilder, fields: readonly FieldDefinition[]) {
  const out: Record<string, ReturnType<FieldBuilder['field']>> = {
    id: t.id({ resolve: (r) => String(r.id) }),
    createdAt: t.string({ resolve: (r) => String(r.createdAt) }),
    updatedAt: t.string({ resolve: (r) => String(r.updatedAt) }),
    userId: t.id({ nullable: true, resolve: (r) => str(r.userId) }),
    teamId: t.id({ nullable: true, resolve: (r) => str(r.teamId) }),
  };
  for (const f of fields) {
    // Required fields are non-null in the schema; the cast only widens what resolvers may return.
    const nullable = !f.required as true;
    const value = (r: Values) => r[f.name] ?? null;
    out[f.name] =
      f.type === 'number' ? t.float({ nullable, resolve: (r) => value(r) as number | null })
      : f.type === 'integer' ? t.int({ nullable, resolve: (r) => value(r) as number | null })
      : f.type === 'boolean' ? t.boolean({ nullable, resolve: (r) => value(r) as boolean | null })
      : f.type === 'multiselect' ? t.stringList({ resolve: (r) => (value(r) as string[] | null) ?? [] })
      : f.type === 'json' ? t.field({ type: 'JSONObject', nullable: true, resolve: (r) => value(r) as Values | null })
      : t.string({ nullable, resolve: (r) => str(value(r)) });
  }
  return out;
}

/** The typed face of one entity: its type, filter input, page type, queries and mutations. */
function registerTyped(b: Builder, d: EntityDefinition): void {
  const children = d.children.map((child) => ({
    child,
    ref: b.objectRef<Values>(child.name).implement({ description: `A ${child.name} of a ${d.name}.`, fields: (t) => ({ ...recordFields(t, child.fields), parentId: t.id({ resolve: (r) => String(r.parentId) }) }) }),
  }));
  const ref = b.objectRef<Values>(d.name).implement({
    description: `A ${d.name} record (entity \`${d.slug}\`).`,
    fields: (t) => ({
      ...recordFields(t, d.fields),
      ...(d.metas ? { metas: t.field({ type: 'JSONObject', resolve: (r) => (r.metas as Values | undefined) ?? {} }) } : {}),
      ...(d.softDelete ? { deletedAt: t.string({ nullable: true, resolve: (r) => str(r.deletedAt) }) } : {}),
      ...Object.fromEntries(children.map(({ child, ref: childRef }) => [childField(child), t.field({ type: [childRef], resolve: (r, _a, ctx) => records.listChildren(ctx, d, String(r.id), child.slug) })])),
    }),
  });
  const page = b.objectRef<{ data: Values[]; pagination: { page: number; limit: number; total: number; totalPages: number } }>(`${d.name}Page`).implement({
    fields: (t) => ({
      items: t.field({ type: [ref], resolve: (p) => p.data }),
      page: t.int({ resolve: (p) => p.pagination.page }),
      limit: t.int({ resolve: (p) => p.pagination.limit }),
      total: t.int({ resolve: (p) => p.pagination.total }),
      totalPages: t.int({ resolve: (p) => p.pagination.totalPages }),
      endCursor: t.string({ nullable: true, description: 'Pass as `after` for the next page.', resolve: (p) => (p.pagination.page < p.pagination.totalPages ? Buffer.from(String(p.pagination.page)).toString('base64url') : null) }),
    }),
  });
  // The filter input: equality per filterable field (multiselect: contains), ranges for numbers and dates.
  const filterable = d.fields.filter((f) => f.filterable);
  const ranged = (f: FieldDefinition) => ['number', 'integer', 'date', 'datetime'].includes(f.type);
  const filter = filterable.length
    ? b.inputType(`${d.name}Filter`, {
        description: `Filters of ${d.slug} (combined with AND); dates as YYYY-MM-DD, instants as ISO 8601.`,
        fields: (t) => {
          const arg = (f: FieldDefinition) => (f.type === 'number' ? t.float() : f.type === 'integer' ? t.int() : f.type === 'boolean' ? t.boolean() : t.string());
          const out: Record<string, ReturnType<typeof arg>> = {};
          for (const f of filterable) {
            out[f.name] = arg(f);
            if (ranged(f)) {
              out[`${f.name}_min`] = arg(f);
              out[`${f.name}_max`] = arg(f);
            }
          }
          return out;
        },
      })
    : null;
  const pageFromCursor = (after: string | null | undefined) => (after ? String(Number(Buffer.from(after, 'base64url').toString()) + 1) : undefined);

  b.queryFields((t) => ({
    [lowerFirst(d.pluralName)]: t.field({
      type: page,
      description: `LIST ${d.slug}: the REST query language as arguments; \`filter\` holds the field filters.`,
      args: {
        page: t.arg.int(),
        limit: t.arg.int(),
        first: t.arg.int({ description: 'Cursor pagination: page size.' }),
        after: t.arg.string({ description: 'Cursor pagination: `endCursor` of the previous page.' }),
        sortBy: t.arg.string(),
        sortOrder: t.arg.string(),
        search: t.arg.string(),
        ids: t.arg.idList(),
        from: t.arg.string(),
        to: t.arg.string(),
        dateField: t.arg.string(),
        ...(filter ? { filter: t.arg({ type: filter }) } : {}),
      },
      resolve: (_root, { first, after, ...args }, ctx) => {
        const { filter: given, ...rest } = args as typeof args & { filter?: Values | null };
        const paging = { ...(first ? { limit: first } : {}), ...(after ? { page: pageFromCursor(after) } : {}) };
        return records.list(ctx, d, asParams({ ...given, ...rest, ...paging, ...(d.metas ? { metas: 'all' } : {}) }));
      },
    }),
    [lowerFirst(d.name)]: t.field({
      type: ref,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => records.read(ctx, d, String(id), d.metas ? { metas: 'all' } : {}),
    }),
  }));
  b.mutationFields((t) => ({
    [`create${d.name}`]: t.field({ type: ref, args: { input: t.arg({ type: 'JSONObject', required: true }) }, resolve: (_root, { input }, ctx) => records.create(ctx, d, input) }),
    [`update${d.name}`]: t.field({ type: ref, args: { id: t.arg.id({ required: true }), input: t.arg({ type: 'JSONObject', required: true }) }, resolve: (_root, { id, input }, ctx) => records.update(ctx, d, String(id), input) }),
    [`delete${d.name}`]: t.boolean({ args: { id: t.arg.id({ required: true }) }, resolve: async (_root, { id }, ctx) => (await records.remove(ctx, d, String(id)), true) }),
    // Children: created, changed and deleted under their parent (`createNote(parentId, input)`).
    ...Object.fromEntries(
      children.flatMap(({ child, ref: childRef }) => [
        [`create${child.name}`, t.field({ type: childRef, args: { parentId: t.arg.id({ required: true }), input: t.arg({ type: 'JSONObject', required: true }) }, resolve: (_root, { parentId, input }, ctx) => records.createChild(ctx, d, String(parentId), child.slug, input) })],
        [`update${child.name}`, t.field({ type: childRef, args: { parentId: t.arg.id({ required: true }), id: t.arg.id({ required: true }), input: t.arg({ type: 'JSONObject', required: true }) }, resolve: (_root, { parentId, id, input }, ctx) => records.updateChild(ctx, d, String(parentId), child.slug, String(id), input) })],
        [`delete${child.name}`, t.boolean({ args: { parentId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) }, resolve: async (_root, { parentId, id }, ctx) => (await records.removeChild(ctx, d, String(parentId), child.slug, String(id)), true) })],
      ]),
    ),
  }));
}

registerEntities(builder, entityDefinitions);
