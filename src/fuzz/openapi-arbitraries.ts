// REST requests generated from the OpenAPI document (GET /api/v1/openapi.json): for every operation,
// path parameters, query strings, headers and bodies from the declared schemas, with hostile values,
// wrong types, malformed JSON and multipart mixed in. A route added to the document is fuzzed with
// no change here.
import fc from 'fast-check';
import type { FuzzRequest } from './fuzz-request.js';
import { deepNesting, hostileJson, hostileString, hugeString, oddDates, oddNumberTexts, refText, shortHostileString } from './hostile-values.js';
import { caller, extraHeaders, extraQuery, malformedJson, method, percentEncode, queryString, queryText, racing, rawQueryPiece, rawSegment, usualQueryNames } from './http-parts.js';
import { jsonText, type JsonTree } from './json-text.js';
import { restMultipart } from './multipart-arbitraries.js';
import { schemaValue, type JsonSchema, type ValueContext } from './schema-values.js';
import type { OpenApiDocument, OpenApiOperation } from './answer-checks.js';
import type { CallerKind } from './world.js';
import type { EntityDefinition } from '../config/entity-definition.js';
import { aggregateRequests, entityRequests } from './entity-requests.js';

type Schema = JsonSchema;
type Parameter = NonNullable<OpenApiOperation['parameters']>[number];

/** One method on one path of the document. */
export interface ApiOperation {
  method: string;
  path: string;
  parameters: Parameter[];
  /** The declared body: its media type and schema. */
  body?: { type: string; schema: Schema };
  /** Callable without credentials (`security: []`). */
  public: boolean;
}

/**
 * `schema` with its `#/components/schemas/…` references replaced by what they name (the entity
 * bodies are references), so that values are made from the real schema; a reference met again
 * inside itself stays open ({}).
 */
export function resolveRefs(schema: unknown, doc: OpenApiDocument, open: readonly string[] = []): Schema {
  if (Array.isArray(schema)) return schema.map((item) => resolveRefs(item, doc, open)) as unknown as Schema;
  if (schema === null || typeof schema !== 'object') return schema as Schema;
  const ref = (schema as Schema).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const name = ref.slice('#/components/schemas/'.length);
    const target = doc.components?.schemas?.[name];
    return target && !open.includes(name) ? resolveRefs(target, doc, [...open, name]) : {};
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, resolveRefs(value, doc, open)])) as Schema;
}

/** Every operation of the document, in document order, with its schemas' references resolved. */
export function operationsOf(doc: OpenApiDocument): ApiOperation[] {
  const operations: ApiOperation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [name, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(name)) continue;
      const [type, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
      // A parameter carried as JSON text (`filter`, declared by `content`) is text here; entity-requests.ts makes its JSON.
      const parameters = (op.parameters ?? []).map((p) => ({ ...p, schema: p.schema ? resolveRefs(p.schema, doc) : 'content' in p ? { type: 'string' } : undefined }));
      operations.push({ method: name.toUpperCase(), path, parameters, body: type ? { type, schema: resolveRefs(media?.schema ?? {}, doc) } : undefined, public: op.security?.length === 0 });
    }
  }
  return operations;
}

const entityPath = /^\/api\/v1\/([a-z][a-z0-9-]*)(?:\/\{id\}(?:\/child\/([a-z][a-z0-9-]*)(\/\{childId\})?)?)?$/;

/**
 * The entity-focused requests (entity-requests.ts) of an entity route declared with a concrete path
 * (`/api/v1/tasks/{id}`, `/api/v1/customers/{id}/child/notes`): the route as its generic form
 * (`/api/v1/{entity}/{id}`) over that one entity (and child), the request named by the concrete route.
 */
