// The second kind of route declaration, beside defineRoute: a route whose answer is not a JSON
// envelope of a GraphQL operation (bytes, a stream, a multipart upload, the cron report). It declares
// what the pipeline needs to run it (methods, path, the GraphQL field whose rule it shares, error
// format, body limit, whether it runs in the request pipeline at all) and its OpenAPI operations; its
// handler is made once per app, with the app's configuration and database (a render queue, local
// storage, the queue's dependencies). A route declares no scope of its own: it is another face of a
// field (the upload of `uploadMedia`, a rendition of `media`, the events of `taskEvents`), and the
// pipeline judges the caller by that field's rule with the one evaluator (auth/rules.ts).
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { Rule } from '../auth/rules.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import type { Context } from '../graphql/context.js';
import type { HttpRequest, HttpResponse } from '../http/exchange.js';
import { coordinateRule } from '../graphql/operation-scopes.js';
import type { Services } from '../shared/services.js';

export type HttpRouteMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a route's handler is made with, once per app. */
export interface HttpRouteSetup {
  config: Config;
  /** The platform's schema (a route that takes a field's arguments coerces them with its types). */
  schema: GraphQLSchema;
  database: Database;
  logger: Logger;
  now(): Date;
  /** The services of the app's modules (the queue's handlers for the cron route). */
  services: Services;
  /** Renders running and waiting at once in this process (media renditions). */
  renderLimits?: { concurrent: number; waiting: number };
}

export type RouteParams = Record<string, string | undefined>;

interface HttpRouteCommon {
  methods: readonly HttpRouteMethod[];
  /** `/api/v1/media/{id}/render`; a trailing `*` takes the rest of the path (`params['*']`). */
  path: string;
  /** false: error envelopes without `code` (contract: media). */
  errorCodes?: boolean;
  /** The largest body the route reads; BODY_LIMIT_BYTES unless stated. */
  bodyLimitBytes?: (config: Config) => number;
  /** Its OpenAPI path item (operations by lower-case method), documented at `path`. */
  openApi?: Record<string, unknown>;
}

/**
 * Where a route's network I/O (a storage service, sharp) runs, kept out of its transaction so that no
 * database connection waits on it; the pipeline alone commits (pipeline.ts).
 * - `first`: the handler is the network phase, in which the pipeline refuses statements; it returns
 *   the database phase, run next. What the network phase made outside the database (stored files) is
 *   undone through `db.onRollback` if the request then fails, its commit included.
 * - `last`: the handler is the database phase; it returns the network phase, which the pipeline runs
 *   once it has committed (statements are refused there too: the transaction has ended).
 */
export type NetworkIo = 'first' | 'last';

/** The phase a handler declaring `networkIo` returns, run by the pipeline after it (and, for `last`, after the commit). */
export type NextPhase = () => Promise<HttpResponse>;

interface PipelineHttpRouteCommon extends HttpRouteCommon {
  pipeline: true;
  /**
   * The GraphQL field this route is another face of (`Mutation.uploadMedia`): its rule is required of
   * the caller before the handler runs (401 anonymous, 403 naming the missing scope), and its scopes
   * are what the key's rate limits count. None: the route serves everyone (provider sign-in).
   */
  ruleOf?: string;
}

/** A route in the request pipeline: authenticated, scope-checked, rate limited, in a transaction. */
export interface SinglePhaseHttpRoute extends PipelineHttpRouteCommon {
  networkIo?: undefined;
  start(setup: HttpRouteSetup): (request: HttpRequest, ctx: Context, params: RouteParams) => Promise<HttpResponse>;
}

/** A route in the request pipeline whose network I/O runs in a phase of its own, out of its transaction (see NetworkIo). */
export interface TwoPhaseHttpRoute extends PipelineHttpRouteCommon {
  networkIo: NetworkIo;
  start(setup: HttpRouteSetup): (request: HttpRequest, ctx: Context, params: RouteParams) => Promise<NextPhase>;
}

export type PipelineHttpRoute = SinglePhaseHttpRoute | TwoPhaseHttpRoute;

/** A route outside the pipeline: no user is authenticated (the cron secret, a stored file's URL). */
export interface BareHttpRoute extends HttpRouteCommon {
  pipeline: false;
  start(setup: HttpRouteSetup): (request: HttpRequest, params: RouteParams) => Promise<HttpResponse>;
}

export type HttpRoute = PipelineHttpRoute | BareHttpRoute;

/** Declares an HTTP route (frozen: a declaration does not change after start-up). */
export function defineHttpRoute(route: PipelineHttpRoute): PipelineHttpRoute;
export function defineHttpRoute(route: BareHttpRoute): BareHttpRoute;
export function defineHttpRoute(route: HttpRoute): HttpRoute {
  Object.freeze(route.methods);
  return Object.freeze(route);
}

/** A route with its handler made for one app. */
export type StartedHttpRoute =
  | { pipeline: true; route: PipelineHttpRoute; handle: ReturnType<PipelineHttpRoute['start']>; rule: Rule | null }
  | { pipeline: false; route: BareHttpRoute; handle: ReturnType<BareHttpRoute['start']> };

export interface HttpMatch {
  started: StartedHttpRoute;
  params: RouteParams;
}

export interface HttpRouter {
  /** The route for a request, the methods its path takes when only the method differs, or null. */
  match(method: string, pathname: string): HttpMatch | { allow: string[]; errorCodes: boolean } | null;
}

const toRouterPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** Starts every route for one app and matches requests to them. */
export function createHttpRouter(routes: readonly HttpRoute[], setup: HttpRouteSetup): HttpRouter {
  const router = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: true, caseSensitive: true });
  const methods = new Set<HttpRouteMethod>();
  for (const route of routes) {
    const rule = route.pipeline && route.ruleOf ? coordinateRule(setup.schema, route.ruleOf) : null;
    const started = { pipeline: route.pipeline, route, handle: route.start(setup), rule } as StartedHttpRoute;
    for (const method of route.methods) {
      methods.add(method);
      router.on(method, toRouterPath(route.path), () => {}, { started });
    }
  }
  return {
    match(method, pathname) {
      const found = router.find(method as 'GET', pathname);
      if (found) return { started: (found.store as { started: StartedHttpRoute }).started, params: found.params };
      const allow = [...methods].filter((m) => router.find(m, pathname));
      if (allow.length === 0) return null;
      const { started } = router.find(allow[0]!, pathname)!.store as { started: StartedHttpRoute };
      return { allow, errorCodes: started.route.errorCodes !== false };
    },
  };
}
