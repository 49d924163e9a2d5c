// createApp(deps) → the app's request handler and its node:http listener. The app answers health,
// readiness, metrics, the docs and /graphql itself; /api and /uploads belong to the router (both
// declaration kinds, from the module list: src/module-list.ts). Every route acting for a caller runs
// the one pipeline (pipeline/pipeline.ts): authenticate → rate limit → transaction → handler → headers.
// GraphQL over WebSocket (pipeline/websocket.ts) runs each operation as a request of that pipeline too.
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import type { Database } from './db/database.js';
import { createGraphQLEndpoint } from './graphql/endpoint.js';
import { isMultipartRequest } from './graphql/multipart.js';
import { reply, type HttpRequest, type HttpResponse } from './http/exchange.js';
import { preflight } from './http/headers.js';
import { nodeHandler } from './http/node.js';
import { composition, modules as defaultModules } from './module-list.js';
import { compose, createModuleRuntime } from './modules/composition.js';
import type { RenderLimits } from './modules/media/render.js';
import { uploadRequestLimit } from './modules/media/upload.js';
import type { ModuleDescription } from './modules/module-description.js';
import { createAppServices } from './pipeline/app-services.js';
import { consoleResponse } from './pipeline/console.js';
import { landingPage } from './pipeline/landing.js';
import { createMetrics, metricsAllowed } from './pipeline/metrics.js';
import { createPipeline } from './pipeline/pipeline.js';
import { respondingWith, type Handled } from './pipeline/respond.js';
import { createApiRouter, httpRouteTraits } from './pipeline/routing.js';
import { createWebSocketGateway, type WebSocketGateway } from './pipeline/websocket.js';
import { failure, json } from './rest/envelope.js';
import { createHttpRouter, type HttpRoute } from './rest/http-route.js';
import { buildOpenApi, docsResponse } from './rest/openapi.js';
import { assertPlainQuery } from './rest/query-params.js';
import type { RestRoute } from './rest/route.js';
import { createRestRouter, withScopes } from './rest/router.js';
import type { Services } from './shared/services.js';

export interface AppDeps {
  config: Config;
  database: Database;
  logger: Logger;
  now?: () => Date;
  /** Renders running and waiting at once in this process (render.ts); default 2 and 16. */
  renderLimits?: RenderLimits;
  /**
   * The modules whose schema, routes, services and workers the app has, in order (default: the
   * platform's list with the app's own, src/module-list.ts). A subset has only theirs: its scope
   * resources, usage counters and action types too (composition.ts).
   */
  modules?: readonly ModuleDescription[];
}

export interface App {
  /** The services of the app's modules (and what its list declares: action handlers, scope resources, usage counters). */
  services: Services;
  /** Answers one request; never rejects (unexpected errors become a 500 envelope). */
  handle(request: HttpRequest): Promise<HttpResponse>;
  /** `handle` as a node:http request listener. */
  listener: RequestListener;
  /** node:http's `upgrade` listener: GraphQL over WebSocket (graphql-ws) on /graphql, in the same pipeline. */
  upgrade: WebSocketGateway['upgrade'];
  /**
   * Ends the long-lived connections: WebSockets (1001) and open subscriptions (SSE streams end with
   * END RESTARTING; clients reconnect elsewhere with Last-Event-ID). node:http's server.close() waits
   * for them, so this goes first.
   */
  closeStreams(): Promise<void>;
  /** /healthz answers 200 once this is called (after migrations); the modules' workers start then (the orphan sweep; the built-in scheduler with CRON_INTERVAL_SECONDS). */
  markReady(): void;
  /** Stops the modules' workers (waiting for their work), writes pending key usage, closes Redis connections and the modules' services (the database stays open). */
  close(): Promise<void>;
}

/**
 * The OpenAPI document the app serves at /api/v1/openapi.json: its REST routes (with the scopes their
 * operations derive: the router's routes, or `withScopes`) and what the HTTP routes document by hand.
 * `npm run generate` and `npm run lint:openapi` take it from here (scripts/served-openapi.ts).
 */
export function openApiDocument(routes: readonly RestRoute[], httpRoutes: readonly HttpRoute[]): Record<string, unknown> {
  return buildOpenApi(routes, Object.fromEntries(httpRoutes.flatMap((r) => (r.openApi ? [[r.path, r.openApi]] : []))));
}

/** The document of the platform's composition (module-list.ts), made without booting the app. */
export function composedOpenApiDocument(): Record<string, unknown> {
  return openApiDocument(withScopes(composition.schema, composition.routes), composition.httpRoutes);
}

