// The one translation from thrown errors to GraphQL errors: domain errors keep their code, status and
// details in extensions; anything else is logged with the request id and masked.
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { databaseRefusal } from '../db/errors.js';
import { databaseRetryAfterSeconds, databaseUnavailable, isDatabaseUnavailable, reportDatabaseOutage } from '../db/unavailable.js';
import { AppError } from '../shared/errors.js';

export interface ErrorExtensions {
  code: string;
  http: { status: number; headers?: Record<string, string> };
  details?: Record<string, unknown>;
}

/** A GraphQL error safe to send: a domain error as is, GraphQL's own errors as 400, the rest masked as 500. */
export function toClientError(error: unknown, log: Logger | undefined): GraphQLError {
  // graphql-jit's errors may have no extensions at all (graphql-js's always have an object).
  if (error instanceof GraphQLError && typeof error.extensions?.code === 'string' && error.extensions.http) return error;
  const thrown = error instanceof GraphQLError ? (error.originalError ?? undefined) : error;
  // A value the database cannot hold, a record already gone: the request's fault (db/errors.ts).
  const original = databaseRefusal(thrown) ?? thrown;
  if (original instanceof AppError) {
    const extensions: ErrorExtensions = { code: original.code, http: { status: original.status } };
    if (original.details) extensions.details = original.details;
    // A 429's Retry-After: yoga and the REST envelope send http.headers.
    if (original.headers) extensions.http.headers = original.headers;
    return new GraphQLError(original.message, { path: asGraphQLError(error)?.path, extensions: { ...extensions } });
  }
  // A variable of the wrong type: before execution (no path), the executor wraps the scalar's or input's
  // own GraphQLError (`Int cannot represent…`, `Field "x" … was not provided`, `Expected type "JSONObject"`
  // around what parseValue threw) as originalError. The client's fault too.
  const coercion = error instanceof GraphQLError && !error.path && error.originalError instanceof GraphQLError;
  if (error instanceof GraphQLError && (!error.originalError || coercion)) {
    // Parse, validation and variable-coercion errors: the client sent a bad operation. yoga's own
    // `http` (with `spec`, which keeps legacy application/json answers at 200) is kept.
    const http = { ...(error.extensions?.http as object | undefined), status: 400 };
    return new GraphQLError(error.message, { nodes: error.nodes, path: error.path, extensions: { ...error.extensions, code: 'BAD_REQUEST', http } });
  }
  if (isDatabaseUnavailable(original)) {
    // Not the request's fault and gone when the database is back: 503 with Retry-After, logged sparingly.
    reportDatabaseOutage(log, original);
    const unavailable = databaseUnavailable();
    const http = { status: unavailable.status, headers: { 'retry-after': String(databaseRetryAfterSeconds) } };
    return new GraphQLError(unavailable.message, { path: asGraphQLError(error)?.path, extensions: { code: unavailable.code, http, details: unavailable.details } });
  }
  log?.error({ err: original }, 'unexpected error');
  return new GraphQLError('Internal server error', { path: asGraphQLError(error)?.path, extensions: { code: 'INTERNAL_ERROR', http: { status: 500 } } });
}

function asGraphQLError(error: unknown): GraphQLError | undefined {
  return error instanceof GraphQLError ? error : undefined;
}