function concreteEntityRequests(op: ApiOperation, ctx: ValueContext, entities: readonly EntityDefinition[]): fc.Arbitrary<FuzzRequest> | null {
  const aggregated = /^\/api\/v1\/([a-z][a-z0-9-]*)\/aggregate$/.exec(op.path);
  const aggregatedEntity = aggregated && entities.find((e) => e.slug === aggregated[1]);
  if (aggregatedEntity && op.method === 'GET') return aggregateRequests(op, aggregatedEntity);
  const match = entityPath.exec(op.path);
  const entity = match && entities.find((e) => e.slug === match[1]);
  if (!match || !entity) return entityRequests(op, ctx, entities);
  const child = match[2] === undefined ? null : entity.children.find((c) => c.slug === match[2]);
  if (child === undefined) return null;
  const hasId = op.path !== `/api/v1/${entity.slug}`;
  const path = `/api/v1/{entity}${hasId ? '/{id}' : ''}${child ? `/child/{child}${match[3] ? '/{childId}' : ''}` : ''}`;
  const named = (name: string) => ({ name, in: 'path' as const, required: true, schema: { type: 'string' } });
  const parameters = [named('entity'), ...op.parameters, ...(child ? [named('child')] : [])];
  const generic = entityRequests({ ...op, path, parameters }, ctx, [{ ...entity, children: child ? [child] : entity.children }]);
  return generic && generic.map((request) => ({ ...request, route: `${op.method} ${op.path}` }));
}

/** The name a path parameter's values are chosen by: a bare `id` takes the resource before it (`/media/{id}` → `mediaId`). */
function parameterName(p: Parameter, path: string): string {
  if (p.name !== 'id') return p.name;
  const before = path.slice(0, path.indexOf(`{${p.name}}`)).split('/').filter(Boolean).pop() ?? '';
  return before.startsWith('{') ? p.name : `${before}Id`;
}

/** A path segment for parameter `p`: a seeded id or name mostly, else a schema value, hostile text or an odd raw segment. */
function segment(p: Parameter, path: string, ctx: ValueContext): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: schemaValue(p.schema, parameterName(p, path), ctx).map((tree) => percentEncode(queryText(tree))) },
    { weight: 2, arbitrary: hostileString.map(percentEncode) },
    { weight: 1, arbitrary: rawSegment },
  );
}

/** Query pairs for the declared query parameters: each absent, given, or given twice. */
function declaredQuery(params: Parameter[], ctx: ValueContext): fc.Arbitrary<[string, string][]> {
  const one = (p: Parameter) => schemaValue(p.schema, p.name, ctx).map((tree): [string, string] => [p.name, queryText(tree)]);
  const each = params.map((p) =>
    fc.oneof(
      { weight: p.required ? 1 : 3, arbitrary: fc.constant<[string, string][]>([]) },
      { weight: 6, arbitrary: one(p).map((pair) => [pair]) },
      { weight: 1, arbitrary: fc.tuple(one(p), one(p)) },
    ),
  );
  return fc.tuple(...each).map((lists) => lists.flat());
}

/** Header pairs for declared header parameters (x-team-id, x-cron-secret): the right value often. */
function declaredHeaders(params: Parameter[], ctx: ValueContext): fc.Arbitrary<[string, string][]> {
  const each = params.map((p) => {
    const right = p.name === 'x-cron-secret' ? fc.constant(refText('cronSecret')) : schemaValue(p.schema, p.name, ctx).map(queryText);
    return fc.oneof({ weight: 1, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 4, arbitrary: right.map((v): [string, string][] => [[p.name, v]]) }, { weight: 1, arbitrary: shortHostileString.map((v): [string, string][] => [[p.name, v]]) });
  });
  return fc.tuple(...each).map((lists) => lists.flat());
}

