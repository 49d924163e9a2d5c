// Requests that open subscriptions over HTTP: the REST events routes (`GET /api/v1/{entity}/events`,
// every path whose 200 the OpenAPI document declares as text/event-stream) with hostile filters,
// Last-Event-ID headers and ?lastEventId= values (valid ids, 0 for a replay of everything kept,
// past 64 bits, junk) and credentials valid and not; and GraphQL subscriptions over SSE (POST /graphql,
// Accept: text/event-stream) for every Subscription field. Each is read for a bounded time after its
// head, or left before any answer, sometimes while a change of the entity is on its way to it
// (fuzz-run.ts): the client closes mid-stream, and the server must not mind. A new entity or
// subscription field is fuzzed with no change here.
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import type { EntityDefinition } from '../config/entity-definition.js';
import type { OpenApiDocument } from './answer-checks.js';
import { operatorParameter } from './entity-requests.js';
import type { FuzzRequest, StreamRead } from './fuzz-request.js';
import { fieldOperation, type Operation } from './graphql-arbitraries.js';
import { oddDates, oddNumberTexts, refText, shortHostileString } from './hostile-values.js';
import { caller, extraHeaders, extraQuery, method, percentEncode, queryString, rawQueryPiece } from './http-parts.js';
import { jsonText, objectTree } from './json-text.js';
import type { ValueContext } from './schema-values.js';

/** Paths whose GET answers an event stream (its 200 is text/event-stream), in document order. */
export function eventStreamPaths(doc: OpenApiDocument): string[] {
  return Object.entries(doc.paths)
    .filter(([, methods]) => !!methods.get?.responses?.['200']?.content?.['text/event-stream'])
    .map(([path]) => path);
}

/** Event ids as a client gives them back: real ones (0 replays all that is kept), past 18 digits or 64 bits, and junk. */
const eventId = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('0', '1', '2', '999999999999999999', '9223372036854775807') },
  { weight: 2, arbitrary: fc.constantFrom('9223372036854775808', '99999999999999999999999', '-1', '1e3', ' 1', '1 ', '01', '0x10', '١٢٣', '', '1,2', '1\u00002') },
  { weight: 2, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }).map(String) },
  { weight: 1, arbitrary: shortHostileString },
);

/** How the client reads and leaves; for a REST route, its entity's record may change meanwhile. */
function streamRead(entity: EntityDefinition | null): fc.Arbitrary<StreamRead> {
  const change = entity ? fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant(entity.slug) }) : fc.constant(undefined);
  const read = fc.oneof(
    { weight: 4, arbitrary: fc.record({ how: fc.constant<'read'>('read'), ms: fc.constantFrom(0, 100, 400), change }) },
    { weight: 1, arbitrary: fc.record({ how: fc.constant<'leave'>('leave'), ms: fc.constantFrom(0, 5, 50), change }) },
  );
  return read.map((r): StreamRead => ({ ...r, private: !!entity && !entity.access.public }));
}

