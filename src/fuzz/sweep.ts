// The sweep suite: the where sweep and the shape sweep (where-sweep.ts, shape-sweep.ts) as one ordered
// list of requests, walked in order rather than drawn (`--path P` replays case P). The core of both comes
// first: each operator the schema gives each field, each groupBy field, each expand, child and metas
// value; a run of the core's length covers those, the whole list covers everything.
import type { GraphQLSchema } from 'graphql';
import type { EntityDefinition } from '../config/entity-definition.js';
import type { OpenApiDocument } from './answer-checks.js';
import type { FuzzRequest } from './fuzz-request.js';
import { shapeSweep } from './shape-sweep.js';
import { whereSweep } from './where-sweep.js';

export interface SweepCases {
  cases: FuzzRequest[];
  /** How many of the first cases are the core. */
  core: number;
}

/**
 * `cases` with the subscriptions among them spread evenly through the others: a subscription a client
 * left is let go when the server notices (at its next write, at worst its keep-alive), and a caller
 * holds at most REALTIME_MAX_SUBSCRIPTIONS (8 in the fuzz target) at once; in a row they would meet 429.
 */
function spread(cases: FuzzRequest[]): FuzzRequest[] {
  const streams = cases.filter((c) => c.stream);
  const others = cases.filter((c) => !c.stream);
  const out: FuzzRequest[] = [];
  let next = 0;
  others.forEach((c, i) => {
    out.push(c);
    while (next < streams.length && (next + 1) * others.length <= (i + 1) * (streams.length + 1)) out.push(streams[next++]!);
  });
  return [...out, ...streams.slice(next)];
}

/** Every case of the sweep, the core first. */
export function sweepCases(doc: OpenApiDocument, schema: GraphQLSchema, entities: readonly EntityDefinition[]): SweepCases {
  const where = whereSweep(schema, entities);
  const shape = shapeSweep(doc, schema, entities);
  return { cases: [...where.core, ...shape.core, ...spread([...where.rest, ...shape.rest])], core: where.core.length + shape.core.length };
}
