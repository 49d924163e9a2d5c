// GraphQL over WebSocket (graphql-ws, subprotocol graphql-transport-ws, on /graphql) as a hostile
// client speaks it: each case is a connection and the frames it sends. Subscriptions of every
// Subscription field and operations of every query and mutation (the GraphQL arbitraries' operations,
// arguments right and wrong), random documents and variables; and what the protocol forbids:
// malformed JSON, unknown or misshapen messages, subscribe before connection_init (or before its
// ack), a second connection_init, duplicate ids, complete for ids never used, binary frames and text
// frames of invalid UTF-8, messages past the size limit, the wrong subprotocol or path, a connection
// that never says connection_init. Credentials ride in connection_init (keys) or on the upgrade
// (the session's cookie, sometimes a key header), valid or not. The client then leaves: a close
// frame, `complete`s first, or the TCP connection dropped mid-stream (graphql-ws-run.ts judges).
// A new subscription, query or mutation field is fuzzed with no change here.
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import type { EntityDefinition } from '../config/entity-definition.js';
import { graphqlNames } from '../modules/entities/graphql-names.js';
import { fieldOperation, randomDocument, type Operation } from './graphql-arbitraries.js';
import { hostileJson, hostileString, refText, shortHostileString } from './hostile-values.js';
import { caller, malformedJson } from './http-parts.js';
import { jsonText, objectTree, type JsonTree } from './json-text.js';
import type { ValueContext } from './schema-values.js';
import type { CallerKind } from './world.js';

/** One thing the client does, in order. */
export type WsStep =
  /** connection_init: the caller's credentials (keys) and `extra` members; `awaitAck` waits for the answer (up to a bound) as clients do. */
  | { kind: 'init'; extra: JsonTree | null; awaitAck: boolean }
  /** A subscribe message: `id` and the payload's JSON text (references resolved when sent). */
  | { kind: 'subscribe'; id: string; payload: string }
  /** Any text frame, as is (references resolved when sent). */
  | { kind: 'text'; text: string }
  /** Bytes: a binary frame, or (`binary` false) a text frame that is not UTF-8. */
  | { kind: 'bytes'; bytes: Uint8Array; binary: boolean }
  /** The client says nothing for `ms`. */
  | { kind: 'wait'; ms: number }
  /** The client waits (up to `ms`) for a message that contains `text`. */
  | { kind: 'expect'; text: string; ms: number };

export interface WsCase {
  /** What the case aims at (`graphql-ws Subscription.taskEvents`, `graphql-ws (malformed JSON)`): findings group by it. */
  route: string;
  caller: CallerKind;
  keyHeader: 'authorization' | 'x-api-key';
  /** Keys in connection_init (as browsers must), or as headers of the upgrade (the session's cookie is always on the upgrade). */
  credentialsAt: 'init' | 'upgrade';
  /** Subprotocols offered. */
  protocols: string[];
  /** The upgrade's path (and query). */
  path: string;
  /** More headers of the upgrade (origin, team, odd credentials). */
  headers: [string, string][];
  steps: WsStep[];
  /** How long the client reads after its last step, then how it leaves. */
  readMs: number;
  leave: 'close' | 'complete' | 'terminate';
  /** While it reads, the fuzzing caller updates its record of this entity (an event for its subscription). */
  change?: string;
  /** The subscription's entity is not public: no caller but the superadmin's `*` key may receive the victim's ids on it. */
  private?: boolean;
}

const protocol = 'graphql-transport-ws';

/** A subscribe message's payload text for `op` (variables an object, as the protocol wants, or sometimes anything). */
const payloadOf = (op: Operation, odd: JsonTree | null = null): string =>
  jsonText(objectTree({ query: op.query, variables: odd ?? op.variables, ...(op.operationName ? { operationName: op.operationName } : {}) }));

/** Message ids: short ones, and odd ones (empty is refused, long, unicode, prototype names). */
const messageId = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('1', '2', 'a') }, { weight: 1, arbitrary: fc.constantFrom('', '__proto__', 'constructor', 'x'.repeat(10_000), '\u0000', '😀') }, { weight: 1, arbitrary: fc.uuid() });