/** A JSON body for `schema`: conforming mostly, else malformed, deeply nested, huge, empty or of another type. */
function jsonBody(schema: Schema, ctx: ValueContext): fc.Arbitrary<{ type: string | null; text: string | null }> {
  const json = (text: string) => ({ type: 'application/json', text });
  return fc.oneof(
    { weight: 12, arbitrary: schemaValue(schema, 'body', ctx).map((tree) => json(jsonText(tree))) },
    { weight: 2, arbitrary: malformedJson.map(json) },
    { weight: 1, arbitrary: hostileJson.map((tree) => json(jsonText(tree))) },
    { weight: 1, arbitrary: deepNesting.map((tree) => json(jsonText(tree))) },
    { weight: 1, arbitrary: hugeString.map((s) => json(JSON.stringify({ name: s, title: s }))) },
    { weight: 1, arbitrary: fc.constantFrom({ type: null, text: null }, json(''), { type: 'text/plain', text: '{"name":"x"}' }, { type: 'application/x-www-form-urlencoded', text: 'name=x&__proto__[a]=1' }) },
  );
}

/** Requests for one operation. */
export function operationRequests(op: ApiOperation, ctx: ValueContext): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const multipartField = op.body?.type.startsWith('multipart/') ? (Object.keys(op.body.schema.properties ?? {})[0] ?? 'file') : null;
  const headers = extraHeaders(ctx.idRefs);
  const body = multipartField
    ? restMultipart(multipartField, headers).map((m) => ({ headers: m.headers, body: m.body as (string | Uint8Array)[] | undefined }))
    : fc.tuple(op.body ? jsonBody(op.body.schema, ctx) : fc.oneof({ weight: 8, arbitrary: fc.constant({ type: null, text: null }) }, { weight: 1, arbitrary: jsonBody({}, ctx) }), headers).map(([b, extra]) => ({
        headers: [...(b.type ? ([['content-type', b.type]] as [string, string][]) : []), ...extra],
        body: b.text === null ? undefined : [b.text],
      }));
  return fc
    .record({
      who: caller,
      method: method(op.method),
      segments: fc.tuple(...pathParams.map((p) => segment(p, op.path, ctx))),
      query: fc.tuple(declaredQuery(op.parameters.filter((p) => p.in === 'query'), ctx), extraQuery(ctx.names, ctx.idRefs), rawQueryPiece),
      declared: declaredHeaders(op.parameters.filter((p) => p.in === 'header'), ctx),
      body,
    })
    .map(({ who, method, segments, query: [declaredPairs, extraPairs, raw], declared, body }): FuzzRequest => {
      let path = op.path;
      pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, segments[i]!)));
      return { kind: 'rest', route: `${op.method} ${op.path}`, method, target: path + queryString([...declaredPairs, ...extraPairs], raw), ...who, headers: [...declared, ...body.headers], body: body.body };
    });
}

/** One odd thing in an otherwise valid request: its body member (index) and value. */
const oneHostileMember = fc.option(fc.tuple(fc.nat(), fc.oneof(hostileJson, shortHostileString.map((s): JsonTree => s))), { freq: 3, nil: null });

/** `tree` with one member's value (or a new member, in an empty object) replaced by `hostile`. */
function withHostileMember(tree: JsonTree, hostile: [number, JsonTree] | null, key: string): JsonTree {
  if (!hostile || tree === null || typeof tree !== 'object' || Array.isArray(tree) || !('entries' in tree)) return tree;
  const entries = [...tree.entries];
  if (entries.length) entries[hostile[0] % entries.length] = [entries[hostile[0] % entries.length]![0], hostile[1]];
  else entries.push([key, hostile[1]]);
  return { entries };
}

/**
 * Requests with one thing wrong at a time, so that most reach the service and the database: a caller
 * who may call, the declared method, seeded ids, a conforming body, then one hostile body member or
 * one odd query value (an entity field at 2^31 or year 0, a NUL).
 */
