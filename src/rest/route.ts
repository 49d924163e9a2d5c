// A REST route is a declaration: method and path, the zod schemas of its path, query and body, the
// GraphQL operation it runs, how the request maps to variables, and how the result maps to the
// envelope. The router, the OpenAPI document and the tests all read the same declarations.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call a route, for the documentation (the operation itself enforces it). */
export type RouteAccess = 'public' | 'session' | 'authenticated';

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/** Extra envelope members a route adds beside `data` (`meta`, `message`, `pagination`). */
export interface EnvelopeExtras {
  message?: string;
  meta?: Record<string, unknown>;
  pagination?: Record<string, unknown>;
}

export interface RestRoute<TData = unknown, TVars = unknown, P = unknown, Q = unknown, B = unknown> {
  method: HttpMethod;
  /** OpenAPI-style path: `/api/v1/teams/{teamId}`. */
  path: string;
  summary: string;
  tags: string[];
  access: RouteAccess;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  operation: TypedDocumentNode<TData, TVars>;
  variables: (input: RouteInput<P, Q, B>) => TVars;
  /** The envelope's `data` (undefined sends no body with a 204). */
  data: (result: TData) => unknown;
  extras?: (result: TData) => EnvelopeExtras;
  /**
   * Answer enum and built-in scalar values as the resolvers give them, without GraphQL's serialization
   * (graphql-jit's `disableLeafSerialization`): an entity's select answers its stored `in-progress`, not
   * the enum name `IN_PROGRESS`. Only for operations whose resolvers give values already in REST's form.
   */
  storedValues?: boolean;
  /** Success status; 200 unless stated. */
  status?: number;
  /** Schema of `data`, for the OpenAPI document. */
  response?: z.ZodType;
  /** Contract: media and API key errors carry no `code`. */
  errorCodes?: boolean;
  /**
   * How refused input is reported: `flat` (default) `Invalid <part>: <first problem>` with
   * `details.errors[{path, code, message}]`; `zod` (media contract) exactly `Invalid query parameters`,
   * `Invalid request body` or `Invalid path parameters`, with zod's issues (`{code, path, message, maximum…}`).
   */
  issueFormat?: 'flat' | 'zod';
  /**
   * The `entity:action` scopes the operation's root fields require (key rate limits, documentation):
   * derived by the router at start-up from the fields' `authScopes`, never declared.
   */
  scopes?: readonly string[];
  /**
   * The REST parameter an argument of the operation stands for, where refusals name it (the entity
   * LIST's `cursor` is GraphQL's `after`): `details.errors[].path` says what the client sent.
   */
  parameterNames?: Readonly<Record<string, string>>;
  /** False when configuration turns the route off for these path parameters (its operation answers 405); left out of `Allow`. */
  enabled?: (params: Record<string, string | undefined>) => boolean;
  /** OpenAPI written for the route (entity routes: typed by their definition), used over what the document derives from the zod schemas; `schemas` join `components.schemas`. */
  openapi?: { operationId?: string; summary?: string; description?: string; parameters?: unknown[]; requestBody?: unknown; responses?: Record<string, unknown>; schemas?: Record<string, unknown> };
}

/** Declares a route with its types checked end to end (zod input → variables → typed result). */
export function defineRoute<TData, TVars, P = undefined, Q = undefined, B = undefined>(
  route: Omit<RestRoute<TData, TVars, P, Q, B>, 'scopes'>,
): RestRoute {
  return route as unknown as RestRoute;
}
