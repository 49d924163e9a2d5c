// Runs a route's GraphQL operation in process against the same schema and context as /graphql:
// no HTTP hop, no second copy of the business logic. Documents are validated once, at start-up.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { execute, validate, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { Context } from '../graphql/context.js';
import { toClientError } from '../graphql/errors.js';

export interface OperationResult<TData> {
  data: TData | null | undefined;
  errors: readonly GraphQLError[] | undefined;
}

/** Throws at start-up when a route's document does not fit the schema. */
export function assertValidDocument(schema: GraphQLSchema, document: TypedDocumentNode<unknown, unknown>, where: string): void {
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`REST route ${where}: operation does not match the schema: ${errors.map((e) => e.message).join('; ')}`);
}

/** Executes an operation as the request's caller; errors come back client-safe and mark the request failed. */
export async function executeOperation<TData, TVars>(
  schema: GraphQLSchema,
  document: TypedDocumentNode<TData, TVars>,
  variables: TVars,
  ctx: Context,
): Promise<OperationResult<TData>> {
  const result = (await execute({ schema, document, variableValues: variables as Record<string, unknown>, contextValue: ctx })) as ExecutionResult<TData>;
  if (!result.errors?.length) return { data: result.data, errors: undefined };
  ctx.fail();
  return { data: result.data, errors: result.errors.map((error) => toClientError(error, ctx.log)) };
}
