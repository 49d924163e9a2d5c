// TRANSITIONAL: the nine generic `entity*` fields the REST routes of rest.ts run today (REST-shaped
// parameters in, REST-shaped JSON out). They go, with this file, operations.graphql and the string
// parser of query.ts, when the REST routes run the typed per-entity fields (schema.ts). Typed fields
// check scopes with authScopes; these fields cannot declare them (the entity is an argument), so
// they check the definition's permissions themselves until then.
import type { EntityDefinition, Operation } from '../../config/entity-definition.js';
import { hasScope } from '../../auth/scopes.js';
import type { Builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import { AppError, forbidden } from '../../shared/errors.js';
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

/** The entity of `slug` for `op`, its scopes checked as the typed fields' authScopes would (the service answers 405 and 401). */
function gate(ctx: Context, definitions: readonly EntityDefinition[], slug: string, op: Operation): EntityDefinition {
  const d = definitions.find((e) => e.slug === slug);
  if (!d) throw new AppError('NOT_FOUND', `Unknown entity "${slug}"`);
  const { actor } = ctx;
  if (!d.operations[op] || actor.kind !== 'user') return d;
  const needed = d.permissions[op];
  if (!needed.some((s) => hasScope(actor.scopes, s))) throw forbidden(needed.length ? `Insufficient permissions - ${needed[0]} scope required` : `Insufficient permissions - ${d.slug}:${op} scope required (the definition grants it to no scope)`);
  return d;
}

const listed = (r: records.ListResult) => ({ data: r.data, pagination: r.pagination });

export function registerGenericFields(b: Builder, definitions: readonly EntityDefinition[]): void {
  const entity = (ctx: Context, slug: string, op: Operation) => gate(ctx, definitions, slug, op);
  b.queryFields((t) => ({
    entityList: t.field({
      type: 'JSONObject',
      description: 'LIST of any entity with the REST query parameters: `{data, pagination}`.',
      args: { entity: t.arg.string({ required: true }), params: t.arg({ type: 'JSONObject' }) },
      resolve: async (_root, { entity: slug, params }, ctx) => listed(await records.listFromParams(ctx, entity(ctx, slug, 'list'), asParams(params))),
    }),
    entityRecord: t.field({
      type: 'JSONObject',
      description: 'READ of any entity (`fields`, `metas`, `child` parameters).',
      args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), params: t.arg({ type: 'JSONObject' }) },
      resolve: (_root, { entity: slug, id, params }, ctx) => records.readFromParams(ctx, entity(ctx, slug, 'read'), String(id), asParams(params)),
    }),
    entityChildren: t.field({
      type: ['JSONObject'],
      args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), child: t.arg.string({ required: true }) },
      resolve: (_root, { entity: slug, id, child }, ctx) => records.listChildren(ctx, entity(ctx, slug, 'read'), String(id), child),
    }),
  }));

  b.mutationFields((t) => ({
    entityCreate: t.field({
      type: 'JSONObject',
      args: { entity: t.arg.string({ required: true }), data: t.arg({ type: 'JSONObject', required: true }) },
      resolve: (_root, { entity: slug, data }, ctx) => records.create(ctx, entity(ctx, slug, 'create'), data),
    }),
    entityUpdate: t.field({
      type: 'JSONObject',
      args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), data: t.arg({ type: 'JSONObject', required: true }) },
      resolve: (_root, { entity: slug, id, data }, ctx) => records.update(ctx, entity(ctx, slug, 'update'), String(id), data),
    }),
    entityDelete: t.field({
      type: 'JSONObject',
      description: '`{message}`, or `{data}` with `deletedAt` for soft-deleting entities.',
      args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
      resolve: async (_root, { entity: slug, id }, ctx) => {
        const d = entity(ctx, slug, 'delete');
        const { deleted } = await records.remove(ctx, d, String(id));
        return deleted ? { data: deleted } : { message: `${d.name} deleted` };
      },
    }),
    entityCreateChild: t.field({
      type: 'JSONObject',
      args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), child: t.arg.string({ required: true }), data: t.arg({ type: 'JSONObject', required: true }) },
      resolve: (_root, { entity: slug, id, child, data }, ctx) => records.createChild(ctx, entity(ctx, slug, 'update'), String(id), child, data),
    }),
    entityUpdateChild: t.field({
      type: 'JSONObject',
      args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), child: t.arg.string({ required: true }), childId: t.arg.id({ required: true }), data: t.arg({ type: 'JSONObject', required: true }) },
      resolve: (_root, { entity: slug, id, child, childId, data }, ctx) => records.updateChild(ctx, entity(ctx, slug, 'update'), String(id), child, String(childId), data),
    }),
    entityDeleteChild: t.boolean({
      args: { entity: t.arg.string({ required: true }), id: t.arg.id({ required: true }), child: t.arg.string({ required: true }), childId: t.arg.id({ required: true }) },
      resolve: async (_root, { entity: slug, id, child, childId }, ctx) => {
        await records.removeChild(ctx, entity(ctx, slug, 'update'), String(id), child, String(childId));
        return true;
      },
    }),
  }));
}
