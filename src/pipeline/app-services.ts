// The services one app's pipeline shares across its requests, made once in createApp: Redis (optional),
// the broadcast of cache evictions, readiness, API keys and their usage, rate limits, sign-in
// throttling, mail, the realtime hub and work left running after answers; and how to close them. The
// modules' own services (media storage) come from their descriptions (modules/composition.ts).
import type { Logger } from 'pino';
import { createApiKeyAuth, type ApiKeyAuth } from '../auth/api-key-strategy.js';
import { scopeResourcesKey } from '../auth/scopes.js';
import { createKeyUsage, type KeyUsage } from '../auth/key-usage.js';
import { createSignInThrottle, type SignInThrottle } from '../auth/sign-in-throttle.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { systemDb } from '../db/request-db.js';
import { createMailer, type Mailer } from '../mail/outbox.js';
import { planOf, plansOf } from '../modules/teams/plans.js';
import { createBackground, type Background } from '../shared/background.js';
import { createHub, type Hub } from '../realtime/hub.js';
import { createBroadcast } from '../shared/broadcast.js';
import { closeRedis, createRedis } from '../shared/redis-connection.js';
import type { Credentials } from '../auth/request-scope.js';
import type { Services } from '../shared/services.js';
import { createRateLimiter } from './rate-limit.js';
import { createRequestRates, type RequestRates } from './rate-rule.js';
import { createReadiness } from './readiness.js';
import type { HttpResponse } from '../http/exchange.js';

export interface AppServices {
  config: Config;
  database: Database;
  logger: Logger;
  now(): Date;
  readiness(): Promise<HttpResponse>;
  keys: ApiKeyAuth;
  usage: KeyUsage;
  /** Null when rate limiting is off. */
  rates: RequestRates | null;
  signIns: SignInThrottle;
  mail: Mailer;
  /** The services of the app's modules. */
  modules: Services;
  credentials: Credentials;
  /** Open subscriptions to changes, fed by the database's announcements (realtime/hub.ts). */
  realtime: Hub;
  /** Work requests leave running after their answer (waited for by close). */
  background: Background;
  /** Waits for background work, writes pending key usage and closes Redis connections (the database stays open). */
  close(): Promise<void>;
}

export function createAppServices(config: Config, database: Database, logger: Logger, now: () => Date, modules: Services): AppServices {
  // Bounded waits, no offline queue, state changes logged once (redis-connection.ts).
  const redis = config.redisUrl ? createRedis(config.redisUrl, logger) : null;
  const broadcast = createBroadcast(redis, logger);
  const system = systemDb(database, 'api keys');
  const usage = createKeyUsage(system, config.apiKeys.usageFlushMs, logger, now);
  const keys = createApiKeyAuth({ system, broadcast, logger, now, cacheTtlMs: config.apiKeys.cacheTtlMs, failureDelayMs: config.apiKeys.failureDelayMs, scopeResources: modules.get(scopeResourcesKey) });
  const limiter = config.rateLimit.enabled ? createRateLimiter(redis) : null;
  const plans = plansOf(config); // parsed (and validated) once, here at start-up
  const rates = limiter && createRequestRates(limiter, config.rateLimit, config.graphqlLimits.costPerRatePoint, (plan) => planOf(plans, plan)?.rateLimitTier ?? plan);
  const background = createBackground();
  const { realtime: live } = config;
  const realtime = createHub({ database, logger, bufferEvents: live.bufferEvents, maxFilterGroups: live.maxFilterGroups, recheckMs: live.recheckMs, batchMs: live.batchMs });
  if (config.env === 'production' && config.webhooks.allowPrivate) logger.warn('WEBHOOKS_ALLOW_PRIVATE is true: webhook endpoints may reach private, loopback and metadata addresses');
  if (config.requireEmailVerification && !config.mail.smtpUrl) logger.warn('REQUIRE_EMAIL_VERIFICATION is on but SMTP_URL is not set: verification links are only recorded in email_outbox, so new accounts cannot verify');
  if (config.env === 'production' && !config.twoFactor.secretKey) logger.warn('TWO_FACTOR_SECRET_KEY is not set: two-factor secrets are stored unsealed');
  if (config.env === 'production' && !config.webhooks.secretKey) logger.warn('WEBHOOKS_SECRET_KEY is not set: webhook signing secrets are stored unsealed');
  return {
    config,
    database,
    logger,
    now,
    readiness: createReadiness({ database, redis }),
    keys,
    usage,
    rates,
    signIns: createSignInThrottle(redis, config.signInThrottle),
    mail: createMailer(config.mail, logger),
    modules,
    credentials: { forgetKey: keys.forgetKey, forgetUser: keys.forgetUser, pendingUsage: usage.pending },
    realtime,
    background,
    async close() {
      await realtime.close();
      await background.drain();
      await usage.close();
      await broadcast.close();
      if (redis) await closeRedis(redis);
    },
  };
}