function focusedRequests(op: ApiOperation, ctx: ValueContext): fc.Arbitrary<FuzzRequest> {
  const valid: ValueContext = { ...ctx, conforming: true };
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryNames = [...ctx.fieldValues.keys(), ...usualQueryNames, ...op.parameters.filter((p) => p.in === 'query').map((p) => p.name)];
  const oddValue = fc.oneof(fc.constantFrom(...oddNumberTexts, ...oddDates), shortHostileString);
  const who = op.public
    ? fc.record({ caller: fc.constantFrom<CallerKind>('anonymous', 'anonymous', 'session'), keyHeader: fc.constant<'authorization'>('authorization') })
    : fc.record({ caller: fc.constantFrom<CallerKind>('session', 'session', 'wildcardKey', 'wildcardKey', 'narrowKey'), keyHeader: fc.constantFrom<'authorization' | 'x-api-key'>('authorization', 'x-api-key') });
  const key = queryNames.length ? fc.constantFrom(...queryNames) : fc.constant('x');
  return fc
    .record({
      who,
      segments: fc.tuple(...pathParams.map((p) => schemaValue(p.schema, parameterName(p, op.path), valid).map((tree) => percentEncode(queryText(tree))))),
      query: declaredQuery(op.parameters.filter((p) => p.in === 'query'), valid),
      odd: fc.option(fc.tuple(fc.tuple(key, fc.constantFrom('', '', '_min', '_max')).map(([n, s]) => n + s), oddValue), { freq: 2, nil: null }),
      declared: declaredHeaders(op.parameters.filter((p) => p.in === 'header'), valid),
      body: op.body ? fc.tuple(schemaValue(op.body.schema, 'body', valid), oneHostileMember, key) : fc.constant(null),
      twin: op.method === 'GET' ? fc.constant(false) : racing,
    })
    .map(({ who, segments, query, odd, declared, body, twin }): FuzzRequest => {
      let path = op.path;
      pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, segments[i]!)));
      const text = body && jsonText(withHostileMember(body[0], body[1], body[2]));
      return {
        kind: 'rest',
        route: `${op.method} ${op.path}`,
        method: op.method,
        target: path + queryString(odd ? [...query, odd] : query, null),
        ...who,
        headers: [...declared, ...(text === null ? [] : ([['content-type', 'application/json']] as [string, string][]))],
        body: text === null ? undefined : [text],
        twin,
      };
    });
}

/** Requests to paths no operation declares (under /api/ and /uploads/temp/). */
export function unmatchedRequests(): fc.Arbitrary<FuzzRequest> {
  const pieces = fc.array(fc.oneof(hostileString.map(percentEncode), rawSegment, fc.constantFrom('v1', 'api', 'teams', 'media', 'render', 'child')), { minLength: 1, maxLength: 4 });
  return fc.record({ who: caller, method: method('GET'), base: fc.constantFrom('/api/', '/api/v1/', '/api/v2/', '/uploads/temp/', '/api/v1/media/'), pieces }).map(({ who, method, base, pieces }): FuzzRequest => ({
    kind: 'rest',
    route: `${method} (unmatched ${base})`,
    method,
    target: base + pieces.join('/'),
    ...who,
    headers: [],
  }));
}

/** Requests over every operation of the document (each operation equally likely) and unmatched paths. */
export function restRequests(doc: OpenApiDocument, ctx: ValueContext, entities: readonly EntityDefinition[]): fc.Arbitrary<FuzzRequest> {
  const operations = operationsOf(doc).map((op) => {
    if (op.body?.type.startsWith('multipart/')) return { weight: 4, arbitrary: operationRequests(op, ctx) };
    const entity = concreteEntityRequests(op, ctx, entities);
    const mixes = [{ weight: 2, arbitrary: focusedRequests(op, ctx) }, { weight: 2, arbitrary: operationRequests(op, ctx) }, ...(entity ? [{ weight: 3, arbitrary: entity }] : [])];
    return { weight: 4, arbitrary: fc.oneof(...mixes) };
  });
  return fc.oneof(...operations, { weight: 4, arbitrary: unmatchedRequests() });
}
