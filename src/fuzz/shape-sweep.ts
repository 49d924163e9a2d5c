// Every groupBy with each measure, and every value of every parameter that shapes an answer, enumerated:
//   aggregates: REST `/api/v1/{entity}/aggregate?groupBy=` with each field the document lists, every
//     combination of up to three (and four, refused), each measure alone and all of them, with
//     isNull on the grouped field; GraphQL `<entity>Aggregate(groupBy:)` with each value of its enum
//     and every combination, selecting every measure;
//   the entity GET routes (LIST, READ, a child's LIST): each query parameter the document declares
//     with each value it lists (`expand`, `fields`, `child`, `metas`, `sortBy`, `dateField`…), all at
//     once for lists, and values past its edges or of none (`{field}[op]` and `filter` are the where
//     sweep's); `distinct` with each field;
//   GraphQL selections through every relation and to-many side of each entity's records, one at a time
//   and all at once, on LIST and READ.
// Values come from the OpenAPI document and the GraphQL schema, so a new entity or parameter is swept
// with no change here. The core is each groupBy field and each expand, child and metas value.
import { getNamedType, isEnumType, isLeafType, isObjectType, type GraphQLSchema } from 'graphql';
import type { EntityDefinition } from '../config/entity-definition.js';
import { graphqlNames } from '../modules/entities/graphql-names.js';
import type { OpenApiDocument } from './answer-checks.js';
import type { FuzzRequest } from './fuzz-request.js';
import { refText } from './hostile-values.js';
import { operationsOf, type ApiOperation } from './openapi-arbitraries.js';
import type { JsonSchema } from './schema-values.js';
import { callersOf, graphqlPost, restGet, selectionOf } from './sweep-requests.js';
import type { Sweep } from './where-sweep.js';

type Parameter = ApiOperation['parameters'][number];

/** Every combination of `size` values of `list`, in order. */
function combinations<T>(list: readonly T[], size: number): T[][] {
  if (size === 0) return [[]];
  return list.flatMap((first, i) => combinations(list.slice(i + 1), size - 1).map((rest) => [first, ...rest]));
}

/** The values a list parameter names (`items.enum`), or a plain one's (`enum`). */
const listed = (schema: JsonSchema | undefined): string[] => ((schema?.type === 'array' ? schema.items?.enum : schema?.enum) ?? []).map(String);

/** Values of one declared parameter: each it lists, all at once, and odd ones; numbers at and past their edges; dates at the calendar's. */
function parameterValues(p: Parameter, slug: string): string[] {
  const s = p.schema ?? {};
  const values = listed(s);
  if (s.type === 'array' && values.length) return [...values, values.join(','), `${values[0]},nope`, 'nope', ''];
  if (values.length) return [...values, 'nope', ''];
  if (s.type === 'boolean') return ['true', 'false', 'yes'];
  if (s.type === 'integer' || s.type === 'number') return [s.minimum, s.maximum, s.maximum === undefined ? 2147483648 : s.maximum + 1, s.minimum === undefined ? -1 : s.minimum - 1, 1.5, 'abc'].filter((v) => v !== undefined).map(String);
  if (s.format === 'date') return ['2030-01-02', '0001-01-01', '9999-12-31', '2030-02-30'];
  if (s.format === 'date-time') return ['2030-01-01T00:00:00.000Z', '0001-01-01T00:00:00.000Z', '+275760-09-13T00:00:00.000Z'];
  if (s.format === 'uuid' || s.items?.format === 'uuid') return [refText(`attacker.${slug}Id`), refText(`victim.${slug}Id`), `${refText(`attacker.${slug}Id`)},${refText(`victim.${slug}Id`)}`, 'not-a-uuid'];
  return ['seed', '', 'x'.repeat((s.maxLength ?? 500) + 1)];
}

/** The REST and GraphQL aggregates of `d`. */
function aggregates(d: EntityDefinition, doc: OpenApiDocument, schema: GraphQLSchema, core: FuzzRequest[], rest: FuzzRequest[]): void {
  const route = `/api/v1/${d.slug}/aggregate`;
  const op = operationsOf({ paths: { [route]: doc.paths[route] ?? {} } }).find((o) => o.method === 'GET');
  const callers = callersOf(d);
  let turn = 0;
  const who = () => callers[turn++ % callers.length]!;
  if (op) {
    const param = (name: string) => op.parameters.find((p) => p.name === name && p.in === 'query');
    const groupable = listed(param('groupBy')?.schema);
    const measures = ['sum', 'avg', 'min', 'max'].flatMap((m): [string, string][] => (listed(param(m)?.schema).length ? [[m, listed(param(m)?.schema).join(',')]] : []));
    core.push(restGet(who(), route, measures));
    for (const g of groupable) core.push(restGet(who(), route, [['groupBy', g], ...measures]));
    for (let size = 1; size <= Math.min(4, groupable.length); size++) {
      for (const by of combinations(groupable, size)) {
        const groupBy: [string, string] = ['groupBy', by.join(',')];
        rest.push(restGet(who(), route, [groupBy]), restGet(who(), route, [groupBy, ['count', 'false']]));
        for (const measure of measures) rest.push(restGet(who(), route, [groupBy, ['count', 'false'], measure]));
        // The grouped field empty or not: groups of one value, or of none.
        for (const isNull of ['true', 'false']) rest.push(restGet(who(), route, [groupBy, ...measures, [`${by[0]}[isNull]`, isNull]]));
      }
    }
    // Fields the document does not list for groupBy, and each measure on each of its fields alone.
    for (const f of d.fields) if (!groupable.includes(f.name)) rest.push(restGet(who(), route, [['groupBy', f.name]]));
    for (const [m, names] of measures) for (const name of names.split(',')) rest.push(restGet(who(), route, [['groupBy', groupable[0] ?? ''], [m, name]]));
  }
  const field = `${graphqlNames(d).list}Aggregate`;
  const aggregate = schema.getQueryType()?.getFields()[field];
  if (!aggregate) return;
  const groupByArg = aggregate.args.find((a) => a.name === 'groupBy');
  const groupEnum = groupByArg && getNamedType(groupByArg.type);
  const values = groupEnum && isEnumType(groupEnum) ? groupEnum.getValues().map((v) => v.name) : [];
  const full = selectionOf(getNamedType(aggregate.type), 2);
  const query = (by: string[], selection = full) => `query Sweep { ${field}${by.length ? `(groupBy: [${by.join(', ')}])` : ''} ${selection} }`;
  core.push(graphqlPost(who(), `Query.${field}`, query([])));
  for (const v of values) core.push(graphqlPost(who(), `Query.${field}`, query([v])));
  for (let size = 1; size <= Math.min(4, values.length); size++) {
    for (const by of combinations(values, size)) {
      rest.push(graphqlPost(who(), `Query.${field}`, query(by)), graphqlPost(who(), `Query.${field}`, query(by, '{ groups { count } }')));
      rest.push(graphqlPost(who(), `Query.${field}`, `query Sweep($by: [${groupEnum!.name}!]) { ${field}(groupBy: $by) ${full} }`, { by }));
    }
  }
}

