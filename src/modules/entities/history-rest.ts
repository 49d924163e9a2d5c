// REST face of record history (history-schema.ts is the GraphQL one it runs): per entity that keeps
// history, `GET /api/v1/{entity}/{id}/versions` (newest first: `limit`, `cursor`), `GET
// /api/v1/{entity}/{id}/versions/{version}` and `POST /api/v1/{entity}/{id}/versions/{version}/restore`,
// and per child `GET /api/v1/{entity}/{id}/child/{child}/{childId}/versions` and `…/versions/{version}`,
// each its typed GraphQL document, with its OpenAPI.
import { parse } from 'graphql';
import { z } from 'zod';
import type { ChildDefinition, EntityDefinition } from '../../config/entity-definition.js';
import { defineRoute, type RestRoute } from '../../rest/route.js';
import { childVersionField, graphqlNames } from './graphql-names.js';
import { errors } from './openapi.js';
import { json, path, query, upperFirst } from './openapi-parameters.js';
import { entitySchemas, ref, schemaNames, type Schema } from './openapi-schemas.js';
import { exampleRecord } from './openapi-examples.js';
import { recordMapper } from './rest-answers.js';
import { childSelection, writtenRecord, type Answer, type EntityDocument, type Values } from './rest-documents.js';

/** The selection of a version: its record as a write answers it (a child's with its parentId). */
const versionFields = (owner: EntityDefinition | ChildDefinition) => `version operation changedFields userId apiKeyId face createdAt record ${'children' in owner ? writtenRecord(owner) : childSelection(owner)}`;
const document = (text: string) => parse(text, { noLocation: true }) as unknown as EntityDocument;

const recordParams = z.object({ id: z.string().max(100) });
const versionParams = recordParams.extend({ version: z.coerce.number().int().min(1).max(2 ** 31 - 1) });
const childParams = recordParams.extend({ childId: z.string().max(100) });
const childVersionParams = childParams.extend({ version: versionParams.shape.version });
const pageQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).optional(), cursor: z.string().max(20).optional() });

/** A version as REST answers it: its record under `data`, shown as READ shows one. */
function versionMapper(owner: EntityDefinition | ChildDefinition): (version: Values) => Values {
  const map = recordMapper(owner);
  return ({ record, ...rest }) => ({ ...rest, data: map(record as Values) });
}

const result = (r: Answer) => r.result;

/**
 * GET `base` (newest first: limit, cursor) and `base/{version}` for the versions of a record of `d`
 * or (`child`) of one of its children, each a GraphQL document on the record's READ field.
 */
function readRoutes(d: EntityDefinition, child: ChildDefinition | null, base: string, docs: HistoryOpenApi): RestRoute[] {
  const n = graphqlNames(d);
  const owner = child ?? d;
  const tags = [d.pluralName];
  const version = versionMapper(owner);
  // On the record: `versions`/`version`; for a child: `noteVersions(id:)`/`noteVersion(id:)`.
  const [list, one] = child ? [`${childVersionField(child)}s(id: $childId, `, `${childVersionField(child)}(id: $childId, `] : ['versions(', 'version('];
  const childVar = child ? ', $childId: ID!' : '';
  const childId = (params: object) => (child ? { childId: (params as { childId: string }).childId } : {});
  const name = `${n.type}${child ? child.name : ''}`;
  return [
    defineRoute({
      method: 'GET', path: base, tags, access: 'authenticated', openapi: docs.list,
      summary: `The versions of a ${owner.name}, newest first (limit, cursor)`,
      params: child ? childParams : recordParams,
      query: pageQuery,
      operation: document(`query ${name}Versions($id: ID!${childVar}, $first: Int, $after: String) { result: ${n.read}(id: $id) { versions: ${list}first: $first, after: $after) { items { ${versionFields(owner)} } hasMore endCursor } } }`),
      variables: ({ params, query: q }) => ({ id: params.id, ...childId(params), first: q.limit, after: q.cursor }),
      data: (r) => ((result(r).versions as { items: Values[] }).items).map(version),
      extras: (r) => {
        const page = result(r).versions as { hasMore: boolean; endCursor: string | null };
        return { pagination: { hasMore: page.hasMore, nextCursor: page.hasMore ? page.endCursor : null } };
      },
    }),
    defineRoute({
      method: 'GET', path: `${base}/{version}`, tags, access: 'authenticated', openapi: docs.one,
      summary: `One version of a ${owner.name}`,
      params: child ? childVersionParams : versionParams,
      operation: document(`query ${name}Version($id: ID!${childVar}, $number: Int!) { result: ${n.read}(id: $id) { version: ${one}number: $number) { ${versionFields(owner)} } } }`),
      variables: ({ params }) => ({ id: params.id, ...childId(params), number: params.version }),
      data: (r) => version(result(r).version as Values),
    }),
  ];
}

