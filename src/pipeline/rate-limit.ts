// Fixed one-minute windows per caller and limit (rate-limiter-flexible): in memory, or in Redis when
// REDIS_URL is set so that every instance counts against the same budget (per instance, in memory,
// while Redis is unavailable).
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { json } from '../rest/envelope.js';
import type { HttpResponse } from '../http/exchange.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one request of `caller` (or `points`, a costly GraphQL operation) against `limit` per minute. */
  consume(caller: string, limit: number, points?: number): Promise<RateDecision>;
}

export function createRateLimiter(redis: Redis | null): RateLimiter {
  // One limiter per distinct limit value; a bucket is keyed by caller and limit. The caller names the
  // bucket (rate-rule.ts: `key:<id>:<scope>`, `key:<id>:tier`, `user:<id>`), so a key's scopes are
  // counted apart even when their limits are equal.
  const limiters = new Map<number, RateLimiterAbstract>();
  const limiterFor = (points: number) => {
    let limiter = limiters.get(points);
    if (!limiter) {
      const options = { points, duration: 60, keyPrefix: `rl:${points}` };
      // Should Redis fail, counting goes on in this instance's memory rather than failing requests:
      // at once while it is not connected (rejectIfRedisNotReady), within the client's commandTimeout
      // when it does not answer (redis-connection.ts).
      limiter = redis
        ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(options) })
        : new RateLimiterMemory(options);
      limiters.set(points, limiter);
    }
    return limiter;
  };
  return {
    async consume(caller, limit, points = 1) {
      const decide = (res: RateLimiterRes, allowed: boolean): RateDecision => ({
        allowed,
        limit,
        remaining: Math.max(0, res.remainingPoints),
        resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      });
      try {
        return decide(await limiterFor(limit).consume(caller, points), true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decide(rejection, false);
        throw rejection;
      }
    },
  };
}

/** RateLimit-* headers (draft IETF names the contract uses), plus Retry-After when refused. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  };
  if (!decision.allowed) headers['retry-after'] = String(decision.resetSeconds);
  return headers;
}

/** The contract's 429 answer. */
export function rateLimited(decision: RateDecision): HttpResponse {
  return json(429, { success: false, error: 'Rate limit exceeded', retryAfter: decision.resetSeconds }, rateLimitHeaders(decision));
}
