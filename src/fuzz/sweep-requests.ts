// The requests a sweep is made of, as the fuzzer sends them (fuzz-request.ts): a REST GET with query
// parameters, a GraphQL query with variables; and who sends each, in turn among the callers that
// reach the entity's records (anonymous first on a public entity), so every case meets the services
// and the database rather than a 401. The superadmin's `*` key acts in the fuzzing caller's team (it
// is a member), where the records the cases name are.
import { getNamedType, isLeafType, isObjectType, type GraphQLNamedType } from 'graphql';
import type { EntityDefinition } from '../config/entity-definition.js';
import type { FuzzRequest, StreamRead } from './fuzz-request.js';
import { refText } from './hostile-values.js';
import { queryString } from './http-parts.js';
import { jsonText, objectTree, type JsonTree } from './json-text.js';
import { narrowKeyScopes, type CallerKind } from './world.js';

/** Callers that reach `d`'s records: anonymous ones too on a public entity, and the narrow key where its scopes list `d`'s records (whose filters through other entities it may not read must be refused). */
export function callersOf(d: EntityDefinition): CallerKind[] {
  const reaching: CallerKind[] = d.access.public ? ['anonymous', 'session', 'wildcardKey'] : ['session', 'wildcardKey'];
  return d.permissions.list.some((scope) => (narrowKeyScopes as readonly string[]).includes(scope)) ? [...reaching, 'narrowKey'] : reaching;
}

/** The team header of `caller`: the `*` key's requests go to the fuzzing caller's team. */
const teamOf = (caller: CallerKind): [string, string][] => (caller === 'wildcardKey' ? [['x-team-id', refText('attacker.teamId')]] : []);

/** GET `path` (a route of the OpenAPI document, `/api/v1/tasks/{id}`, with `target` its concrete form) with `pairs` as its query. */
export function restGet(caller: CallerKind, route: string, pairs: [string, string][], target = route): FuzzRequest {
  return { kind: 'rest', route: `GET ${route}`, method: 'GET', target: target + queryString(pairs, null), caller, keyHeader: 'authorization', headers: teamOf(caller) };
}

/** POST /graphql with `query` and `variables`, aimed at the root field `field` (`Query.tasks`). */
export function graphqlPost(caller: CallerKind, field: string, query: string, variables: Record<string, JsonTree> = {}): FuzzRequest {
  const body = jsonText(objectTree({ query, variables: objectTree(variables) }));
  return { kind: 'graphql', route: `graphql ${field}`, method: 'POST', target: '/graphql', caller, keyHeader: 'authorization', headers: [['content-type', 'application/json'], ...teamOf(caller)], body: [body] };
}
/** A selection of every leaf of `type` ('' for a leaf), and, `depth` levels down, of its object fields' leaves. */
export function selectionOf(type: GraphQLNamedType, depth: number): string {
  if (isLeafType(type) || !isObjectType(type)) return '';
  const parts = Object.values(type.getFields()).flatMap((f) => {
    if (f.args.some((a) => a.type.toString().endsWith('!'))) return [];
    const named = getNamedType(f.type);
    if (isLeafType(named)) return [f.name];
    return depth > 0 ? [`${f.name} ${selectionOf(named, depth - 1)}`] : [];
  });
  return `{ ${parts.join(' ') || '__typename'} }`;
}


/** `request` as a subscription over an event stream: read a while as its entity's record (the fuzzing caller's) changes. */
export function streamed(request: FuzzRequest, d: EntityDefinition): FuzzRequest {
  const stream: StreamRead = { how: 'read', ms: 150, change: d.slug, private: !d.access.public };
  return { ...request, route: request.kind === 'graphql' ? request.route.replace('graphql ', 'graphql over SSE ') : request.route, headers: [['accept', 'text/event-stream'], ...request.headers], stream };
}
