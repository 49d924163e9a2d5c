// GET /api/v1/{entity}/events: an entity's changes as Server-Sent Events, with LIST's filter
// parameters. A reconnecting EventSource sends Last-Event-ID (or a client gives ?lastEventId=): the
// changes it missed are replayed first (service.ts). In the request pipeline: authenticated as every
// request, and judged by the rule of the subscription field it is a face of (`taskEvents`): LIST's
// rule, with the read rule of every entity its filters reach (anonymous callers only on public entities).
import { coerceInputValue, type GraphQLSchema } from 'graphql';
import type { EntityDefinition } from '../../config/entity-definition.js';
import { reply } from '../../http/exchange.js';
import { defineHttpRoute, type HttpRoute } from '../../rest/http-route.js';
import { assertPlainQuery } from '../../rest/query-params.js';
import { graphqlNames } from '../entities/graphql-names.js';
import { eventFilters } from '../entities/list-params.js';
import { invalidQuery } from '../entities/query.js';
import { eventStreamBody } from './event-stream.js';
import { eventIdPattern, subscribe } from './service.js';


type Values = Record<string, unknown>;

/** The GraphQL subscription this route is the REST face of: `taskEvents`. */
const subscriptionField = (d: EntityDefinition) => `${graphqlNames(d).read}Events`;

/**
 * LIST's REST filters (eventFilters: the LIST document's variables) coerced with the types of the
 * subscription field's arguments, as /graphql coerces them before the service sees them: select
 * values from enum names, instants into dates, `mode` into its stored value. One set of rules.
 */
function argumentCoercion(schema: GraphQLSchema, d: EntityDefinition): (vars: Values) => Values {
  const name = subscriptionField(d);
  const field = schema.getSubscriptionType()?.getFields()[name];
  if (!field) throw new Error(`events route of ${d.slug}: the schema has no subscription ${name}`);
  return (vars) => {
    const out: Values = {};
    const problems: { path: string; message: string }[] = [];
    for (const arg of field.args) {
      if (vars[arg.name] === undefined) continue;
      out[arg.name] = coerceInputValue(vars[arg.name], arg.type, (path, _invalid, error) => problems.push({ path: [arg.name, ...path].join('.'), message: error.message }));
    }
    if (problems.length) throw invalidQuery(problems);
    return out;
  };
}

function eventRoute(d: EntityDefinition): HttpRoute {
  return defineHttpRoute({
    methods: ['GET'],
    path: `/api/v1/${d.slug}/events`,
    pipeline: true,
    // The subscription's face: its rule up front (LIST's; anonymous callers too on a public entity),
    // and, once the filters are known, the read rule of each entity they reach (service.ts subscribe).
    ruleOf: `Subscription.${subscriptionField(d)}`,
    openApi: { get: eventsOperation(d) },
    start({ config, schema }) {
      const coerced = argumentCoercion(schema, d);
      return async (request, ctx) => {
        assertPlainQuery(request.url);
        const { lastEventId, ...params } = Object.fromEntries(request.url.searchParams);
        const header = request.header('last-event-id');
        const after = header ?? lastEventId ?? null;
        if (after !== null && !eventIdPattern.test(after)) throw invalidQuery([{ path: header !== null ? 'Last-Event-ID' : 'lastEventId', message: 'must be the id of an event of this stream' }]);
        const stream = await subscribe(ctx, d, coerced(eventFilters(d, params)), after);
        return reply(200, eventStreamBody(stream, config.realtime.heartbeatMs), {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          // nginx buffers proxied answers unless told not to.
          'x-accel-buffering': 'no',
        });
      };
    },
  });
}

function eventsOperation(d: EntityDefinition): Record<string, unknown> {
  return {
    tags: [d.pluralName],
    operationId: `${d.slug}Events`,
    summary: `Changes of ${d.slug} as Server-Sent Events`,
    description:
      `Each event: \`id:\` the event id, \`data:\` {eventId, type: CREATED | UPDATED | DELETED | GAP, id, occurredAt, record} (record as the caller may see it now; null for deletions). ` +
      'Takes the list filters (ids, search, from, to, dateField, field filters, filter JSON). Reconnect with Last-Event-ID (or ?lastEventId=) to receive what was missed within REALTIME_REPLAY_SECONDS; an older id gets a GAP event first. ' +
      'A stream the server ends (credentials revoked, membership removed, slow client) ends with a data event {type: END, code, message}.',
    // Anonymous callers subscribe to a public entity's changes: no credentials ({}) is one way.
    security: [{ session: [] }, { bearer: [] }, { apiKey: [] }, ...(d.access.public ? [{}] : [])],
    parameters: [
      { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: eventIdPattern.source } },
      { name: 'lastEventId', in: 'query', required: false, schema: { type: 'string', pattern: eventIdPattern.source } },
    ],
    responses: {
      200: { description: 'The stream of changes', content: { 'text/event-stream': { schema: { type: 'string' } } } },
      400: { description: 'Invalid filter parameters or Last-Event-ID' },
      401: { description: 'Not signed in (entities that are not public)' },
      403: { description: `Missing scope ${d.slug}:read (or the read scope of an entity the filters reach through a relation), or no active team` },
      429: { description: 'Too many open subscriptions for this user or key (REALTIME_MAX_SUBSCRIPTIONS)' },
    },
  };
}

/** The events route of every entity that may be listed. */
export function eventRoutes(definitions: readonly EntityDefinition[]): HttpRoute[] {
  return definitions.filter((d) => d.operations.list).map(eventRoute);
}