export function createApp({ config, database, logger, now = () => new Date(), renderLimits, modules }: AppDeps): App {
  const list = modules ?? defaultModules;
  const { schema, routes, httpRoutes } = modules ? compose(modules) : composition;
  const graphql = createGraphQLEndpoint(schema, {
    bodyLimitBytes: config.bodyLimitBytes,
    multipart: { bodyLimitBytes: uploadRequestLimit(config.media), maxFiles: config.media.maxFiles, idleMs: config.uploadIdleTimeoutMs },
    server: { graphiql: config.graphiql, introspection: config.graphqlIntrospection, limits: config.graphqlLimits, log: logger },
  });
  const runtime = createModuleRuntime(list, { config, database, logger, now });
  const services = createAppServices(config, database, logger, now, runtime.services);
  const pipeline = createPipeline(services);
  const sockets = createWebSocketGateway({ schema, config, logger, pipeline, graphql });
  const rest = createRestRouter(schema, routes, config.bodyLimitBytes);
  const router = createApiRouter(rest, createHttpRouter(httpRoutes, { config, schema, database, logger, now, services: runtime.services, renderLimits }));
  const metrics = config.metricsEnabled ? createMetrics(database.poolStats) : null;
  let openApi: string | undefined;
  let ready = false;

  /** /api and /uploads: a declaration of either kind, in the pipeline unless it says otherwise. */
  async function routed(request: HttpRequest, requestId: string): Promise<Handled | null> {
    const found = router.match(request.method, request.url.pathname);
    if (!found) return null;
    if (found.kind === 'refused') return found;
    if (found.kind === 'rest') {
      const { match } = found;
      return { response: await pipeline(request, requestId, match.route, (ctx) => rest.handle(match, request, ctx)), route: found.route };
    }
    const { started, params } = found.match;
    if (!started.pipeline) return { response: await started.handle(request, params), route: found.route };
    return { response: await pipeline(request, requestId, httpRouteTraits(started, config), (ctx) => started.handle(request, ctx, params)), route: found.route };
  }

  async function dispatch(request: HttpRequest, requestId: string): Promise<Handled> {
    const { method, url: { pathname } } = request;
    if (method === 'OPTIONS') return { response: preflight(), route: 'preflight' };
    // A parameter given twice, or holding NUL, is refused before any route reads the query (query-params.ts).
    if (pathname.startsWith('/api/')) assertPlainQuery(request.url);
    if (pathname === '/' && (method === 'GET' || method === 'HEAD')) return { response: landingPage({ graphiql: config.graphiql, console: config.console }), route: '/' };
    if (config.console && (pathname === '/console' || pathname.startsWith('/console/')) && (method === 'GET' || method === 'HEAD')) {
      return { response: await consoleResponse(pathname, request.header('accept-encoding')), route: '/console' };
    }
    if (pathname === '/healthz' && method === 'GET') {
      return { response: ready ? json(200, { status: 'ok' }) : json(503, { status: 'starting' }), route: '/healthz' };
    }
    // Readiness (readiness.ts): the database and Redis answer now; /healthz above is liveness.
    if (pathname === '/readyz' && method === 'GET') {
      return { response: ready ? await services.readiness() : json(503, { status: 'starting', checks: {} }), route: '/readyz' };
    }
    if (pathname === '/metrics' && method === 'GET' && metrics) {
      if (!metricsAllowed(config.metricsToken, request.header('authorization'))) {
        return { response: json(401, { success: false, error: 'The metrics need the bearer token METRICS_TOKEN', code: 'UNAUTHENTICATED' }, { 'www-authenticate': 'Bearer realm="metrics"' }), route: '/metrics' };
      }
      const { contentType, body } = await metrics.render();
      return { response: reply(200, body, { 'content-type': contentType }), route: '/metrics' };
    }
    if (pathname === '/api/v1/openapi.json' && method === 'GET') {
      openApi ??= JSON.stringify(openApiDocument(rest.routes, httpRoutes));
      return { response: reply(200, openApi, { 'content-type': 'application/json' }), route: pathname };
    }
    if (pathname.startsWith('/api/v1/docs') && method === 'GET') {
      const docs = await docsResponse(pathname);
      if (docs) return { response: docs, route: '/api/v1/docs' };
    }
    if (pathname === '/graphql') {
      // A multipart request carries files (uploadMedia): the upload limit applies.
      const traits = isMultipartRequest(request) ? { bodyLimitBytes: uploadRequestLimit(config.media) } : {};
      return { response: await pipeline(request, requestId, traits, (ctx) => graphql(request, ctx)), route: '/graphql' };
    }
    return (await routed(request, requestId)) ?? { response: failure(404, 'NOT_FOUND', `No route for ${method} ${pathname}`), route: 'unmatched' };
  }

  const handle = respondingWith(dispatch, config, logger, metrics);
  return {
    services: runtime.services,
    handle,
    listener: nodeHandler(handle, { trustProxy: config.trustProxy }),
    upgrade: sockets.upgrade,
    closeStreams: async () => {
      // Sockets first: a subscription the hub ended would let its client close the socket itself (1000, not 1001).
      await sockets.close();
      await services.realtime.close();
    },
    markReady() {
      ready = true;
      runtime.startWorkers();
    },
    async close() {
      // Workers first (a batch in progress may still use the services), the modules' services last.
      await runtime.stopWorkers();
      await services.close();
      await runtime.close();
    },
  };
}
