// The contract's response envelope, and the one mapping from GraphQL errors to it.
import type { GraphQLError } from 'graphql';
import { reply, type HttpResponse } from '../http/exchange.js';
import type { EnvelopeExtras } from './route.js';

export interface ErrorBody {
  success: false;
  error: string;
  code?: string;
  details?: Record<string, unknown>;
}

export const jsonContentType = 'application/json; charset=utf-8';

/** A JSON response. */
export function json(status: number, body: unknown, headers?: Record<string, string>): HttpResponse {
  return reply(status, JSON.stringify(body), { 'content-type': jsonContentType, ...headers });
}

export function success(status: number, data: unknown, extras?: EnvelopeExtras): HttpResponse {
  if (status === 204) return reply(204, null);
  return json(status, { success: true, data, ...extras });
}

/** An error envelope with an explicit status and code. */
export function failure(status: number, code: string, error: string, details?: Record<string, unknown>, withCode = true): HttpResponse {
  const body: ErrorBody = { success: false, error };
  if (withCode) body.code = code;
  if (details) body.details = details;
  return json(status, body);
}

/** The envelope and status for a failed operation: its first error decides (see graphql/errors.ts). */
/** Refusal details with each `errors[].path` an argument names as the REST parameter it stands for. */
function renamed(details: Record<string, unknown> | undefined, names: Readonly<Record<string, string>> | undefined): Record<string, unknown> | undefined {
  if (!names || !Array.isArray(details?.errors)) return details;
  return { ...details, errors: (details.errors as { path?: unknown }[]).map((e) => (typeof e.path === 'string' && names[e.path] ? { ...e, path: names[e.path] } : e)) };
}

export function fromGraphQLErrors(errors: readonly GraphQLError[], withCode: boolean, parameterNames?: Readonly<Record<string, string>>): HttpResponse {
  const first = errors[0]!;
  const ext = first.extensions as { code?: string; http?: { status?: number; headers?: Record<string, string> }; details?: Record<string, unknown> };
  const response = failure(ext.http?.status ?? 500, ext.code ?? 'INTERNAL_ERROR', first.message, renamed(ext.details, parameterNames), withCode);
  // Headers an error asks for (a 429's Retry-After, graphql/errors.ts), as yoga sends them on /graphql.
  if (ext.http?.headers) Object.assign(response.headers, ext.http.headers);
  return response;
}
