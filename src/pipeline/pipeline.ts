// The one request pipeline of every route that acts for a caller (/graphql, JSON routes, HTTP
// declarations in the pipeline): body limit and CSRF → authenticate → rate limit → the route's rule
// (HTTP declarations: their field's; JSON routes leave it to their operation's fields) → the request's transaction →
// handler → cookies, RateLimit headers and key usage. Errors are answered in the route's format.
// The pipeline alone ends the request's transaction: it commits when the handler succeeded, else rolls
// back (request-db.ts runs the request's afterCommit or onRollback work then). A route that declares its
// network I/O (http-route.ts NetworkIo) has it run in a phase of its own, holding no connection: before
// its database phase, or after the commit.
import { authenticate } from '../auth/authenticate.js';
import { systemDb } from '../db/request-db.js';
import { databaseUnavailable, isDatabaseUnavailable, reportDatabaseOutage } from '../db/unavailable.js';
import type { Context } from '../graphql/context.js';
import { refusalOf, type Rule } from '../auth/rules.js';
import { failure } from '../rest/envelope.js';
import { AppError } from '../shared/errors.js';
import type { AppServices } from './app-services.js';
import { isCrossSiteForgery } from './csrf.js';
import { appendHeader, type HttpRequest, type HttpResponse } from '../http/exchange.js';
import type { NetworkIo, NextPhase } from '../rest/http-route.js';
import { rateLimited, rateLimitHeaders } from './rate-limit.js';
import { clientReader, createRequestContext } from './request-context.js';

export interface RouteTraits {
  /** The scopes the route requires, for rate limits (rate-rule.ts); unknown up front on /graphql. */
  scopes?: readonly string[];
  /** A rule the pipeline itself requires of the caller (HTTP declarations: their field's): 401 anonymous, 403 naming what is missing. */
  requires?: Rule;
  /** false: error envelopes without `code` (contract: media and API-key routes). */
  errorCodes?: boolean;
  /** Largest body the route reads (uploads); BODY_LIMIT_BYTES unless stated. */
  bodyLimitBytes?: number;
  /** Where the route's network I/O runs, out of its transaction; its handler then returns its next phase (http-route.ts). */
  networkIo?: NetworkIo;
}

/** A route's handler: its answer, or (a route that declares networkIo) its next phase. */
export type Handler = (ctx: Context) => Promise<HttpResponse | NextPhase>;

export type Pipeline = (request: HttpRequest, requestId: string, traits: RouteTraits, handle: Handler) => Promise<HttpResponse>;

export function createPipeline(services: AppServices): Pipeline {
  const { config, database, logger, keys, rates, usage, now } = services;
  const readClient = clientReader(config.trustProxy, logger);

  /** Authenticates, applies the rate limit, runs `handle` with the request's context and ends its transaction. */
  async function run(request: HttpRequest, requestId: string, traits: RouteTraits, handle: Handler): Promise<HttpResponse> {
    const { bodyLimitBytes = config.bodyLimitBytes } = traits;
    if (Number(request.header('content-length') ?? 0) > bodyLimitBytes) {
      return failure(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${bodyLimitBytes} bytes`, undefined, traits.errorCodes !== false);
    }
    if (isCrossSiteForgery(request, config)) return failure(403, 'CSRF_REJECTED', 'Cross-site request refused');
    const client = readClient(request);
    const { actor, grant } = await authenticate(systemDb(database, 'authenticate'), keys, request, { ipAddress: client.ip, userAgent: client.userAgent });
    const rate = rates && rates(actor, grant, client.ip, (limit) => grant && keys.audit({ keyId: grant.keyId, action: 'rate_limited', reason: `${limit}/min`, ipAddress: client.ip, userAgent: client.userAgent }));
    const upFront = await rate?.payUpFront(traits.scopes);
    if (upFront && !upFront.allowed) return rateLimited(upFront);
    // An HTTP declaration's rule, judged by the one evaluator as its field's is (401 anonymous, 403 naming what is missing).
    const refusal = traits.requires ? refusalOf(traits.requires, actor) : null;
    if (refusal) throw refusal;
    let failed = false;
    const ctx = createRequestContext(services, {
      request,
      actor,
      client,
      requestId,
      // A keyed GraphQL operation pays by its scopes and cost once parsed (limits.ts, rate-rule.ts).
      chargeCost: rate && grant && !upFront ? rate.chargeOperation : undefined,
      onFail: () => void (failed = true),
    });
    let answered: HttpResponse | NextPhase;
    try {
      answered = traits.networkIo === 'first' ? await ctx.db.without('the network phase of the route', () => handle(ctx)) : await handle(ctx);
      if (typeof answered === 'function' && traits.networkIo === 'first') answered = await answered();
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      await ctx.db.finish(!failed).catch((error: unknown) => {
        if (failed) return; // already answering with an error; the rollback's own failure adds nothing
        throw error;
      });
    }
    if (typeof answered === 'function' && traits.networkIo !== 'last') throw new Error('A handler returned a next phase, but its route declares no networkIo');
    const response = typeof answered === 'function' ? await answered() : answered;
    const late = await rate?.settle();
    if (late && !late.allowed) return rateLimited(late);
    for (const cookie of ctx.setCookies) appendHeader(response, 'set-cookie', cookie);
    // A key's budget and an anonymous address's are the client's to pace by; a session's is not shown.
    if (rate?.decision && (grant || actor.kind === 'anonymous')) Object.assign(response.headers, rateLimitHeaders(rate.decision));
    // "lastUsedAt: updated on successful use": refused calls (401, 403, 429…) are not uses.
    if (grant && response.status < 400) usage.record(grant.keyId, now());
    return response;
  }

  /** Runs `handle` with the request's context; authentication and rate-limit answers follow the route's traits. */
  return async (request, requestId, traits, handle) => {
    try {
      return await run(request, requestId, traits, handle);
    } catch (error) {
      if (traits.errorCodes !== false) throw error;
      if (error instanceof AppError) return failure(error.status, error.code, error.message, error.details, false);
      if (!isDatabaseUnavailable(error)) throw error;
      reportDatabaseOutage(logger, error);
      const unavailable = databaseUnavailable();
      return failure(unavailable.status, unavailable.code, unavailable.message, unavailable.details, false);
    }
  };
}
