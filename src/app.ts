// createApp(deps) → one fetch handler: health, metrics, docs, /graphql and the REST routes, each request
// with its caller, its RLS transaction (committed or rolled back when the request ends), its request id,
// security headers and a log line. Tests call app.fetch(new Request(…)) directly.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { authenticate } from './auth/authenticate.js';
import type { Config } from './config/env.js';
import type { Database } from './db/database.js';
import { RequestDb, runAsUser, systemDb } from './db/request-db.js';
import type { Context } from './graphql/context.js';
import { schema } from './graphql/schema.js';
import { createGraphQLServer } from './graphql/yoga.js';
import { isCrossSiteForgery } from './http/csrf.js';
import { decorate, preflight } from './http/headers.js';
import { createMetrics } from './http/metrics.js';
import { readLimitedText } from './rest/body.js';
import { failure, json } from './rest/envelope.js';
import { buildOpenApi, docsResponse } from './rest/openapi.js';
import { createRestRouter } from './rest/router.js';
import { restRoutes } from './rest/routes.js';
import { AppError } from './shared/errors.js';
import type { ClientInfo } from './shared/request-scope.js';

export interface AppDeps {
  config: Config;
  database: Database;
  logger: Logger;
  now?: () => Date;
}

export interface ServerContext {
  req?: IncomingMessage;
}

export interface App {
  fetch(request: Request, server?: ServerContext): Promise<Response>;
  /** /healthz answers 200 once this is called (after migrations). */
  markReady(): void;
}

interface Handled {
  response: Response;
  route: string;
}

const requestIdPattern = /^[A-Za-z0-9._-]{8,128}$/;

export function createApp({ config, database, logger, now = () => new Date() }: AppDeps): App {
  const yoga = createGraphQLServer(schema);
  const rest = createRestRouter(schema, restRoutes, config.bodyLimitBytes);
  const metrics = config.metricsEnabled ? createMetrics(database.poolStats) : null;
  let openApi: string | undefined;
  let ready = false;

  function clientOf(request: Request, url: URL, server: ServerContext | undefined): ClientInfo {
    const forwarded = config.trustProxy ? request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() : undefined;
    const proto = config.trustProxy ? request.headers.get('x-forwarded-proto') : null;
    return {
      ip: forwarded || server?.req?.socket.remoteAddress || null,
      userAgent: request.headers.get('user-agent'),
      secure: url.protocol === 'https:' || proto === 'https',
    };
  }

  /** Runs `handle` with the request's context and ends its transaction with the request. */
  async function withContext(request: Request, url: URL, server: ServerContext | undefined, requestId: string, handle: (ctx: Context) => Promise<Response>): Promise<Response> {
    if (Number(request.headers.get('content-length') ?? 0) > config.bodyLimitBytes) {
      return failure(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${config.bodyLimitBytes} bytes`);
    }
    if (isCrossSiteForgery(request, url, config)) return failure(403, 'CSRF_REJECTED', 'Cross-site request refused');
    const actor = await authenticate(systemDb(database, 'authenticate'), request);
    const ctx: Context = {
      actor,
      db: new RequestDb(database.prisma, actor.kind === 'user' ? actor.userId : null),
      system: (purpose) => systemDb(database, purpose),
      runAs: (userId, work) => runAsUser(database.prisma, userId, work),
      config,
      client: clientOf(request, url, server),
      now,
      requestId,
      log: logger.child({ requestId }),
      setCookies: [],
      failed: false,
    };
    let response: Response;
    try {
      response = await handle(ctx);
    } catch (error) {
      ctx.failed = true;
      throw error;
    } finally {
      await ctx.db.finish(!ctx.failed).catch((error: unknown) => {
        if (ctx.failed) return; // already answering with an error; the rollback's own failure adds nothing
        throw error;
      });
    }
    for (const cookie of ctx.setCookies) response.headers.append('set-cookie', cookie);
    return response;
  }

  async function graphql(request: Request, ctx: Context): Promise<Response> {
    // Bodies without a declared length are read here, bounded, before yoga parses them.
    const bounded = request.method === 'POST' && !request.headers.has('content-length')
      ? new Request(request.url, { method: 'POST', headers: request.headers, body: await readLimitedText(request, config.bodyLimitBytes) })
      : request;
    return yoga.fetch(bounded, { platform: ctx });
  }

  async function dispatch(request: Request, url: URL, server: ServerContext | undefined, requestId: string): Promise<Handled> {
    const { pathname } = url;
    const method = request.method;
    if (method === 'OPTIONS') return { response: preflight(), route: 'preflight' };
    if (pathname === '/healthz' && method === 'GET') {
      return { response: ready ? json(200, { status: 'ok' }) : json(503, { status: 'starting' }), route: '/healthz' };
    }
    if (pathname === '/metrics' && method === 'GET' && metrics) {
      const { contentType, body } = await metrics.render();
      return { response: new Response(body, { headers: { 'content-type': contentType } }), route: '/metrics' };
    }
    if (pathname === '/api/v1/openapi.json' && method === 'GET') {
      openApi ??= JSON.stringify(buildOpenApi(restRoutes));
      return { response: new Response(openApi, { headers: { 'content-type': 'application/json' } }), route: pathname };
    }
    if (pathname.startsWith('/api/v1/docs') && method === 'GET') {
      const docs = await docsResponse(pathname);
      if (docs) return { response: docs, route: '/api/v1/docs' };
    }
    if (pathname === '/graphql') {
      return { response: await withContext(request, url, server, requestId, (ctx) => graphql(request, ctx)), route: '/graphql' };
    }
    if (pathname.startsWith('/api/')) {
      const match = rest.match(method, pathname);
      if (match === 'method-not-allowed') return { response: failure(405, 'METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${pathname}`), route: 'unmatched' };
      if (match) {
        const response = await withContext(request, url, server, requestId, (ctx) => rest.handle(match, request, url, ctx));
        return { response, route: match.route.path };
      }
    }
    return { response: failure(404, 'NOT_FOUND', `No route for ${method} ${pathname}`), route: 'unmatched' };
  }

  return {
    markReady: () => void (ready = true),
    async fetch(request, server) {
      const started = performance.now();
      const incomingId = request.headers.get('x-request-id');
      const requestId = incomingId && requestIdPattern.test(incomingId) ? incomingId : randomUUID();
      const url = new URL(request.url);
      let handled: Handled;
      try {
        handled = await dispatch(request, url, server, requestId);
      } catch (error) {
        if (error instanceof AppError) {
          handled = { response: failure(error.status, error.code, error.message, error.details), route: 'error' };
        } else {
          logger.error({ requestId, err: error }, 'unexpected error');
          handled = { response: failure(500, 'INTERNAL_ERROR', 'Internal server error'), route: 'error' };
        }
      }
      const { response, route } = handled;
      decorate(response, request, config, requestId, url.origin);
      const seconds = (performance.now() - started) / 1000;
      metrics?.observe(request.method, route, response.status, seconds);
      if (logger.isLevelEnabled('info')) {
        logger.info({ requestId, method: request.method, route, status: response.status, ms: Math.round(seconds * 10_000) / 10 }, 'request');
      }
      return response;
    },
  };
}
