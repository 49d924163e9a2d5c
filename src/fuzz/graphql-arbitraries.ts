// GraphQL requests generated from the schema: for every query and mutation field, an operation with
// argument values of right and wrong types (inline or as variables, declared right or wrong) and a
// random selection of its result; random documents (token soup, deep nesting, many aliases,
// fragment cycles, introspection); and the ways a body can carry them (JSON, GET, batches,
// application/graphql, malformed JSON, multipart for fields that take files). A field added to the
// schema is fuzzed with no change here.
import fc from 'fast-check';
import { getNamedType, isEnumType, isInterfaceType, isLeafType, isNonNullType, isObjectType, isUnionType, type GraphQLField, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
import type { FuzzRequest } from './fuzz-request.js';
import { graphqlLiteral, inputValue } from './graphql-values.js';
import { hostileJson, hostileString } from './hostile-values.js';
import { caller, extraHeaders, malformedJson, percentEncode } from './http-parts.js';
import { jsonText, objectTree, type JsonTree } from './json-text.js';
import { graphqlMultipart } from './multipart-arbitraries.js';
import type { ValueContext } from './schema-values.js';

type AnyField = GraphQLField<unknown, unknown>;

/** Argument text `(a: …, b: $b)` and the variables it needs, for `field`. */
function argumentsOf(field: AnyField, ctx: ValueContext): fc.Arbitrary<{ text: string; declarations: string[]; variables: [string, JsonTree][] }> {
  const each = field.args.map((arg) =>
    fc.record({
      present: fc.oneof({ weight: isNonNullType(arg.type) ? 12 : 2, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      asVariable: fc.boolean(),
      declaredType: fc.oneof({ weight: 8, arbitrary: fc.constant(String(arg.type)) }, { weight: 1, arbitrary: fc.constantFrom('String', 'Int', 'JSONObject', '[ID!]!', 'Upload') }),
      value: inputValue(arg.type, arg.name, ctx),
    }),
  );
  return fc.tuple(...each).map((choices) => {
    const parts: string[] = [];
    const declarations: string[] = [];
    const variables: [string, JsonTree][] = [];
    choices.forEach((choice, i) => {
      const arg = field.args[i]!;
      if (!choice.present) return;
      if (choice.asVariable) {
        parts.push(`${arg.name}: $${arg.name}`);
        declarations.push(`$${arg.name}: ${choice.declaredType}`);
        variables.push([arg.name, choice.value]);
      } else {
        const named = getNamedType(arg.type);
        const enums = isEnumType(named) ? new Set(named.getValues().map((v) => v.name)) : undefined;
        parts.push(`${arg.name}: ${graphqlLiteral(choice.value, enums)}`);
      }
    });
    return { text: parts.length ? `(${parts.join(', ')})` : '', declarations, variables };
  });
}

/** A selection set for `type` (a few of its fields, nested a few levels); '' for leaves. */
function selectionOf(type: GraphQLNamedType, ctx: ValueContext, depth: number): fc.Arbitrary<string> {
  if (isLeafType(type)) return fc.constant('');
  if (isUnionType(type) || isInterfaceType(type)) return fc.constant('{ __typename }');
  if (!isObjectType(type) || depth > 2) return fc.constant('{ __typename }');
  const fields = Object.values(type.getFields()).filter((f) => f.args.every((a) => !isNonNullType(a.type)));
  const picked = fc.subarray(fields, { minLength: 1, maxLength: Math.min(4, fields.length) });
  return picked.chain((chosen) =>
    fc.tuple(...chosen.map((f) => selectionOf(getNamedType(f.type), ctx, depth + 1).map((sub) => `${f.name} ${sub}`))).map((lines) => `{ __typename ${lines.join(' ')} }`),
  );
}

export interface Operation {
  query: string;
  variables: JsonTree;
  operationName?: string;
}

/** Operations on one root field: arguments, selection, variables (sometimes an extra or a wrong one). */
export function fieldOperation(kind: 'query' | 'mutation' | 'subscription', field: AnyField, ctx: ValueContext): fc.Arbitrary<Operation> {
  return fc
    .tuple(argumentsOf(field, ctx), selectionOf(getNamedType(field.type), ctx, 0), fc.option(fc.tuple(fc.constantFrom('extra', '__proto__'), hostileJson), { freq: 6, nil: null }), fc.boolean())
    .map(([args, selection, extra, named]) => {
      const name = named ? 'Fuzz' : '';
      const declarations = args.declarations.length ? `(${args.declarations.join(', ')})` : '';
      const variables = objectTree(Object.fromEntries([...args.variables, ...(extra ? [extra] : [])]));
      return { query: `${kind} ${name}${declarations} { ${field.name}${args.text} ${selection} }`, variables, operationName: named ? 'Fuzz' : undefined };
    });
}

/** Documents no client should send, and some every server meets. */
export const randomDocument: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.constantFrom('{', '}', '(', ')', 'query', 'mutation', 'subscription', 'fragment', 'on', '...', '$x', ':', '!', '[', ']', '@include(if: true)', '@skip', '=', '"', 'teams', 'me', '__typename', '__schema', 'tasks', 'limit: 100', 'a', ',', '#', '\n', '"""', '\u0000', 'Int', 'ID!'), { maxLength: 30 }).map((t) => t.join(' ')),
  fc.constantFrom(100, 1_000, 10_000).map((n) => `{ ${'me { '.repeat(n)}__typename${' }'.repeat(n)} }`),
  fc.constantFrom(100, 1_000).map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`),
  fc.constantFrom(10, 50).map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: teams(limit: 100) { data { id } }`).join(' ')} }`),
  fc.constant('query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }'),
  fc.constant('{ __schema { types { name fields { name args { name type { name ofType { name } } } } } } }'),
  fc.constant('query A { __typename } query B { __typename }'),
  fc.constant('subscription { __typename }'),
  fc.constant('{ __typename @include(if: $undeclared) }'),
  fc.constant(`{ __typename(x: "${'y'.repeat(100_000)}") }`),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

/** A GraphQL request carrying `op`: a JSON POST mostly, else GET, batch, application/graphql, odd body shapes or malformed JSON. */
function transport(op: fc.Arbitrary<Operation>, route: string, ctx: ValueContext): fc.Arbitrary<FuzzRequest> {
  const headers = extraHeaders(ctx.idRefs);
  const body = (o: Operation): JsonTree => objectTree({ query: o.query, variables: o.variables, ...(o.operationName ? { operationName: o.operationName } : {}) });
  const preflight = fc.oneof({ weight: 3, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 1, arbitrary: fc.constant<[string, string][]>([['graphql-preflight', '1']]) });
  const carried = fc.oneof(
    { weight: 10, arbitrary: op.map((o) => ({ method: 'POST', query: '', type: 'application/json', text: jsonText(body(o)) as string | null })) },
    { weight: 2, arbitrary: op.map((o) => ({ method: 'GET', query: `?query=${percentEncode(o.query)}&variables=${percentEncode(jsonText(o.variables))}`, type: null, text: null })) },
    { weight: 1, arbitrary: fc.array(op.map(body), { minLength: 0, maxLength: 3 }).map((list) => ({ method: 'POST', query: '', type: 'application/json', text: jsonText(list) })) },
    { weight: 1, arbitrary: op.map((o) => ({ method: 'POST', query: '', type: 'application/graphql', text: o.query })) },
    { weight: 1, arbitrary: fc.tuple(op, fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'text/csv', 'application/json; charset=utf-16', 'application/graphql-response+json')).map(([o, type]) => ({ method: 'POST', query: '', type, text: jsonText(body(o)) })) },
    { weight: 1, arbitrary: fc.tuple(op, fc.constantFrom('query', 'variables', 'operationName', 'extensions'), hostileJson).map(([o, key, value]) => ({ method: 'POST', query: '', type: 'application/json', text: jsonText({ entries: [...(body(o) as { entries: [string, JsonTree][] }).entries, [key, value]] }) })) },
    { weight: 1, arbitrary: malformedJson.map((text) => ({ method: 'POST', query: '', type: 'application/json', text })) },
    { weight: 1, arbitrary: fc.tuple(op, fc.constantFrom('PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json')).map(([o, method, type]) => ({ method, query: '', type, text: jsonText(body(o)) })) },
  );
  return fc.record({ who: caller, carried, preflight, extra: headers }).map(({ who, carried, preflight, extra }): FuzzRequest => ({
    kind: 'graphql',
    route,
    method: carried.method,
    target: `/graphql${carried.query}`,
    ...who,
    headers: [...(carried.type ? ([['content-type', carried.type]] as [string, string][]) : []), ...preflight, ...extra],
    body: carried.text === null ? undefined : [carried.text],
  }));
}

/** Multipart requests for a root field that takes files (an Upload argument). */
function uploadRequests(field: AnyField, ctx: ValueContext): fc.Arbitrary<FuzzRequest> | null {
  const upload = field.args.find((a) => getNamedType(a.type).name === 'Upload');
  if (!upload) return null;
  const list = String(upload.type).startsWith('[');
  const query = `mutation ($${upload.name}: ${String(upload.type)}) { ${field.name}(${upload.name}: $${upload.name}) { __typename } }`;
  const preflight = fc.oneof({ weight: 6, arbitrary: fc.constant<[string, string][]>([['graphql-preflight', '1']]) }, { weight: 1, arbitrary: fc.constant<[string, string][]>([]) });
  const headers = fc.tuple(preflight, extraHeaders(ctx.idRefs)).map(([a, b]) => [...a, ...b]);
  return fc.record({ who: caller, multipart: graphqlMultipart(query, upload.name, list, headers) }).map(({ who, multipart }): FuzzRequest => ({
    kind: 'graphql',
    route: `multipart Mutation.${field.name}`,
    method: 'POST',
    target: '/graphql',
    ...who,
    headers: multipart.headers,
    body: multipart.body,
  }));
}

/** Requests over every query and mutation field of `schema` (each equally likely), and random documents. */
export function graphqlRequests(schema: GraphQLSchema, ctx: ValueContext): fc.Arbitrary<FuzzRequest> {
  const roots = [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]] as const;
  const options: { weight: number; arbitrary: fc.Arbitrary<FuzzRequest> }[] = [];
  for (const [kind, type] of roots) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      options.push({ weight: 4, arbitrary: transport(fieldOperation(kind, field, ctx), `graphql ${type!.name}.${field.name}`, ctx) });
    }
  }
  const documents = fc.record({ query: randomDocument, variables: fc.oneof(hostileJson, fc.constant<JsonTree>(null)) }).map((o): Operation => o);
  options.push({ weight: 12, arbitrary: transport(documents, 'graphql (random document)', ctx) });
  options.push({ weight: 2, arbitrary: transport(fc.record({ query: hostileString, variables: fc.constant<JsonTree>(null) }), 'graphql (random document)', ctx) });
  return fc.oneof(...options);
}

/** Multipart requests for every root field that takes files. */
export function graphqlUploadRequests(schema: GraphQLSchema, ctx: ValueContext): fc.Arbitrary<FuzzRequest>[] {
  return Object.values(schema.getMutationType()?.getFields() ?? {}).flatMap((field) => uploadRequests(field, ctx) ?? []);
}
