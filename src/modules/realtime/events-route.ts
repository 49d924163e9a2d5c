// GET /api/v1/{entity}/events: an entity's changes as Server-Sent Events, with LIST's filter
// parameters. A reconnecting EventSource sends Last-Event-ID (or a client gives ?lastEventId=): the
// changes it missed are replayed first (service.ts). In the request pipeline: authenticated as every
// request, and `{entity}:read` required (anonymous callers only on public entities).
import { relationTarget, type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { reply } from '../../http/exchange.js';
import { defineHttpRoute, type HttpRoute } from '../../rest/http-route.js';
import { assertPlainQuery } from '../../rest/query-params.js';
import { AppError } from '../../shared/errors.js';
import { enumValueName, hasEnum } from '../entities/graphql-names.js';
import { eventFilters } from '../entities/list-params.js';
import { filterableInverses, filterableLinks, flagOperators, relationsOf, whereFields, type Operator } from '../entities/where.js';
import { eventStreamBody } from './event-stream.js';
import { subscribe } from './service.js';

const eventId = /^[0-9]{1,18}$/;

type Values = Record<string, unknown>;

/**
 * LIST's REST filters as GraphQL would coerce them before the service sees them: eventFilters gives
 * the LIST document's variables (select values as enum names, instants as ISO text, `mode` as
 * INSENSITIVE), which the service takes only once coerced (stored values, Date). This route runs no
 * GraphQL document, so it coerces them here.
 */
function coercedFilters(d: EntityDefinition, vars: Values): Values {
  const out: Values = { ...vars };
  if (vars.filter) {
    const byName = new Map(d.fields.map((f) => [f.name, f]));
    out.filter = Object.fromEntries(Object.entries(vars.filter as Values).map(([key, value]) => [key, coercedValue(byName.get(key) ?? byName.get(key.replace(/_(min|max)$/, '')), value)]));
  }
  if (vars.where) out.where = coercedWhere(d, vars.where as Values);
  return out;
}

function coercedValue(field: FieldDefinition | undefined, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => coercedValue(field, item));
  if (!field || typeof value !== 'string') return value;
  if (hasEnum(field)) return field.enum!.find((stored) => enumValueName(stored) === value) ?? value;
  return field.type === 'datetime' ? new Date(value) : value;
}

function coercedWhere(d: EntityDefinition, where: Values): Values {
  const out: Values = {};
  const quantified = (target: EntityDefinition, given: Values) => Object.fromEntries(Object.entries(given).map(([q, w]) => [q, coercedWhere(target, w as Values)]));
  for (const [key, value] of Object.entries(where)) {
    const relation = relationsOf(d).get(key);
    const inverse = filterableInverses(d).get(key);
    const link = filterableLinks(d).get(key);
    const field = whereFields(d).find((f) => f.name === key);
    if (key === 'AND' || key === 'OR') out[key] = (value as Values[]).map((w) => coercedWhere(d, w));
    else if (key === 'NOT') out[key] = coercedWhere(d, value as Values);
    else if (relation) out[key] = coercedWhere(relationTarget(relation), value as Values);
    else if (inverse) out[key] = quantified(inverse.source, value as Values);
    else if (link) out[key] = quantified(relationTarget(link), value as Values);
    else if (field) out[key] = Object.fromEntries(Object.entries(value as Values).map(([op, v]) => [op, op === 'mode' ? String(v).toLowerCase() : flagOperators.has(op as Operator) ? v : coercedValue(field, v)]));
    else out[key] = value;
  }
  return out;
}

function eventRoute(d: EntityDefinition): HttpRoute {
  const scope = `${d.slug}:read`;
  return defineHttpRoute({
    methods: ['GET'],
    path: `/api/v1/${d.slug}/events`,
    pipeline: true,
    scope,
    // A public entity's changes are open to anonymous subscribers; signed-in callers need the scope.
    anonymous: d.access.public,
    openApi: { get: eventsOperation(d) },
    start({ config }) {
      return async (request, ctx) => {
        assertPlainQuery(request.url);
        const { lastEventId, ...params } = Object.fromEntries(request.url.searchParams);
        const header = request.header('last-event-id');
        const after = header ?? lastEventId ?? null;
        if (after !== null && !eventId.test(after)) throw new AppError('VALIDATION_ERROR', 'Invalid query parameters', { errors: [{ path: header !== null ? 'Last-Event-ID' : 'lastEventId', code: 'invalid', message: 'must be the id of an event of this stream' }] });
        const stream = await subscribe(ctx, d, coercedFilters(d, eventFilters(d, params)), after);
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
    tags: [d.name],
    operationId: `${d.slug}Events`,
    summary: `Changes of ${d.slug} as Server-Sent Events`,
    description:
      `Each event: \`id:\` the event id, \`data:\` {eventId, type: CREATED | UPDATED | DELETED | GAP, id, occurredAt, record} (record as the caller may see it now; null for deletions). ` +
      'Takes the list filters (ids, search, from, to, dateField, field filters, filter JSON). Reconnect with Last-Event-ID (or ?lastEventId=) to receive what was missed within REALTIME_REPLAY_SECONDS; an older id gets a GAP event first. ' +
      'A stream the server ends (credentials revoked, membership removed, slow client) ends with a data event {type: END, code, message}.',
    // Anonymous callers subscribe to a public entity's changes: no credentials ({}) is one way.
    security: [{ session: [] }, { bearer: [] }, { apiKey: [] }, ...(d.access.public ? [{}] : [])],
    parameters: [
      { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^[0-9]{1,18}$' } },
      { name: 'lastEventId', in: 'query', required: false, schema: { type: 'string', pattern: '^[0-9]{1,18}$' } },
    ],
    responses: {
      200: { description: 'The stream of changes', content: { 'text/event-stream': { schema: { type: 'string' } } } },
      400: { description: 'Invalid filter parameters or Last-Event-ID' },
      401: { description: 'Not signed in (entities that are not public)' },
      403: { description: `Missing scope ${d.slug}:read, or no active team` },
      429: { description: 'Too many open subscriptions for this user or key (REALTIME_MAX_SUBSCRIPTIONS)' },
    },
  };
}

/** The events route of every entity that may be listed. */
export function eventRoutes(definitions: readonly EntityDefinition[]): HttpRoute[] {
  return definitions.filter((d) => d.operations.list).map(eventRoute);
}
