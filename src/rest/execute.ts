// Runs a route's GraphQL operation in process against the same schema and context as /graphql: no
// HTTP hop, no second copy of the business logic. Each document is validated and compiled once, at
// start-up, by graphql-jit (a REST route's document is known at start-up; /graphql runs
// clients' documents with yoga's executor and graphql-js's messages).
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { validate, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Context } from '../graphql/context.js';
import { toClientError } from '../graphql/errors.js';

export interface OperationResult<TData> {
  data: TData | null | undefined;
  errors: readonly GraphQLError[] | undefined;
}

/** A route's operation, ready to run as a request's caller; errors come back client-safe and mark the request failed. */
export type CompiledOperation<TData = unknown, TVars = unknown> = (variables: TVars, ctx: Context) => Promise<OperationResult<TData>>;

/**
 * Validates `document` against the schema and compiles it; throws at start-up when it does not fit.
 * `storedValues` leaves enum and built-in scalar values unserialized (see RestRoute).
 */
export function compileOperation<TData, TVars>(schema: GraphQLSchema, document: TypedDocumentNode<TData, TVars>, where: string, storedValues = false): CompiledOperation<TData, TVars> {
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`REST route ${where}: operation does not match the schema: ${errors.map((e) => e.message).join('; ')}`);
  const compiled = compileQuery(schema, document as DocumentNode, undefined, { disableLeafSerialization: storedValues });
  if (!isCompiledQuery(compiled)) throw new Error(`REST route ${where}: operation does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  return async (variables, ctx) => {
    const result = (await compiled.query(undefined, ctx, variables as Record<string, unknown>)) as ExecutionResult<TData>;
    if (!result.errors?.length) return { data: result.data, errors: undefined };
    ctx.fail();
    return { data: result.data, errors: result.errors.map((error) => toClientError(error, ctx.log)) };
  };
}
