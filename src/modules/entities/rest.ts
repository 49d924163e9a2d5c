// REST face of entities: the contract's dynamic routes, declared per definition at start-up with
// concrete paths (`/api/v1/tasks`, `/api/v1/tasks/{id}`, `/api/v1/customers/{id}/child/notes`…). Each
// runs its entity's typed GraphQL document (rest-documents.ts); the query string and the body become
// its variables at this edge (list-params.ts, rest-bodies.ts) and its answer the REST envelope
// (rest-answers.ts). An operation the definition turns off has no route: the router answers 405.
import { z } from 'zod';
import type { ChildDefinition, EntityDefinition, Operation } from '../../config/entity-definition.js';
import { defineRoute, type HttpMethod, type RestRoute, type RouteAccess } from '../../rest/route.js';
import { aggregateVariables, listVariables, readVariables } from './list-params.js';
import { listAnswer, recordMapper, refuseDisabled } from './rest-answers.js';
import { aggregateOpenApi, entityOpenApi, trashOpenApi } from './openapi.js';
import { bodyInput } from './rest-bodies.js';
import { historyRoutes } from './history-rest.js';
import * as documents from './rest-documents.js';

type Values = documents.Values;
const record = z.object({ id: z.string().max(100) });
const childRecord = record.extend({ childId: z.string().max(100) });
const query = z.record(z.string(), z.string());
const deleteQuery = z.object({ purge: z.enum(['true', 'false']).optional() });
const body = z.record(z.string(), z.unknown());
const result = (r: documents.Answer) => r.result;

/**
 * Every route of the definitions' enabled operations. Their resolvers give values in REST's form (the
 * service's `present`), so they answer them unserialized: a select's stored string, not its enum name.
 */
export function entityRoutes(definitions: readonly EntityDefinition[]): RestRoute[] {
  return definitions.flatMap((d) => [...recordRoutes(d), ...d.children.flatMap((c) => childRoutes(d, c))]).map((route) => ({ ...route, storedValues: true }));
}

function recordRoutes(d: EntityDefinition): RestRoute[] {
  const base = `/api/v1/${d.slug}`;
  const item = `${base}/{id}`;
  const tags = [d.pluralName];
  const access = (op: Operation): RouteAccess => (d.access.public && (op === 'list' || op === 'read') ? 'public' : 'authenticated');
  const map = recordMapper(d);
  const list = listAnswer(d);
  // Made only for the operations the definition turns on.
  const routes: Record<Operation, () => RestRoute> = {
    list: () => defineRoute({
      method: 'GET', path: base, tags, access: access('list'), openapi: entityOpenApi(d, 'list'),
      summary: `LIST ${d.slug}: page, limit, sortBy, sortOrder, fields, distinct, ids, search, from, to, dateField, metas, child, expand, {field}, {field}_min, {field}_max, {field}[op], filter`,
      query,
      operation: documents.listDocument(d),
      variables: ({ query: q }) => listVariables(d, q),
      parameterNames: { after: 'cursor' },
      data: (r) => list.data(result(r)),
      extras: (r) => ({ pagination: list.pagination(result(r)) }),
    }),
    create: () => defineRoute({
      method: 'POST', path: base, tags, access: access('create'), openapi: entityOpenApi(d, 'create'),
      summary: `CREATE a ${d.name} (its fields${d.metas ? ', optional metas' : ''})`,
      body,
      operation: documents.createDocument(d),
      variables: ({ body: b }) => ({ input: bodyInput([...d.fields, ...d.links], b, { partial: false, metas: d.metas }) }),
      data: (r) => map(result(r)),
      status: 201,
    }),
    read: () => defineRoute({
      method: 'GET', path: item, tags, access: access('read'), openapi: entityOpenApi(d, 'read'),
      summary: `READ a ${d.name} (fields, metas, child, expand)`,
      params: record,
      query,
      operation: documents.readDocument(d),
      variables: ({ params, query: q }) => readVariables(d, params.id, q),
      data: (r) => map(result(r)),
    }),
    update: () => defineRoute({
      method: 'PATCH', path: item, tags, access: access('update'), openapi: entityOpenApi(d, 'update'),
      summary: `UPDATE a ${d.name} partially${d.metas ? ' (metas merge; null removes a key)' : ''}`,
      params: record,
      body,
      operation: documents.updateDocument(d),
      variables: ({ params, body: b }) => ({ id: params.id, input: bodyInput([...d.fields, ...d.links], b, { partial: true, metas: d.metas }) }),
      data: (r) => map(result(r)),
    }),
    delete: () => defineRoute({
      method: 'DELETE', path: item, tags, access: access('delete'), openapi: entityOpenApi(d, 'delete'),
      summary: d.softDelete ? `DELETE a ${d.name} (soft: answers the record with deletedAt)` : `DELETE a ${d.name}`,
      params: record,
      query: deleteQuery,
      operation: documents.deleteDocument(d),
      variables: ({ params, query: q }) => ({ id: params.id, purge: q.purge === 'true' }),
      data: (r) => (result(r).record ? map(result(r).record as Values) : undefined),
      extras: (r): { message?: string } => (result(r).record ? {} : { message: result(r).message as string }),
    }),
  };
  const aggregate = () => defineRoute({
    method: 'GET', path: `${base}/aggregate`, tags, access: access('list'), openapi: aggregateOpenApi(d),
    summary: `AGGREGATE ${d.slug}: groupBy, count, sum, avg, min, max, and LIST's filters`,
    query,
    operation: documents.aggregateDocument(d),
    variables: ({ query: q }) => aggregateVariables(d, q),
    data: (r) => result(r).groups,
  });
  const trash = () => [
    defineRoute({
      method: 'GET', path: `${base}/trash`, tags, access: 'authenticated', openapi: trashOpenApi(d, 'list'),
      summary: `The trash of ${d.slug}: deleted records, with LIST's parameters`,
      query,
      operation: documents.listDocument(d, 'trash'),
      variables: ({ query: q }) => listVariables(d, q),
      parameterNames: { after: 'cursor' },
      data: (r) => list.data(result(r)),
      extras: (r) => ({ pagination: list.pagination(result(r)) }),
    }),
    defineRoute({
      method: 'POST', path: `${item}/restore`, tags, access: 'authenticated', openapi: trashOpenApi(d, 'restore'),
      summary: `Restore a ${d.name} from the trash`,
      params: record,
      operation: documents.restoreDocument(d),
      variables: ({ params }) => ({ id: params.id }),
      data: (r) => map(result(r)),
    }),
  ];
  return [
    ...enabled(d, routes, { GET: 'list', POST: 'create' }, base),
    ...(d.operations.list ? [aggregate()] : []),
    ...(d.softDelete && d.operations.list && d.operations.delete ? trash() : []),
    ...enabled(d, routes, { GET: 'read', PATCH: 'update', DELETE: 'delete' }, item),
    ...historyRoutes(d),
  ];
}