/** Upgrade headers of printable text (node's client refuses control characters in them): forged origins, another team, odd credentials. */
function upgradeHeaders(idRefs: readonly string[]): fc.Arbitrary<[string, string][]> {
  const printable = shortHostileString.map((s) => s.replace(/[^\x20-\x7e]/g, '?'));
  const teamRefs = idRefs.filter((ref) => /team/i.test(ref));
  const header: fc.Arbitrary<[string, string]> = fc.oneof(
    fc.tuple(fc.constant('origin'), fc.constantFrom('http://evil.example', 'null', 'http://127.0.0.1', 'https://127.0.0.1')),
    fc.tuple(fc.constant('x-team-id'), fc.oneof(fc.constantFrom(...teamRefs).map(refText), printable)),
    fc.tuple(fc.constant('cookie'), fc.oneof(fc.constant('sid=garbage'), printable.map((s) => `sid=${s}`))),
    fc.tuple(fc.constantFrom('authorization', 'x-api-key'), fc.oneof(printable.map((s) => `Bearer ${s}`), fc.constantFrom('Basic YTpi', 'Bearer', 'bearer sk_test_' + 'x'.repeat(40)))),
    fc.tuple(fc.constant('x-fuzz-large'), fc.constantFrom(8_000, 20_000).map((n) => 'h'.repeat(n))),
  );
  return fc.oneof({ weight: 4, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 1, arbitrary: fc.array(header, { minLength: 1, maxLength: 2 }) });
}

/** connection_init as a well-behaved client sends it: credentials, nothing more, its ack awaited. */
const init: Extract<WsStep, { kind: 'init' }> = { kind: 'init', extra: null, awaitAck: true };

/** Subscribe messages whose operation is one root field of `kind` (named for findings). */
function fieldOperations(schema: GraphQLSchema, kind: 'query' | 'mutation' | 'subscription', ctx: ValueContext): fc.Arbitrary<{ route: string; field: string; op: Operation }> | null {
  const type = kind === 'query' ? schema.getQueryType() : kind === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  const fields = Object.values(type?.getFields() ?? {});
  if (!type || !fields.length) return null;
  return fc.constantFrom(...fields).chain((field) => fieldOperation(kind, field, ctx).map((op) => ({ route: `graphql-ws ${type.name}.${field.name}`, field: field.name, op })));
}