/** Requests to one events route: filters of its entity (valid and odd), event ids, credentials, odd headers. */
function restEventRequests(path: string, ctx: ValueContext, entity: EntityDefinition | undefined): fc.Arbitrary<FuzzRequest> {
  const fields = entity?.fields ?? [];
  const names = fields.map((f) => f.name);
  const oddValue = fc.oneof(fc.constantFrom(...oddNumberTexts, ...oddDates), shortHostileString);
  const ownIds = ctx.idRefs.filter((ref) => entity && ref.endsWith(`.${entity.slug}Id`));
  const filter: fc.Arbitrary<[string, string][]> = fc.oneof(
    { weight: 2, arbitrary: fc.constant<[string, string][]>([]) },
    { weight: 2, arbitrary: fields.length ? operatorParameter(fields).map((pair): [string, string][] => [pair]) : fc.constant<[string, string][]>([]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names, 'ids', 'search', 'from', 'to', 'dateField', 'page', 'limit', 'sortBy', 'fields'), oddValue).map((pair) => [pair]) },
    { weight: ownIds.length ? 1 : 0, arbitrary: ownIds.length ? fc.constantFrom(...ownIds).map((ref): [string, string][] => [['ids', refText(ref)]]) : fc.constant<[string, string][]>([]) },
    { weight: 1, arbitrary: extraQuery(ctx.names, ctx.idRefs) },
  );
  const ids = fc.record({
    header: fc.option(fc.tuple(fc.constantFrom('last-event-id', 'Last-Event-ID'), eventId), { freq: 2, nil: null }),
    query: fc.option(eventId.map((id): [string, string] => ['lastEventId', id]), { freq: 3, nil: null }),
  });
  const teamOf = fc.oneof({ weight: 4, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 1, arbitrary: fc.constantFrom('victim.teamId', 'victim.spareTeamId', 'attacker.spareTeamId').map((ref): [string, string][] => [['x-team-id', refText(ref)]]) });
  return fc
    .record({ who: caller, method: method('GET'), filter, ids, raw: rawQueryPiece, team: teamOf, extra: extraHeaders(ctx.idRefs), stream: streamRead(entity ?? null) })
    .map(({ who, method, filter, ids, raw, team, extra, stream }): FuzzRequest => ({
      kind: 'rest',
      route: `GET ${path}`,
      method,
      target: path + queryString([...filter, ...(ids.query ? [ids.query] : [])], raw),
      ...who,
      headers: [['accept', 'text/event-stream'], ...(ids.header ? [ids.header] : []), ...team, ...extra],
      stream,
    }));
}

/** GraphQL subscriptions over SSE: every Subscription field's operation (arguments right and wrong), as yoga's SSE clients send them. */
function graphqlSseRequests(schema: GraphQLSchema, ctx: ValueContext): fc.Arbitrary<FuzzRequest> | null {
  const fields = Object.values(schema.getSubscriptionType()?.getFields() ?? {});
  if (!fields.length) return null;
  const operation = fc.constantFrom(...fields).chain((field) => fieldOperation('subscription', field, ctx).map((op): [string, Operation] => [field.name, op]));
  return fc.record({ who: caller, operation, asGet: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }), extra: extraHeaders(ctx.idRefs), stream: streamRead(null) }).map(
    ({ who, operation: [name, op], asGet, extra, stream }): FuzzRequest => {
      const body = jsonText(objectTree({ query: op.query, variables: op.variables, ...(op.operationName ? { operationName: op.operationName } : {}) }));
      return {
        kind: 'graphql',
        route: `graphql over SSE Subscription.${name}`,
        method: asGet ? 'GET' : 'POST',
        target: asGet ? `/graphql?query=${percentEncode(op.query)}&variables=${percentEncode(jsonText(op.variables))}` : '/graphql',
        ...who,
        headers: [['accept', 'text/event-stream'], ...(asGet ? [] : ([['content-type', 'application/json']] as [string, string][])), ...extra],
        body: asGet ? undefined : [body],
        stream,
      };
    },
  );
}

/** Requests over every event-stream route of the document (each equally likely) and, a quarter of them, GraphQL subscriptions over SSE. */
export function eventStreamRequests(doc: OpenApiDocument, schema: GraphQLSchema, ctx: ValueContext, entities: readonly EntityDefinition[]): fc.Arbitrary<FuzzRequest> {
  const paths = eventStreamPaths(doc);
  if (!paths.length) throw new Error('the OpenAPI document declares no event-stream route (a 200 of text/event-stream)');
  const rest = paths.map((path) => ({ weight: 3, arbitrary: restEventRequests(path, ctx, entities.find((e) => path === `/api/v1/${e.slug}/events`)) }));
  const sse = graphqlSseRequests(schema, ctx);
  return fc.oneof(...rest, ...(sse ? [{ weight: paths.length, arbitrary: sse }] : []));
}