/** Children follow their parent: listed under its read operation, written under its update operation. */
function childRoutes(d: EntityDefinition, child: ChildDefinition): RestRoute[] {
  const base = `/api/v1/${d.slug}/{id}/child/${child.slug}`;
  const item = `${base}/{childId}`;
  const tags = [d.pluralName];
  const access: RouteAccess = 'authenticated';
  const map = recordMapper(child);
  const routes: Record<'list' | 'create' | 'update' | 'delete', () => RestRoute> = {
    list: () => defineRoute({
      method: 'GET', path: base, tags, access, openapi: entityOpenApi(d, 'list', child), summary: `LIST the ${child.slug} of a ${d.name}`,
      params: record,
      operation: documents.childListDocument(d, child),
      variables: ({ params }) => ({ id: params.id }),
      data: (r) => (result(r).children as Values[]).map(map),
    }),
    create: () => defineRoute({
      method: 'POST', path: base, tags, access, openapi: entityOpenApi(d, 'create', child), summary: `CREATE a ${child.name} of a ${d.name}`,
      params: record,
      body,
      operation: documents.childCreateDocument(child),
      variables: ({ params, body: b }) => ({ parentId: params.id, input: bodyInput(child.fields, b, { partial: false, metas: false }) }),
      data: (r) => map(result(r)),
      status: 201,
    }),
    update: () => defineRoute({
      method: 'PATCH', path: item, tags, access, openapi: entityOpenApi(d, 'update', child), summary: `UPDATE a ${child.name} of a ${d.name}`,
      params: childRecord,
      body,
      operation: documents.childUpdateDocument(child),
      variables: ({ params, body: b }) => ({ parentId: params.id, id: params.childId, input: bodyInput(child.fields, b, { partial: true, metas: false }) }),
      data: (r) => map(result(r)),
    }),
    delete: () => defineRoute({
      method: 'DELETE', path: item, tags, access, openapi: entityOpenApi(d, 'delete', child), summary: `DELETE a ${child.name} of a ${d.name}`,
      params: childRecord,
      operation: documents.childDeleteDocument(child),
      variables: ({ params }) => ({ parentId: params.id, id: params.childId }),
      data: () => undefined,
      extras: () => ({ message: 'Child record deleted' }),
    }),
  };
  const on = { list: d.operations.read, create: d.operations.update, update: d.operations.update, delete: d.operations.update };
  const pick = (key: keyof typeof on) => (on[key] ? [routes[key]()] : []);
  const collection = [...pick('list'), ...pick('create')];
  const records = [...pick('update'), ...pick('delete')];
  return [...(collection.length ? collection : disabled(d, ['GET', 'POST'], base)), ...(records.length ? records : disabled(d, ['PATCH', 'DELETE'], item))];
}

/** The routes of one path whose operations the definition turns on; when none is, one that answers 405. */
function enabled(d: EntityDefinition, routes: Record<Operation, () => RestRoute>, byMethod: Partial<Record<HttpMethod, Operation>>, path: string): RestRoute[] {
  const on = Object.values(byMethod).filter((op) => d.operations[op]).map((op) => routes[op]());
  return on.length ? on : disabled(d, Object.keys(byMethod) as HttpMethod[], path);
}

/** A path all of whose operations are off still exists (405, not 404); `enabled: false` keeps it out of `Allow` and the documentation. */
function disabled(d: EntityDefinition, methods: HttpMethod[], path: string): RestRoute[] {
  return methods.map((method) => defineRoute({
    method, path, tags: [d.pluralName], access: 'authenticated', summary: 'Disabled by the entity definition',
    operation: documents.disabledDocument(),
    variables: () => refuseDisabled(d.slug, `${method} ${path}`),
    data: () => undefined,
    enabled: () => false,
  }));
}