/** The cases: a weighted mix of operations (mostly subscriptions) and protocol violations. */
export function graphqlWsCases(schema: GraphQLSchema, ctx: ValueContext, entities: readonly EntityDefinition[]): fc.Arbitrary<WsCase> {
  const subscriptions = fieldOperations(schema, 'subscription', ctx);
  if (!subscriptions) throw new Error('the schema has no Subscription field');
  const queries = fieldOperations(schema, 'query', ctx)!;
  const mutations = fieldOperations(schema, 'mutation', ctx);
  /** The entity whose changes a subscription field carries (`taskEvents` → tasks). */
  const entityOf = (field: string) => entities.find((d) => `${graphqlNames(d).read}Events` === field);
  const documents = fc.record({ query: randomDocument, variables: fc.oneof(hostileJson, fc.constant<JsonTree>(null)) }).map((o): Operation => o);
  const oddVariables = fc.option(hostileJson, { freq: 6, nil: null });

  type Plan = { route: string; steps: WsStep[]; field?: string; protocols?: string[]; path?: string };
  const plans: { weight: number; arbitrary: fc.Arbitrary<Plan> }[] = [
    // A subscription as clients open it, arguments right and wrong; sometimes two on one connection, or two connections' worth of ids.
    {
      weight: 8,
      arbitrary: fc.tuple(subscriptions, messageId, oddVariables, fc.option(subscriptions, { freq: 3, nil: null })).map(([s, id, odd, second]): Plan => ({
        route: s.route,
        field: s.field,
        steps: [init, { kind: 'subscribe', id, payload: payloadOf(s.op, odd) }, ...(second ? [{ kind: 'subscribe' as const, id: `${id}-2`, payload: payloadOf(second.op) }] : [])],
      })),
    },
    // Queries and mutations over the socket (the same pipeline: credentials, scopes, RLS).
    { weight: 3, arbitrary: fc.tuple(mutations ? fc.oneof(queries, mutations) : queries, messageId).map(([q, id]): Plan => ({ route: q.route, steps: [init, { kind: 'subscribe', id, payload: payloadOf(q.op) }] })) },
    // Random documents and variables.
    { weight: 3, arbitrary: fc.tuple(documents, messageId).map(([op, id]): Plan => ({ route: 'graphql-ws (random document)', steps: [init, { kind: 'subscribe', id, payload: payloadOf(op) }] })) },
    // Subscribe before connection_init, or right after it without waiting for the ack.
    { weight: 2, arbitrary: fc.tuple(subscriptions, fc.boolean()).map(([s, initFirst]): Plan => ({ route: 'graphql-ws (subscribe before the ack)', field: s.field, steps: [...(initFirst ? [{ ...init, awaitAck: false }] : []), { kind: 'subscribe', id: '1', payload: payloadOf(s.op) }] })) },
    // The same id twice (while the first runs: its close reason names the id, long ones too), or a second connection_init.
    {
      weight: 2,
      arbitrary: fc.tuple(subscriptions, fc.constantFrom('1', 'x'.repeat(200), '😀'.repeat(70), '\u0000')).map(([s, id]): Plan => ({ route: 'graphql-ws (duplicate id)', field: s.field, steps: [init, { kind: 'subscribe', id, payload: payloadOf(s.op) }, { kind: 'subscribe', id, payload: payloadOf(s.op) }] })),
    },
    { weight: 1, arbitrary: fc.option(hostileJson, { nil: null }).map((extra): Plan => ({ route: 'graphql-ws (connection_init twice)', steps: [init, { kind: 'init', extra, awaitAck: false }] })) },
    // Malformed JSON, before or after the handshake.
    { weight: 2, arbitrary: fc.tuple(malformedJson, fc.boolean()).map(([text, after]): Plan => ({ route: 'graphql-ws (malformed JSON)', steps: [...(after ? [init] : []), { kind: 'text', text }] })) },
    // Messages of unknown or misplaced types, wrong member types, hostile payloads.
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.oneof(fc.constantFrom('connection_ack', 'next', 'error', 'complete', 'ping', 'pong', 'start', 'stop', 'connection_terminate', 'ka', 'data', 'subscribe', 'connection_init', 'Subscribe', '__proto__'), hostileString),
          fc.option(fc.oneof(messageId.map((id): JsonTree => id), hostileJson), { nil: null }),
          fc.option(hostileJson, { nil: null }),
          fc.boolean(),
        )
        .map(([type, id, payload, after]): Plan => ({
          route: 'graphql-ws (odd message)',
          steps: [...(after ? [init] : []), { kind: 'text', text: jsonText({ entries: [['type', type], ...(id === null ? [] : ([['id', id]] as [string, JsonTree][])), ...(payload === null ? [] : ([['payload', payload]] as [string, JsonTree][]))] }) }],
        })),
    },
    // Well-formed messages that only a server sends (or pings with odd payloads), before or after the handshake.
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('{"type":"connection_ack"}', '{"type":"connection_ack","payload":{"a":1}}', '{"type":"next","id":"1","payload":{"data":null}}', '{"type":"error","id":"1","payload":[{"message":"x"}]}', '{"type":"complete","id":"1"}', '{"type":"pong"}', '{"type":"ping","payload":{"__proto__":{"x":1}}}'), fc.boolean())
        .map(([text, after]): Plan => ({ route: 'graphql-ws (a server\'s message from the client)', steps: [...(after ? [init] : []), { kind: 'text', text }] })),
    },
    // Messages that are not JSON objects at all: arrays, numbers, deep nesting, a prototype-polluting object.
    { weight: 1, arbitrary: hostileJson.map((tree): Plan => ({ route: 'graphql-ws (odd message)', steps: [init, { kind: 'text', text: jsonText(tree) }] })) },
    // complete for an id never used, then a subscription.
    { weight: 1, arbitrary: fc.tuple(messageId, subscriptions).map(([id, s]): Plan => ({ route: 'graphql-ws (complete an unknown id)', field: s.field, steps: [init, { kind: 'text', text: jsonText(objectTree({ type: 'complete', id })) }, { kind: 'subscribe', id: `${id}x`, payload: payloadOf(s.op) }] })) },
    // Frames that are not text, or not UTF-8.
    { weight: 1, arbitrary: fc.tuple(fc.uint8Array({ maxLength: 64 }), fc.boolean()).map(([bytes, binary]): Plan => ({ route: 'graphql-ws (binary or invalid UTF-8 frame)', steps: [init, { kind: 'bytes', bytes: binary ? bytes : Uint8Array.from([...bytes, 0xc3, 0x28, 0xff]), binary }] })) },
    // Past the size limit (BODY_LIMIT_BYTES, 1 MiB by default), or just under it in a query or its variables.
    {
      weight: 1,
      arbitrary: fc.constantFrom(1_100_000, 900_000).map((n): Plan => ({
        route: 'graphql-ws (oversized message)',
        steps: [init, { kind: 'subscribe', id: '1', payload: n > 1_000_000 ? payloadOf({ query: `{ __typename(x: "${'y'.repeat(n)}") }`, variables: null }) : payloadOf({ query: '{ __typename }', variables: objectTree({ big: 'z'.repeat(n) }) }) }],
      })),
    },
    // The wrong subprotocol (none, the legacy one, an unknown one) or the wrong path.
    { weight: 1, arbitrary: fc.constantFrom<string[]>([], ['graphql-ws'], ['x-unknown'], ['graphql-ws', protocol]).map((protocols): Plan => ({ route: 'graphql-ws (subprotocol)', protocols, steps: [init] })) },
    { weight: 1, arbitrary: fc.constantFrom('/graphql/', '/graphql?x=1', '/api/v1/tasks/events', '/%2e%2e/graphql', '/nowhere').map((path): Plan => ({ route: 'graphql-ws (path)', path, steps: [init] })) },
    // Never a connection_init: the server closes it after its wait (3 s).
    { weight: 1, arbitrary: fc.constant<Plan>({ route: 'graphql-ws (no connection_init)', steps: [{ kind: 'wait', ms: 3_500 }] }) },
  ];

  return fc
    .record({
      who: caller,
      credentialsAt: fc.oneof({ weight: 4, arbitrary: fc.constant<'init'>('init') }, { weight: 1, arbitrary: fc.constant<'upgrade'>('upgrade') }),
      headers: upgradeHeaders(ctx.idRefs),
      plan: fc.oneof(...plans),
      readMs: fc.constantFrom(0, 50, 300),
      leave: fc.constantFrom<WsCase['leave']>('close', 'complete', 'terminate'),
      change: fc.boolean(),
    })
    .map(({ who, credentialsAt, headers, plan, readMs, leave, change }): WsCase => {
      const entity = plan.field ? entityOf(plan.field) : undefined;
      return {
        route: plan.route,
        ...who,
        credentialsAt,
        protocols: plan.protocols ?? [protocol],
        path: plan.path ?? '/graphql',
        headers,
        steps: plan.steps,
        readMs,
        leave,
        ...(entity && change ? { change: entity.slug } : {}),
        private: !!entity && !entity.access.public,
      };
    });
}

