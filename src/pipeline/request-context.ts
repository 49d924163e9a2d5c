// The context of one request in the pipeline: its caller, its database transaction as that caller
// (committed or rolled back when the request ends), the app's services, and what the edges collect
// (cookies to set, the failure that decides the rollback).
import type { Logger } from 'pino';
import type { Actor } from '../auth/actor.js';
import { evictingAfterCommit } from '../auth/api-key-strategy.js';
import { authenticate } from '../auth/authenticate.js';
import { committing, RequestDb, runAsUser, systemDb } from '../db/request-db.js';
import type { Context } from '../graphql/context.js';
import type { ClientInfo } from '../auth/request-scope.js';
import type { AppServices } from './app-services.js';
import type { HttpRequest } from '../http/exchange.js';

/** Who sent the request, as far as we can tell: address (behind a trusted proxy, the one it saw), agent, scheme. */
export function clientOf(request: HttpRequest, trustProxy: boolean): ClientInfo {
  // The last X-Forwarded-For entry is the one our proxy added; those before it are the client's to choose.
  const forwarded = trustProxy ? request.header('x-forwarded-for')?.split(',').at(-1)?.trim() : undefined;
  return {
    ip: forwarded || request.remoteAddress,
    // Stored with sessions and audit records: bounded once, here.
    userAgent: request.header('user-agent')?.slice(0, 500) ?? null,
    secure: request.url.protocol === 'https:',
  };
}

/**
 * clientOf for one app, which warns once (the first request of the pipeline that arrives without
 * X-Forwarded-For while TRUST_PROXY is on): such a request did not come through the proxy, so the
 * server is reachable directly, where a client sets X-Forwarded-For itself and picks the address its
 * rate limits and sign-in throttles count.
 */
export function clientReader(trustProxy: boolean, logger: Logger): (request: HttpRequest) => ClientInfo {
  let warned = !trustProxy;
  return (request) => {
    if (!warned && !request.header('x-forwarded-for')) {
      warned = true;
      logger.warn(
        { remoteAddress: request.remoteAddress },
        'TRUST_PROXY is on but a request arrived without X-Forwarded-For: the server is reachable without the proxy, and a client that reaches it directly chooses the address its rate limits and sign-in throttles count. Let only the proxy reach it, or turn TRUST_PROXY off',
      );
    }
    return clientOf(request, trustProxy);
  };
}

export interface ContextParts {
  /** The request: its credentials are checked again while a subscription it opened stays open. */
  request: HttpRequest;
  actor: Actor;
  client: ClientInfo;
  requestId: string;
  chargeCost: Context['chargeCost'];
  /** Called when the request fails (its transaction then rolls back). */
  onFail(): void;
}

/** What says who a request is: equal for requests that would authenticate alike (kept in memory only). */
const credentialOf = (request: HttpRequest) => ['cookie', 'authorization', 'x-api-key', 'x-team-id'].map((name) => request.header(name) ?? '').join('\n');

/** The request's context over the app's services. */
export function createRequestContext(services: AppServices, parts: ContextParts): Context {
  const { config, database, logger } = services;
  const { actor, requestId } = parts;
  let log: Logger | undefined;
  const ctx: Context = {
    actor,
    face: parts.request.url.pathname.startsWith('/api/') ? 'rest' : 'graphql',
    // Work after a commit (files a deletion orphaned) cannot fail the request: its failure is logged.
    db: new RequestDb(database, actor.kind === 'user' ? actor.userId : null, (error) => ctx.log.error({ err: error }, 'work after commit failed')),
    system: (purpose) => systemDb(database, purpose),
    runAs: (userId, work) => runAsUser(database, userId, work),
    config,
    // Evictions of cached keys wait for this request's commit (api-key-strategy.ts).
    credentials: evictingAfterCommit(services.credentials, { afterCommit: (work) => ctx.db.afterCommit(work) }),
    mail: services.mail,
    services: services.modules,
    afterAnswer: (work) => services.background.run(work, (error) => ctx.log.error({ err: error }, 'work after the answer failed')),
    client: parts.client,
    now: services.now,
    requestId,
    // Made on first use: most requests never log from inside an operation.
    get log() {
      return (log ??= logger.child({ requestId }));
    },
    setCookies: [],
    signIns: services.signIns,
    chargeCost: parts.chargeCost,
    fail: parts.onFail,
    realtime: {
      hub: services.realtime,
      credential: credentialOf(parts.request),
      reauthenticate: async () => (await authenticate(systemDb(database, 'authenticate'), services.keys, parts.request, { ipAddress: parts.client.ip, userAgent: parts.client.userAgent })).actor,
      detached(other, work) {
        const scope = createRequestContext(services, { ...parts, actor: other });
        return committing(scope.db, () => work(scope));
      },
    },
  };
  return ctx;
}
