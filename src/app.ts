// createApp(deps) → the app's request handler and its node:http listener: health, metrics, docs,
// /graphql and the REST routes, each request with its caller, its RLS transaction (committed or
// rolled back when the request ends), its request id, security headers and a log line.
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { createApiKeyAuth, evictingAfterCommit, type KeyGrant } from './auth/api-key-strategy.js';
import { authenticate } from './auth/authenticate.js';
import { createSignInThrottle } from './auth/sign-in-throttle.js';
import type { Actor } from './auth/actor.js';
import { createKeyUsage } from './auth/key-usage.js';
import type { Config } from './config/env.js';
import type { Database } from './db/database.js';
import { databaseRefusal } from './db/errors.js';
import { RequestDb, runAsUser, systemDb } from './db/request-db.js';
import { databaseRetryAfterSeconds, databaseUnavailable, isDatabaseUnavailable, reportDatabaseOutage } from './db/unavailable.js';
import type { Context } from './graphql/context.js';
import { createGraphQLEndpoint } from './graphql/endpoint.js';
import { isMultipartRequest } from './graphql/multipart.js';
import { schema } from './graphql/schema.js';
import { isCrossSiteForgery } from './http/csrf.js';
import { reply, appendHeader, type HttpRequest, type HttpResponse } from './http/exchange.js';
import { decorate, preflight } from './http/headers.js';
import { landingPage } from './http/landing.js';
import { createMetrics } from './http/metrics.js';
import { createReadiness } from './http/readiness.js';
import { createRateLimiter, rateLimited, rateLimitHeaders, type RateDecision } from './http/rate-limit.js';
import { nodeHandler } from './http/node.js';
import { failure, json } from './rest/envelope.js';
import { assertPlainQuery } from './rest/query-params.js';
import { buildOpenApi, docsResponse } from './rest/openapi.js';
import { createRestRouter, methodNotAllowed } from './rest/router.js';
import { restRoutes } from './rest/routes.js';
import { createMailer } from './mail/outbox.js';
import { planOf, plansOf } from './modules/teams/plans.js';
import { isStoredFilePath, serveStoredFile } from './modules/media/served-file.js';
import { mediaOpenApiPaths } from './modules/media/openapi.js';
import { createStorage, localStorage } from './modules/media/storage.js';
import { startSweeper, type Sweeper } from './modules/media/sweep.js';
import { uploadRequestLimit } from './modules/media/upload.js';
import { handleUpload } from './modules/media/upload-route.js';
import { createRenditions, renditionMediaId, type RenderLimits } from './modules/media/render.js';
import { cronDisabledReason, cronOpenApiPaths, cronPath, handleCronProcess } from './modules/scheduled-actions/cron-route.js';
import { processBatch, type QueueDeps } from './modules/scheduled-actions/processor.js';
import { startScheduler, type Scheduler } from './modules/scheduled-actions/scheduler.js';
import { createBroadcast } from './shared/broadcast.js';
import { AppError } from './shared/errors.js';
import type { ClientInfo, Credentials } from './shared/request-scope.js';
import { closeRedis, createRedis } from './shared/redis-connection.js';

export interface AppDeps {
  config: Config;
  database: Database;
  logger: Logger;
  now?: () => Date;
  /** Renders running and waiting at once in this process (render.ts); default 2 and 16. */
  renderLimits?: RenderLimits;
}

export interface App {
  /** Answers one request; never rejects (unexpected errors become a 500 envelope). */
  handle(request: HttpRequest): Promise<HttpResponse>;
  /** `handle` as a node:http request listener. */
  listener: RequestListener;
  /** /healthz answers 200 once this is called (after migrations); the built-in scheduler (CRON_INTERVAL_SECONDS) starts then. */
  markReady(): void;
  /** Stops the built-in scheduler (waiting for its batch), writes pending key usage and closes Redis connections (the database stays open). */
  close(): Promise<void>;
}

interface Handled {
  response: HttpResponse;
  route: string;
}

const requestIdPattern = /^[A-Za-z0-9._-]{8,128}$/;

