// GraphQL face of realtime: per entity that may be listed, the subscription `taskEvents(where, filter,
// ids, search, from, to, dateField, after)` yielding `TaskEvent { eventId, type, id, occurredAt,
// record: Task, reason }`, with LIST's arguments and LIST's rule (scope-auth, checked when it opens).
// Each event is executed in a context of its own (graphql/subscriptions.ts), so the record's relations
// are read as the subscriber, after the request that opened the subscription is over. When the server
// ends a subscription (credentials revoked, membership removed, slow client, restart), the last event
// is an error saying why (extensions.code), then the subscription completes.
import { GraphQLError } from 'graphql';
import type { EntityDefinition } from '../../config/entity-definition.js';
import type { Builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import type { EndReason, Stream } from '../../realtime/stream.js';
import { subscribe, type Change, type ChangeFilters } from './service.js';

/** What the events fields reuse of an entity's GraphQL face (entities/schema.ts `entityFace`; module.ts wires it). */
export interface EntityFace {
  types: { record: unknown; where: unknown; filter: unknown; dateField: unknown };
  names: { type: string; read: string };
  listAuthScopes: unknown;
}

type ServerEnd = Extract<EndReason, { by: 'server' }>;

/** What the subscription field yields: a change, or (last) why the server ended the subscription. */
type Delivery = Change | { end: ServerEnd };

/** The HTTP status each end reason stands for (GraphQL errors carry one: graphql/errors.ts). */
const endStatus: Record<ServerEnd['code'], number> = { UNAUTHENTICATED: 401, FORBIDDEN: 403, SLOW_CONSUMER: 429, RESTARTING: 503, RESYNC: 503 };

/**
 * The stream's changes, then its server end reason as one last item. Not an async generator: a
 * generator waiting for the next change would queue `return()` behind it, and a client that leaves
 * an idle subscription would never release it.
 */
function deliveries(stream: Stream<Change>): AsyncIterableIterator<Delivery> {
  let told = false;
  const iterator: AsyncIterableIterator<Delivery> = {
    async next() {
      const next = await stream.next();
      if (!next.done) return next;
      const reason = stream.reason;
      if (reason?.by !== 'server' || told) return { value: undefined, done: true };
      told = true;
      return { value: { end: reason }, done: false };
    },
    return: () => stream.return!(),
    throw: (error?: unknown) => stream.throw!(error),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** A delivery as the field's value: the change, or the error that tells the client why it ended. */
function delivered(item: Delivery): Change {
  if (!('end' in item)) return item;
  const { code, message } = item.end;
  throw new GraphQLError(message, { extensions: { code, http: { status: endStatus[code] } } });
}

/** Registers `<entity>Events` for each definition that may be listed, on the platform's builder. */
export function registerEntityEvents(b: Builder, definitions: readonly EntityDefinition[], faceOf: (d: EntityDefinition) => EntityFace): void {
  const listed = definitions.filter((d) => d.operations.list);
  if (!listed.length) return;
  // The root type, declared here: GraphQL refuses a Subscription type without fields.
  b.subscriptionType({ description: 'Changes as they are committed: over Server-Sent Events (Accept: text/event-stream) or WebSocket (graphql-transport-ws) at /graphql.' });
  const changeType = b.enumType('EntityChangeType', {
    description: 'What happened to a record; GAP: events were missed that cannot be replayed (read the list again).',
    values: ['CREATED', 'UPDATED', 'DELETED', 'GAP'] as const,
  });
  for (const d of listed) {
    const { types, names, listAuthScopes } = faceOf(d);
    const event = b.objectRef<Change>(`${names.type}Event`).implement({
      description: `A change of a ${names.type} (${names.read}Events).`,
      fields: (t) => ({
        eventId: t.exposeID('eventId', { description: 'The event’s id: pass it as `after` when subscribing again to receive what came after it.' }),
        type: t.field({ type: changeType, resolve: (c) => c.type }),
        id: t.exposeID('id', { nullable: true, description: 'The record’s id; null for a GAP.' }),
        occurredAt: t.field({ type: 'DateTime', resolve: (c) => c.occurredAt }),
        record: t.field({ type: types.record as never, nullable: true, description: 'The record as the subscriber may see it now; null for deletions and gaps.', resolve: (c) => c.record as never }),
        reason: t.exposeString('reason', { nullable: true, description: 'Why there is a gap.' }),
      }),
    });
    b.subscriptionFields((t) => ({
      [`${names.read}Events`]: t.field({
        type: event,
        description: `Changes of ${d.slug} the caller may see, as they are committed, with LIST's filters; \`after\` (an eventId) replays what came after it first. The server ends it with an error naming why (extensions.code: UNAUTHENTICATED, FORBIDDEN, SLOW_CONSUMER, RESTARTING, RESYNC).`,
        authScopes: listAuthScopes as never,
        args: {
          ids: t.arg.idList(),
          search: t.arg.string(),
          from: t.arg({ type: 'Date', description: 'First day of the range on dateField.' }),
          to: t.arg({ type: 'Date', description: 'Last day of the range on dateField (included).' }),
          dateField: t.arg({ type: types.dateField as never }),
          ...(types.filter ? { filter: t.arg({ type: types.filter as never }) } : {}),
          ...(types.where ? { where: t.arg({ type: types.where as never, description: 'Conditions with operators, as LIST takes them.' }) } : {}),
          after: t.arg.id({ description: 'The last eventId received: what came after it is replayed first (within REALTIME_REPLAY_SECONDS, else a GAP).' }),
        },
        subscribe: async (_root, { after, ...filters }, ctx: Context) => deliveries(await subscribe(ctx, d, filters as ChangeFilters, after == null ? null : String(after))),
        resolve: (item) => delivered(item as Delivery),
      }),
    }));
  }
}
