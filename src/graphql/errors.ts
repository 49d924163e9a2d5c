// The one translation from thrown errors to GraphQL errors: domain errors keep their code, status and
// details in extensions; anything else is logged with the request id and masked.
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { AppError } from '../shared/errors.js';

export interface ErrorExtensions {
  code: string;
  http: { status: number };
  details?: Record<string, unknown>;
}

/** A GraphQL error safe to send: a domain error as is, GraphQL's own errors as 400, the rest masked as 500. */
export function toClientError(error: unknown, log: Logger | undefined): GraphQLError {

  if (error instanceof GraphQLError && typeof error.extensions.code === 'string' && error.extensions.http) return error;
  const original = error instanceof GraphQLError ? (error.originalError ?? undefined) : error;
  if (original instanceof AppError) {
    const extensions: ErrorExtensions = { code: original.code, http: { status: original.status } };
    if (original.details) extensions.details = original.details;
    return new GraphQLError(original.message, { path: asGraphQLError(error)?.path, extensions: { ...extensions } });
  }
  if (error instanceof GraphQLError && !error.originalError) {
    // Parse, validation and variable-coercion errors: the client sent a bad operation. yoga's own
    // `http` (with `spec`, which keeps legacy application/json answers at 200) is kept.
    const http = { ...(error.extensions.http as object | undefined), status: 400 };
    return new GraphQLError(error.message, { nodes: error.nodes, path: error.path, extensions: { ...error.extensions, code: 'BAD_REQUEST', http } });
  }
  log?.error({ err: original }, 'unexpected error');
  return new GraphQLError('Internal server error', { path: asGraphQLError(error)?.path, extensions: { code: 'INTERNAL_ERROR', http: { status: 500 } } });
}

function asGraphQLError(error: unknown): GraphQLError | undefined {
  return error instanceof GraphQLError ? error : undefined;
}