export function createApp({ config, database, logger, now = () => new Date(), renderLimits }: AppDeps): App {
  const graphql = createGraphQLEndpoint(schema, {
    bodyLimitBytes: config.bodyLimitBytes,
    multipart: { bodyLimitBytes: uploadRequestLimit(config.media), maxFiles: config.media.maxFiles, idleMs: config.uploadIdleTimeoutMs },
    server: { graphiql: config.graphiql, introspection: config.graphqlIntrospection, limits: config.graphqlLimits, log: logger },
  });
  const rest = createRestRouter(schema, restRoutes, config.bodyLimitBytes);
  const metrics = config.metricsEnabled ? createMetrics(database.poolStats) : null;
  let openApi: string | undefined;
  let ready = false;
  // Bounded waits, no offline queue, state changes logged once (redis-connection.ts).
  const redis = config.redisUrl ? createRedis(config.redisUrl, logger) : null;
  const broadcast = createBroadcast(redis, logger);
  const readiness = createReadiness({ database, redis });
  const system = systemDb(database, 'api keys');
  const usage = createKeyUsage(system, config.apiKeys.usageFlushMs, logger, now);
  const keys = createApiKeyAuth({ system, broadcast, logger, now, cacheTtlMs: config.apiKeys.cacheTtlMs, failureDelayMs: config.apiKeys.failureDelayMs });
  const limiter = config.rateLimit.enabled ? createRateLimiter(redis) : null;
  const signIns = createSignInThrottle(redis, config.signInThrottle);
  const mail = createMailer(config.mail, logger);
  const plans = plansOf(config); // parsed (and validated) once, here at start-up
  const credentials: Credentials = { forgetKey: keys.forgetKey, forgetUser: keys.forgetUser, pendingUsage: usage.pending };
  const mediaStorage = createStorage(config.media, logger);
  // /uploads/temp serves local files only, whatever the driver (hosted-blob's fallback files are local).
  const localFiles = localStorage(config.media.uploadDir);
  const uploadTraits: RouteTraits = { scope: 'media:write', errorCodes: false, bodyLimitBytes: uploadRequestLimit(config.media) };
  const renditions = createRenditions(renderLimits);
  // Scheduled actions: batches run as named system work, from the cron route or the built-in scheduler.
  const queue: QueueDeps = {
    system: systemDb(database, 'scheduled actions: processing'),
    // Actions created through the API run as their creator (creator.ts).
    runAs: (userId, work) => runAsUser(database, userId, work),
    config,
    now,
    log: logger.child({ module: 'scheduled-actions' }),
  };
  let scheduler: Scheduler | null = null;
  // Stored files a crash left without a record, and spool files: at start-up, then periodically (sweep.ts).
  let sweeper: Sweeper | null = null;
  const cronDisabled = cronDisabledReason(config.scheduledActions.cronSecret);
  if (cronDisabled) logger.warn(`${cronDisabled}: cron is disabled, GET /api/v1/cron/process answers 401`);
  if (config.env === 'production' && config.webhooks.allowPrivate) logger.warn('WEBHOOKS_ALLOW_PRIVATE is true: webhook endpoints may reach private, loopback and metadata addresses');
  if (config.env === 'production' && !config.webhooks.secretKey) logger.warn('WEBHOOKS_SECRET_KEY is not set: webhook signing secrets are stored unsealed');

  /**
   * The per-minute limit for this request: a key gets its route's scope limit when one is configured,
   * else the wildcard limit when it holds `*`, else the tier of its owner's active team's plan; a
   * session gets the session limit; anonymous callers are not limited here.
   */
  function limitFor(actor: Actor, grant: KeyGrant | null, scope: string | undefined): { caller: string; limit: number } | null {
    const rates = config.rateLimit;
    if (grant) {
      const scoped = scope === undefined ? undefined : rates.scopes[scope];
      if (scoped !== undefined) return { caller: `key:${grant.keyId}:${scope}`, limit: scoped };
      if (grant.holdsWildcard) return { caller: `key:${grant.keyId}:*`, limit: rates.wildcard };
      const activeTeamId = actor.kind === 'user' ? actor.activeTeamId : null;
      const plan = (activeTeamId && grant.plans[activeTeamId]) || 'free';
      const tier = planOf(plans, plan)?.rateLimitTier ?? plan;
      return { caller: `key:${grant.keyId}:tier`, limit: rates.tiers[tier] ?? rates.tiers.free ?? 60 };
    }
    if (actor.kind === 'user') return { caller: `user:${actor.userId}`, limit: rates.session };
    return null;
  }

  function clientOf(request: HttpRequest): ClientInfo {
    // The last X-Forwarded-For entry is the one our proxy added; those before it are the client's to choose.
    const forwarded = config.trustProxy ? request.header('x-forwarded-for')?.split(',').at(-1)?.trim() : undefined;
    return {
      ip: forwarded || request.remoteAddress,
      // Stored with sessions and audit records: bounded once, here.
      userAgent: request.header('user-agent')?.slice(0, 500) ?? null,
      secure: request.url.protocol === 'https:',
    };
  }

  interface RouteTraits {
    scope?: string;
    /** false: error envelopes without `code` (contract: media and API-key routes). */
    errorCodes?: boolean;
    /** Largest body the route reads (uploads); BODY_LIMIT_BYTES unless stated. */
    bodyLimitBytes?: number;
  }

  /** Runs `handle` with the request's context; authentication and rate-limit answers follow the route's traits. */
  async function withContext(request: HttpRequest, requestId: string, traits: RouteTraits, handle: (ctx: Context) => Promise<HttpResponse>): Promise<HttpResponse> {
    try {
      return await runWithContext(request, requestId, traits, handle);
    } catch (error) {
      if (traits.errorCodes !== false) throw error;
      if (error instanceof AppError) return failure(error.status, error.code, error.message, error.details, false);
      if (!isDatabaseUnavailable(error)) throw error;
      reportDatabaseOutage(logger, error);
      const unavailable = databaseUnavailable();
      return failure(unavailable.status, unavailable.code, unavailable.message, unavailable.details, false);
    }
  }

  /** Authenticates, applies the rate limit, runs `handle` with the request's context and ends its transaction. */
  async function runWithContext(request: HttpRequest, requestId: string, traits: RouteTraits, handle: (ctx: Context) => Promise<HttpResponse>): Promise<HttpResponse> {
    const { scope, bodyLimitBytes = config.bodyLimitBytes } = traits;
    if (Number(request.header('content-length') ?? 0) > bodyLimitBytes) {
      return failure(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${bodyLimitBytes} bytes`, undefined, traits.errorCodes !== false);
    }
    if (isCrossSiteForgery(request, config)) return failure(403, 'CSRF_REJECTED', 'Cross-site request refused');
    const client = clientOf(request);
    const { actor, grant } = await authenticate(systemDb(database, 'authenticate'), keys, request, { ipAddress: client.ip, userAgent: client.userAgent });
    let decision: RateDecision | null = null;
    const rule = limiter && limitFor(actor, grant, scope);
    if (limiter && rule) {
      decision = await limiter.consume(rule.caller, rule.limit);
      if (!decision.allowed) {
        if (grant) keys.audit({ keyId: grant.keyId, action: 'rate_limited', reason: `${rule.limit}/min`, ipAddress: client.ip, userAgent: client.userAgent });
        return rateLimited(decision);
      }
    }
    let failed = false;
    let log: Logger | undefined;
    const ctx: Context = {
      actor,
      // Work after a commit (files a deletion orphaned) cannot fail the request: its failure is logged.
      db: new RequestDb(database, actor.kind === 'user' ? actor.userId : null, (error) => ctx.log.error({ err: error }, 'work after commit failed')),
      system: (purpose) => systemDb(database, purpose),
      runAs: (userId, work) => runAsUser(database, userId, work),
      config,
      // Evictions of cached keys wait for this request's commit (api-key-strategy.ts).
      credentials: evictingAfterCommit(credentials, { afterCommit: (work) => ctx.db.afterCommit(work) }),
      mail,
      mediaStorage,
      client,
      now,
      requestId,
      // Made on first use: most requests never log from inside an operation.
      get log() {
        return (log ??= logger.child({ requestId }));
      },
      setCookies: [],
      signIns,
      // A keyed GraphQL operation takes rate-limit points by its cost (limits.ts), beyond the one taken above.
      chargeCost: limiter && rule && grant ? async (cost) => {
        const points = Math.max(1, Math.ceil(cost / config.graphqlLimits.costPerRatePoint));
        if (points === 1) return null;
        decision = await limiter.consume(rule.caller, rule.limit, points - 1);
        if (decision.allowed) return null;
        keys.audit({ keyId: grant.keyId, action: 'rate_limited', reason: `${rule.limit}/min`, ipAddress: client.ip, userAgent: client.userAgent });
        return { retryAfter: decision.resetSeconds };
      } : undefined,
      fail: () => void (failed = true),
    };
    let response: HttpResponse;
    try {
      response = await handle(ctx);
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      await ctx.db.finish(!failed).catch((error: unknown) => {
        if (failed) return; // already answering with an error; the rollback's own failure adds nothing
        throw error;
      });
    }
    for (const cookie of ctx.setCookies) appendHeader(response, 'set-cookie', cookie);
    if (decision && grant) Object.assign(response.headers, rateLimitHeaders(decision));
    // "lastUsedAt: updated on successful use": refused calls (401, 403, 429…) are not uses.
    if (grant && response.status < 400) usage.record(grant.keyId, now());
    return response;
  }

  async function dispatch(request: HttpRequest, requestId: string): Promise<Handled> {
    const { method, url: { pathname } } = request;
    if (method === 'OPTIONS') return { response: preflight(), route: 'preflight' };
    // A parameter given twice, or holding NUL, is refused before any route reads the query (query-params.ts).
    if (pathname.startsWith('/api/')) assertPlainQuery(request.url);
    if (pathname === '/' && (method === 'GET' || method === 'HEAD')) return { response: landingPage({ graphiql: config.graphiql }), route: '/' };
    if (pathname === '/healthz' && method === 'GET') {
      return { response: ready ? json(200, { status: 'ok' }) : json(503, { status: 'starting' }), route: '/healthz' };
    }
    // Readiness (readiness.ts): the database and Redis answer now; /healthz above is liveness.
    if (pathname === '/readyz' && method === 'GET') {
      return { response: ready ? await readiness() : json(503, { status: 'starting', checks: {} }), route: '/readyz' };
    }
    if (pathname === '/metrics' && method === 'GET' && metrics) {
      const { contentType, body } = await metrics.render();
      return { response: reply(200, body, { 'content-type': contentType }), route: '/metrics' };
    }
    if (pathname === '/api/v1/openapi.json' && method === 'GET') {
      openApi ??= JSON.stringify(buildOpenApi(restRoutes, { ...mediaOpenApiPaths, ...cronOpenApiPaths }));
      return { response: reply(200, openApi, { 'content-type': 'application/json' }), route: pathname };
    }
    if (pathname.startsWith('/api/v1/docs') && method === 'GET') {
      const docs = await docsResponse(pathname);
      if (docs) return { response: docs, route: '/api/v1/docs' };
    }
    if (pathname === cronPath && method === 'GET') {
      return { response: await handleCronProcess(request, config.scheduledActions.cronSecret, () => processBatch(queue), queue.log), route: cronPath };
    }
    if (pathname === '/graphql') {
      // A multipart request carries files (uploadMedia): the upload limit applies.
      if (isMultipartRequest(request)) {
        const response = await withContext(request, requestId, { bodyLimitBytes: uploadRequestLimit(config.media) }, (ctx) => graphql(request, ctx));
        return { response, route: '/graphql' };
      }
      return { response: await withContext(request, requestId, {}, (ctx) => graphql(request, ctx)), route: '/graphql' };
    }
    if (isStoredFilePath(pathname) && (method === 'GET' || method === 'HEAD')) {
      return { response: await serveStoredFile(request, localFiles, systemDb(database, 'serve uploaded files')), route: '/uploads/temp/{key}' };
    }
    // Multipart and streamed to storage: the one media route that is not a JSON declaration.
    if (pathname === '/api/v1/media/upload' && method === 'POST') {
      const response = await withContext(request, requestId, uploadTraits, (ctx) => handleUpload(request, ctx));
      return { response, route: pathname };
    }
    // Resized images: bytes, not an envelope, cached on storage (render.ts).
    const renderedId = renditionMediaId(pathname);
    if (renderedId !== null) {
      if (method !== 'GET' && method !== 'HEAD') return { response: methodNotAllowed(method, pathname, ['GET', 'HEAD'], false), route: 'unmatched' };
      const response = await withContext(request, requestId, { scope: 'media:read', errorCodes: false }, (ctx) => renditions.handle(request, ctx, renderedId));
      return { response, route: '/api/v1/media/{id}/render' };
    }
    if (pathname.startsWith('/api/')) {
      const match = rest.match(method, pathname);
      if (match && 'allow' in match) return { response: methodNotAllowed(method, pathname, match.allow), route: 'unmatched' };
      if (match) {
        const response = await withContext(request, requestId, match.route, (ctx) => rest.handle(match, request, ctx));
        return { response, route: match.route.path };
      }
    }
    return { response: failure(404, 'NOT_FOUND', `No route for ${method} ${pathname}`), route: 'unmatched' };
  }

  async function handle(request: HttpRequest): Promise<HttpResponse> {
    const started = performance.now();
    const incomingId = request.header('x-request-id');
    const requestId = incomingId && requestIdPattern.test(incomingId) ? incomingId : randomUUID();
    let handled: Handled;
    try {
      handled = await dispatch(request, requestId);
    } catch (thrown) {
      // A value the database cannot hold, a record already gone: the request's fault (db/errors.ts).
      const error = databaseRefusal(thrown) ?? thrown;
      if (error instanceof AppError) {
        handled = { response: failure(error.status, error.code, error.message, error.details), route: 'error' };
      } else if (isDatabaseUnavailable(error)) {
        reportDatabaseOutage(logger, error);
        const unavailable = databaseUnavailable();
        handled = { response: failure(unavailable.status, unavailable.code, unavailable.message, unavailable.details), route: 'error' };
      } else {
        logger.error({ requestId, err: error }, 'unexpected error');
        handled = { response: failure(500, 'INTERNAL_ERROR', 'Internal server error'), route: 'error' };
      }
    }
    // A 503 (database unreachable, starting, busy) always says when to come back.
    if (handled.response.status === 503 && handled.response.headers['retry-after'] === undefined) handled.response.headers['retry-after'] = String(databaseRetryAfterSeconds);
    const { response, route } = handled;
    decorate(response, request, config, requestId, request.url.origin);
    const seconds = (performance.now() - started) / 1000;
    metrics?.observe(request.method, route, response.status, seconds);
    if (logger.isLevelEnabled('info')) {
      logger.info({ requestId, method: request.method, route, status: response.status, ms: Math.round(seconds * 10_000) / 10 }, 'request');
    }
    return response;
  }

  return {
    handle,
    listener: nodeHandler(handle, { trustProxy: config.trustProxy }),
    markReady() {
      ready = true;
      const every = config.scheduledActions.intervalMs;
      if (every && !scheduler) scheduler = startScheduler(every, () => processBatch(queue), queue.log);
      sweeper ??= startSweeper(
        { storage: mediaStorage, system: systemDb(database, 'media: orphan sweep'), uploadDir: config.media.uploadDir, now, log: logger.child({ module: 'media-sweep' }) },
        config.media.orphans,
      );
    },
    async close() {
      await scheduler?.stop();
      await sweeper?.stop();
      await usage.close();
      await broadcast.close();
      if (redis) await closeRedis(redis);
      await mediaStorage.close?.();
    },
  };
}
