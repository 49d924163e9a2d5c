// Runs a route's GraphQL operation in process against the same schema and context as /graphql: no
// HTTP hop, no second copy of the business logic. Each document is validated at start-up (a route
// whose operation does not fit the schema stops the start) and compiled by graphql-jit when the route
// is first asked for: compiling all 244 routes cost ~105 ms of CPU at every start, and their code
// stayed in memory for routes a deployment may never serve (/graphql runs clients' documents with
// yoga's executor and graphql-js's messages).
// graphql-jit inlines the coercion of every variable, which never ends for a recursive input type
// (`TaskWhere` holds `AND: [TaskWhere!]`; graphql-jit issues #81 and #175): such a variable is
// coerced by graphql-js (`coerceInputValue`, the same rules and messages as /graphql) and the
// compiled query receives it declared as the pass-through `JSON` scalar, after the document, as
// written, has been validated against the schema.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import {
  coerceInputValue, getNamedType, getOperationAST, GraphQLError, isInputObjectType, Kind, typeFromAST, validate, visit,
  type DocumentNode, type ExecutionResult, type GraphQLInputType, type GraphQLNamedType, type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Context } from '../graphql/context.js';
import { toClientError } from '../graphql/errors.js';
import { activeTracing } from '../telemetry/tracing.js';

export interface OperationResult<TData> {
  data: TData | null | undefined;
  errors: readonly GraphQLError[] | undefined;
}

/** A route's operation, ready to run as a request's caller; errors come back client-safe and mark the request failed. */
export type CompiledOperation<TData = unknown, TVars = unknown> = (variables: TVars, ctx: Context) => Promise<OperationResult<TData>>;

/** The documents found valid against each schema (a process that builds several apps, as tests do, validates each once). */
const validated = new WeakMap<GraphQLSchema, WeakSet<DocumentNode>>();

/**
 * Validates `document` against the schema, throwing at start-up when it does not fit, and compiles it
 * when first run. `storedValues` leaves enum and built-in scalar values unserialized (see RestRoute).
 */
export function compileOperation<TData, TVars>(schema: GraphQLSchema, document: TypedDocumentNode<TData, TVars>, where: string, storedValues = false): CompiledOperation<TData, TVars> {
  const valid = validated.get(schema) ?? validated.set(schema, new WeakSet()).get(schema)!;
  if (!valid.has(document)) {
    const errors = validate(schema, document);
    if (errors.length) throw new Error(`REST route ${where}: operation does not match the schema: ${errors.map((e) => e.message).join('; ')}`);
    valid.add(document);
  }
  const recursive = recursiveVariables(schema, document as DocumentNode);
  let compiled: CompiledQuery | undefined;
  const run: CompiledOperation<TData, TVars> = async (variables, ctx) => {
    compiled ??= compileDocument(schema, document as DocumentNode, where, storedValues, recursive);
    let given = variables as Record<string, unknown>;
    if (recursive.size) {
      const coerced = coerceRecursive(given, recursive);
      if ('errors' in coerced) {
        ctx.fail();
        return { data: undefined, errors: coerced.errors.map((error) => toClientError(error, ctx.log)) };
      }
      given = coerced.variables;
    }
    const result = (await compiled.query(undefined, ctx, given)) as ExecutionResult<TData>;
    if (!result.errors?.length) return { data: result.data, errors: undefined };
    ctx.fail();
    return { data: result.data, errors: result.errors.map((error) => toClientError(error, ctx.log)) };
  };
  // With traces on, the operation's span (as on /graphql) is the parent of its statements' spans.
  const tracing = activeTracing();
  if (!tracing) return run;
  const operation = getOperationAST(document as DocumentNode);
  const traced = { type: operation?.operation ?? 'query', name: operation?.name?.value } as const;
  return (variables, ctx) => tracing.operation(traced, () => run(variables, ctx));
}

/**
 * graphql-jit's compilation of a validated document, its recursive variables passed through (see the
 * head of this file). A refusal is a bug of ours (limits.test.ts compiles every route's document).
 */
export function compileDocument(schema: GraphQLSchema, document: DocumentNode, where: string, storedValues: boolean, recursive = recursiveVariables(schema, document)): CompiledQuery {
  const compiled = compileQuery(schema, passedThrough(document, recursive), undefined, { disableLeafSerialization: storedValues });
  if (!isCompiledQuery(compiled)) throw new Error(`REST route ${where}: operation does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  return compiled;
}

/** Whether an input object type reaches itself through its fields (lists and non-nulls included). */
function isRecursive(type: GraphQLNamedType): boolean {
  if (!isInputObjectType(type)) return false;
  const seen = new Set<GraphQLNamedType>();
  const reaches = (from: GraphQLNamedType): boolean => {
    if (!isInputObjectType(from) || seen.has(from)) return false;
    seen.add(from);
    return Object.values(from.getFields()).some((f) => getNamedType(f.type) === type || reaches(getNamedType(f.type)));
  };
  return reaches(type);
}

/** The document's variables whose type is (a list of) a recursive input type, with their types. */
function recursiveVariables(schema: GraphQLSchema, document: DocumentNode): Map<string, GraphQLInputType> {
  const out = new Map<string, GraphQLInputType>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const v of definition.variableDefinitions ?? []) {
      const type = typeFromAST(schema, v.type as never) as GraphQLInputType | undefined;
      if (type && isRecursive(getNamedType(type))) out.set(v.variable.name.value, type);
    }
  }
  return out;
}

/** `document` with the recursive variables declared as `JSON` (coerced beforehand, see coerceRecursive). */
function passedThrough(document: DocumentNode, recursive: Map<string, GraphQLInputType>): DocumentNode {
  if (!recursive.size) return document;
  return visit(document, {
    VariableDefinition: (node) => (recursive.has(node.variable.name.value) ? { ...node, type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: 'JSON' } } } : undefined),
  });
}

/** The recursive variables coerced as graphql-js coerces variables, or their errors (400 BAD_REQUEST). */
function coerceRecursive(variables: Record<string, unknown>, recursive: Map<string, GraphQLInputType>): { variables: Record<string, unknown> } | { errors: GraphQLError[] } {
  const out = { ...variables };
  const errors: GraphQLError[] = [];
  for (const [name, type] of recursive) {
    if (variables[name] === undefined) continue;
    out[name] = coerceInputValue(variables[name], type, (path, _invalid, error) => {
      const at = path.length ? ` at "${name}.${path.join('.')}"` : '';
      errors.push(new GraphQLError(`Variable "$${name}" got invalid value${at}; ${error.message}`, { originalError: error }));
    });
  }
  return errors.length ? { errors } : { variables: out };
}