/** Each declared parameter of `d`'s GET routes (LIST, READ, each child's LIST) with each of its values. */
function parameters(d: EntityDefinition, doc: OpenApiDocument, core: FuzzRequest[], rest: FuzzRequest[]): void {
  const id = refText(`attacker.${d.slug}Id`);
  const routes: [string, string][] = [[`/api/v1/${d.slug}`, `/api/v1/${d.slug}`], [`/api/v1/${d.slug}/{id}`, `/api/v1/${d.slug}/${id}`], ...d.children.map((c): [string, string] => [`/api/v1/${d.slug}/{id}/child/${c.slug}`, `/api/v1/${d.slug}/${id}/child/${c.slug}`])];
  const callers = callersOf(d);
  let turn = 0;
  const who = () => callers[turn++ % callers.length]!;
  for (const [route, target] of routes) {
    const op = operationsOf({ paths: { [route]: doc.paths[route] ?? {} } }).find((o) => o.method === 'GET');
    if (!op) continue;
    for (const p of op.parameters.filter((q) => q.in === 'query' && q.name !== 'filter' && !q.name.includes('['))) {
      const values = parameterValues(p, d.slug);
      const isCore = ['expand', 'child', 'metas'].includes(p.name);
      for (const value of values) (isCore ? core : rest).push(restGet(who(), route, [[p.name, value]], target));
      if (p.name === 'fields') core.push(restGet(who(), route, [['fields', listed(p.schema).join(',')]], target));
      // `distinct`: the distinct values of one field.
      if (p.name === 'fields' && op.parameters.some((q) => q.name === 'distinct')) for (const name of listed(p.schema)) rest.push(restGet(who(), route, [['fields', name], ['distinct', 'true']], target));
    }
  }
}

/** GraphQL LIST and READ selecting each relation and to-many field of `d`'s records, then all of them, two levels deep. */
function selections(d: EntityDefinition, schema: GraphQLSchema, core: FuzzRequest[], rest: FuzzRequest[]): void {
  const names = graphqlNames(d);
  const type = schema.getType(names.type);
  const query = schema.getQueryType()?.getFields() ?? {};
  if (!type || !isObjectType(type)) return;
  const callers = callersOf(d);
  let turn = 0;
  const who = () => callers[turn++ % callers.length]!;
  const objects = Object.values(type.getFields()).filter((f) => !isLeafType(getNamedType(f.type)) && f.args.every((a) => !a.type.toString().endsWith('!')));
  const read = (selection: string) => graphqlPost(who(), `Query.${names.read}`, `query Sweep($id: ID!) { ${names.read}(id: $id) ${selection} }`, { id: refText(`attacker.${d.slug}Id`) });
  const list = (selection: string) => graphqlPost(who(), `Query.${names.list}`, `query Sweep { ${names.list} { items ${selection} } }`);
  // Each relation alone with its record's leaves, then with theirs a level further (nested lists may pass the query cost limit: a 400, also an answer to check).
  for (const f of objects) {
    for (const depth of [0, 1]) {
      const one = `{ id ${f.name} ${selectionOf(getNamedType(f.type), depth)} }`;
      if (query[names.list]) (depth ? rest : core).push(list(one));
      if (query[names.read]) rest.push(read(one));
    }
  }
  if (query[names.list]) rest.push(list(selectionOf(type, 1)));
  if (query[names.read]) rest.push(read(selectionOf(type, 1)), read(selectionOf(type, 2)));
}

/** The shape sweep of every entity. */
export function shapeSweep(doc: OpenApiDocument, schema: GraphQLSchema, entities: readonly EntityDefinition[]): Sweep {
  const core: FuzzRequest[] = [];
  const rest: FuzzRequest[] = [];
  for (const d of entities) {
    aggregates(d, doc, schema, core, rest);
    parameters(d, doc, core, rest);
    selections(d, schema, core, rest);
  }
  return { core, rest };
}