/** A short description of a case: route, caller, how it connects, what it sends, how it leaves. */
export function describeCase(c: WsCase): string {
  const step = (s: WsStep) => {
    const text = s.kind === 'init' ? `connection_init${s.extra === null ? '' : ` + ${jsonText(s.extra).slice(0, 100)}`}${s.awaitAck ? '' : ' (no wait for the ack)'}` : s.kind === 'subscribe' ? `subscribe ${JSON.stringify(s.id.slice(0, 40))} ${s.payload.slice(0, 300)}` : s.kind === 'text' ? `text ${JSON.stringify(s.text.slice(0, 200))}` : s.kind === 'bytes' ? `${s.binary ? 'binary' : 'text (not UTF-8)'} frame of ${s.bytes.length} bytes` : s.kind === 'expect' ? `expect ${s.text}` : `wait ${s.ms} ms`;
    return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
  };
  const how = `${c.caller}${c.caller === 'session' || c.caller === 'anonymous' ? '' : ` (${c.keyHeader} in ${c.credentialsAt === 'init' ? 'connection_init' : 'the upgrade'})`}`;
  return `${c.route} as ${how}: ${c.path} [${c.protocols.join(', ')}]${c.headers.length ? ` headers ${JSON.stringify(c.headers.map(([n, v]) => [n, v.slice(0, 60)]))}` : ''}; ${c.steps.map(step).join('; ')}; read ${c.readMs} ms${c.change ? ` while its ${c.change} record changes` : ''}, then ${c.leave === 'terminate' ? 'drop the connection' : c.leave === 'complete' ? 'complete and close' : 'close'}`;
}