/** The history routes of `d` (none when it keeps no history or cannot be read; restore only when it can be updated). */
export function historyRoutes(d: EntityDefinition): RestRoute[] {
  if (d.history.keep === false || !d.operations.read) return [];
  const base = `/api/v1/${d.slug}/{id}/versions`;
  const docs = historyOpenApi(d, null);
  const routes = [...readRoutes(d, null, base, docs), ...d.children.flatMap((c) => readRoutes(d, c, `/api/v1/${d.slug}/{id}/child/${c.slug}/{childId}/versions`, historyOpenApi(d, c)))];
  if (!d.operations.update) return routes;
  const n = graphqlNames(d);
  const map = recordMapper(d);
  return [
    ...routes,
    defineRoute({
      method: 'POST', path: `${base}/{version}/restore`, tags: [d.pluralName], access: 'authenticated', openapi: docs.restore,
      summary: `Restore a version of a ${d.name} (as a new change)`,
      params: versionParams,
      operation: document(`mutation restore${n.type}Version($id: ID!, $version: Int!) { result: ${n.restoreVersion}(id: $id, version: $version) ${writtenRecord(d)} }`),
      variables: ({ params }) => ({ id: params.id, version: params.version }),
      data: (r) => map(result(r)),
    }),
  ];
}

type HistoryOpenApi = ReturnType<typeof historyOpenApi>;

/** The OpenAPI of the routes: of a record's versions (and their restore), or (`child`) of a child's. */
function historyOpenApi(d: EntityDefinition, child: ChildDefinition | null) {
  const owner = child ?? d;
  const s = schemaNames(owner);
  const versionName = `${owner.name}Version`;
  const read = d.permissions.read;
  const update = d.permissions.update;
  const scopeText = (scopes: string[]) => (scopes.length ? `Scope: ${scopes.join(' or ')}.` : 'No scope grants this operation.');
  const versionSchema: Schema = {
    type: 'object',
    required: ['version', 'operation', 'changedFields', 'userId', 'apiKeyId', 'face', 'createdAt', 'data'],
    properties: {
      version: { type: 'integer', minimum: 1 },
      operation: { type: 'string', enum: ['create', 'update', 'delete', 'restore'] },
      changedFields: { type: 'array', items: { type: 'string' } },
      userId: { type: ['string', 'null'], format: 'uuid' },
      apiKeyId: { type: ['string', 'null'], format: 'uuid' },
      face: { type: 'string', enum: ['rest', 'graphql', 'cli', 'action'] },
      createdAt: { type: 'string', format: 'date-time' },
      data: ref(s.record),
    },
  };
  const example = { version: 2, operation: 'update', changedFields: [owner.fields[0]?.name ?? 'title'], userId: '8c3f2b9e-1d4a-4f6b-9a2c-5e7d8f9a0b1c', apiKeyId: null, face: 'rest', createdAt: '2026-11-29T10:00:00.000Z', data: exampleRecord(owner, { child: Boolean(child) }) };
  const schemas = {
    ...entitySchemas(d),
    [versionName]: versionSchema,
    [`${versionName}ListResponse`]: { type: 'object', required: ['success', 'data', 'pagination'], properties: { success: { const: true }, data: { type: 'array', items: ref(versionName) }, pagination: { type: 'object', required: ['hasMore', 'nextCursor'], properties: { hasMore: { type: 'boolean' }, nextCursor: { type: ['string', 'null'] } } } } },
    [`${versionName}Response`]: { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data: ref(versionName) } },
  };
  const ids = [path('id', `The ${d.name}'s id`), ...(child ? [path('childId', `The ${child.name}'s id`)] : [])];
  const number: Schema = { name: 'version', in: 'path', required: true, description: 'The version’s number', schema: { type: 'integer', minimum: 1 } };
  const whose = child ? `one of a ${d.name}'s ${child.slug}, while it is one (through the ${d.name}, which the caller can read now)` : 'a record the caller can read now';
  const operationName = child ? `${upperFirst(d.name)}${child.name}` : d.name;
  return {
    list: {
      operationId: `list${operationName}Versions`,
      summary: `List a ${owner.name}'s versions`,
      description: `The versions of ${whose}, newest first: the record after each change, who made it (user, API key), when, through which face, and the fields it changed. ${scopeText(read)}`,
      parameters: [...ids, query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'Versions per page.'), query('cursor', { type: 'string' }, 'The `nextCursor` of the previous page.')],
      responses: { '200': json(`Versions of the ${owner.name}`, ref(`${versionName}ListResponse`), { success: true, data: [example], pagination: { hasMore: false, nextCursor: null } }), ...errors(d, read[0], ['query', '404'], {}) },
      schemas,
    },
    one: {
      operationId: `get${operationName}Version`,
      summary: `Get one version of a ${owner.name}`,
      description: `One version of ${whose}. ${scopeText(read)}`,
      parameters: [...ids, number],
      responses: { '200': json(`The version`, ref(`${versionName}Response`), { success: true, data: example }), ...errors(d, read[0], ['query', '404'], {}) },
      schemas,
    },
    restore: {
      operationId: `restore${upperFirst(d.name)}Version`,
      summary: `Restore a version of a ${d.name}`,
      description: `Writes the version's field values back onto the record as a new change (validation and hooks run; it is refused as any update would be). ${scopeText(update)}`,
      parameters: [...ids, number],
      responses: { '200': json(`The restored ${d.name}`, ref(schemaNames(d).one), { success: true, data: exampleRecord(d) }), ...errors(d, update[0], ['404', '422', ...(d.fields.some((f) => f.unique) ? ['409'] : [])], {}) },
      schemas,
    },
  };
}
