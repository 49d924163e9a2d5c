// A fuzz session: the target booted, its OpenAPI document read from GET /api/v1/openapi.json, the
// world seeded and the victim's rows snapshotted; then the request generators of each suite,
// built from that document, the GraphQL schema and the entity definitions: REST, GraphQL, multipart,
// the event streams (REST events routes, GraphQL over SSE), GraphQL over WebSocket (graphql-ws), and
// the sweep (sweep.ts: every operator on every field, every groupBy, expand, fields and child value,
// enumerated and walked in order rather than drawn).
import fc from 'fast-check';
import { entityDefinitions } from '../config/entities/index.js';
import { composition } from '../module-list.js';
import type { OpenApiDocument } from './answer-checks.js';
import { fieldValue } from './entity-values.js';
import { eventStreamRequests } from './event-stream-requests.js';
import type { FuzzRequest } from './fuzz-request.js';
import { fuzz, sweep, type Finding, type FuzzSession } from './fuzz-run.js';
import { graphqlRequests, graphqlUploadRequests } from './graphql-arbitraries.js';
import { graphqlWsCases } from './graphql-ws-cases.js';
import { fuzzWebSocket } from './graphql-ws-run.js';
import { startTarget } from './harness.js';
import { operationRequests, operationsOf, restRequests } from './openapi-arbitraries.js';
import type { ValueContext } from './schema-values.js';
import { sweepCases, type SweepCases } from './sweep.js';
import { victimSnapshot } from './victim-snapshot.js';
import { seedWorld } from './world.js';

const { schema } = composition;

export const suites = ['rest', 'graphql', 'multipart', 'events', 'graphql-ws', 'sweep'] as const;
export type Suite = (typeof suites)[number];

/** How a run's requests are split over the drawn suites: REST has the most operations, multipart the fewest; streams and sockets take longer each. The sweep is not drawn: its length is its own. */
const weights: Record<Exclude<Suite, 'sweep'>, number> = { rest: 5, graphql: 4, multipart: 1, events: 0.5, 'graphql-ws': 0.5 };

/** Each chosen drawn suite's share of a run (summing to 1; the sweep has none). */
export function suiteShares(chosen: readonly Suite[]): Partial<Record<Suite, number>> {
  const drawn = chosen.filter((suite): suite is Exclude<Suite, 'sweep'> => suite !== 'sweep');
  const total = drawn.reduce((sum, suite) => sum + weights[suite], 0);
  return Object.fromEntries(drawn.map((suite) => [suite, weights[suite] / total]));
}

const sweeps = new WeakMap<FuzzSession, SweepCases>();

/** The sweep's cases (made once per session: they name the session's seeded records by reference). */
export function sweepOf(session: FuzzSession): SweepCases {
  if (!sweeps.has(session)) sweeps.set(session, sweepCases(session.doc, schema, entityDefinitions));
  return sweeps.get(session)!;
}

/** Boots the target (PGlite, or PostgreSQL at `postgresUrl`) and seeds it. */
export async function openSession(postgresUrl: string | undefined): Promise<FuzzSession> {
  const target = await startTarget(postgresUrl);
  try {
    const response = await fetch(`${target.origin}/api/v1/openapi.json`);
    const doc = (await response.json()) as OpenApiDocument;
    const world = await seedWorld(target);
    const victimTeams = [world.victim.teamId, world.refs.get('victim.spareTeamId')!];
    const victim = { userId: world.victim.userId, teamIds: victimTeams, keyIds: world.victim.keyIds };
    const baseline = await victimSnapshot(target.database, victim);
    world.refs.set('cronSecret', target.config.scheduledActions.cronSecret!);
    return { target, world, doc, victim, baseline, last: baseline, stats: { requests: 0, byStatus: {}, serverErrors: 0, noAnswer: 0, uncaught: 0, slowest: [] }, seen: { deliveries: 0, logs: target.logs.length, uncaught: 0 } };
  } catch (error) {
    await target.close();
    throw error;
  }
}

export async function closeSession(session: FuzzSession): Promise<void> {
  await session.world.close();
  await session.target.close();
}

/** What value generators know: seeded ids, names, and valid values of every entity field. */
function valueContext(session: FuzzSession): ValueContext {
  const fieldValues = new Map<string, fc.Arbitrary<unknown>>();
  for (const entity of entityDefinitions) {
    for (const field of [...entity.fields, ...entity.children.flatMap((c) => c.fields)]) {
      const existing = fieldValues.get(field.name);
      fieldValues.set(field.name, existing ? fc.oneof(existing, fieldValue(field)) : fieldValue(field));
    }
  }
  return { idRefs: session.world.idRefs, names: session.world.names, slugs: session.world.slugs, fieldValues };
}

/** The request generator of `suite` (graphql-ws plays connections, not requests; the sweep is a list: runSuite). */
export function requestsOf(session: FuzzSession, suite: Exclude<Suite, 'graphql-ws' | 'sweep'>): fc.Arbitrary<FuzzRequest> {
  const ctx = valueContext(session);
  if (suite === 'rest') return restRequests(session.doc, ctx, entityDefinitions);
  if (suite === 'graphql') return graphqlRequests(schema, ctx);
  if (suite === 'events') return eventStreamRequests(session.doc, schema, ctx, entityDefinitions);
  const rest = operationsOf(session.doc)
    .filter((op) => op.body?.type.startsWith('multipart/'))
    .map((op) => operationRequests(op, ctx));
  return fc.oneof(...rest, ...graphqlUploadRequests(schema, ctx));
}

/** Runs `runs` requests (or WebSocket connections, or sweep cases in order) of `suite` with `seed`, or only the one at `path`. */
export function runSuite(session: FuzzSession, suite: Suite, options: { seed: number; runs: number; path?: string; verbose?: boolean }): Promise<Finding[]> {
  if (suite === 'sweep') return sweep(session, suite, sweepOf(session).cases, options);
  if (suite === 'graphql-ws') return fuzzWebSocket(session, suite, graphqlWsCases(schema, valueContext(session), entityDefinitions), options);
  return fuzz(session, suite, requestsOf(session, suite), options);
}
