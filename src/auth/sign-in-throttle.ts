// Throttling of password guessing, signup floods and reset-mail floods (rate-limiter-flexible's "login
// endpoint protection"): consecutive failed sign-ins per e-mail and client address, failed sign-ins per
// client address, signups per client address, and requests for mailed links (password reset, verification) per e-mail
// and per address. Counters live in Redis when REDIS_URL is set (every
// instance counts against the same budget; an in-memory insurance limiter takes over while Redis is
// unreachable), in memory otherwise.
//
// Nothing here depends on whether the account exists: an unknown e-mail is counted, refused and
// answered exactly like a known one, so throttling reveals no accounts.
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config/config.js';
import { AppError } from '../shared/errors.js';

/** The limits (SIGN_IN_* variables): config.ts says what each counts. */
export type SignInThrottleLimits = Config['signInThrottle'];

export interface SignInThrottle {
  /** Before credentials are checked: throws 429 RATE_LIMITED when this e-mail or this address is blocked here. */
  assertSignInAllowed(email: string, ip: string | null): Promise<void>;
  /** Counts a failed sign-in (wrong password or unknown e-mail); blocks once a limit is reached. */
  signInFailed(email: string, ip: string | null): Promise<void>;
  /** A successful sign-in clears the e-mail's consecutive failures from this address. */
  signInSucceeded(email: string, ip: string | null): Promise<void>;
  /** Counts a signup attempt from this address; throws 429 RATE_LIMITED past the limit. */
  assertSignupAllowed(ip: string | null): Promise<void>;
  /** Counts a request for a mailed link (reset, verification) for this e-mail from this address; throws 429 RATE_LIMITED past either limit. */
  assertMailLinkAllowed(email: string, ip: string | null): Promise<void>;
  /** Counts a provider sign-in started from this address; throws 429 RATE_LIMITED past the limit. */
  assertProviderSignInAllowed(ip: string | null): Promise<void>;
}

/** A 429 the client can act on: the message, and when to try again. */
const tooManyAttempts = (message: string, msBeforeNext: number) => new AppError('RATE_LIMITED', message, { retryAfter: Math.max(1, Math.ceil(msBeforeNext / 1000)) });
const signInRefused = (ms: number) => tooManyAttempts('Too many failed sign-ins: try again later', ms);

/**
 * The address a counter is kept for: IPv6 clients by their /64 (one host usually holds a whole
 * /64, so counting single addresses would give it 2^64 budgets); IPv4 as is.
 */
export function addressGroup(ip: string | null): string {
  if (!ip) return 'unknown';
  if (!isIPv6(ip)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...headParts, ...Array<string>(8 - headParts.length - tailParts.length).fill('0'), ...tailParts] : headParts;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** An e-mail as counters name it: hashed, so that Redis holds no addresses. */
const emailKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22);

/** The counter of one e-mail from one address. */
const accountKey = (email: string, ip: string | null) => `${emailKey(email)}:${addressGroup(ip)}`;

/** Creates the throttle on the app's Redis client (null: this process only). */
export function createSignInThrottle(redis: Redis | null, limits: SignInThrottleLimits): SignInThrottle {
  const limiter = (keyPrefix: string, points: number): RateLimiterAbstract => {
    const options = { keyPrefix, points, duration: limits.windowSeconds };
    if (!redis) return new RateLimiterMemory(options);
    // Not ready (down, reconnecting): the insurance limiter answers at once instead of waiting on Redis.
    return new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(options) });
  };
  const byAccount = limiter('signin:account', limits.maxFailuresPerAccount);
  const byIp = limiter('signin:ip', limits.maxFailuresPerIp);
  const signups = limiter('signup:ip', limits.maxSignupsPerIp);
  const mailLinksByAccount = limiter('maillink:account', limits.maxMailLinksPerAccount);
  const mailLinksByIp = limiter('maillink:ip', limits.maxMailLinksPerIp);
  const providerSignIns = limiter('provider:ip', limits.maxProviderSignInsPerIp);

  /** Milliseconds until a counter at or over its limit lets sign-ins through again; 0 when under it. */
  const blockedFor = (res: RateLimiterRes | null, limit: number) => (res && res.consumedPoints >= limit ? res.msBeforeNext : 0);

  /** Counts one failure; reaching the limit turns the counter into a block of blockSeconds. */
  async function countFailure(counter: RateLimiterAbstract, key: string, limit: number) {
    const res = await counter.penalty(key);
    if (res.consumedPoints >= limit) await counter.block(key, limits.blockSeconds);
  }

  /** Takes one point of `counter` for `key`; past its limit, a 429 with `message`. */
  async function consume(counter: RateLimiterAbstract, key: string, message: string) {
    try {
      await counter.consume(key);
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      throw tooManyAttempts(message, (rejection as RateLimiterRes).msBeforeNext);
    }
  }

  return {
    async assertSignInAllowed(email, ip) {
      const [account, address] = await Promise.all([byAccount.get(accountKey(email, ip)), byIp.get(addressGroup(ip))]);
      const wait = Math.max(blockedFor(account, limits.maxFailuresPerAccount), blockedFor(address, limits.maxFailuresPerIp));
      if (wait > 0) throw signInRefused(wait);
    },
    async signInFailed(email, ip) {
      await Promise.all([countFailure(byAccount, accountKey(email, ip), limits.maxFailuresPerAccount), countFailure(byIp, addressGroup(ip), limits.maxFailuresPerIp)]);
    },
    async signInSucceeded(email, ip) {
      await byAccount.delete(accountKey(email, ip));
    },
    assertSignupAllowed: (ip) => consume(signups, addressGroup(ip), 'Too many signups from this address: try again later'),
    assertProviderSignInAllowed: (ip) => consume(providerSignIns, addressGroup(ip), 'Too many sign-ins from this address: try again later'),
    async assertMailLinkAllowed(email, ip) {
      const message = 'Too many e-mail requests: try again later';
      await consume(mailLinksByIp, addressGroup(ip), message);
      await consume(mailLinksByAccount, emailKey(email), message);
    },
  };
}
