// Throttling of password guessing, second-factor guessing, signup floods and reset-mail floods
// (rate-limiter-flexible's "login endpoint protection"): consecutive failed sign-ins per e-mail and
// client address, failed sign-ins per client address, wrong second-factor codes per account (from any
// address), codes tried per two-factor sign-in challenge, signups per client address, and requests for
// mailed links (password reset, verification) per e-mail and per address. Counters live in Redis when
// REDIS_URL is set (every instance counts against the same budget; an in-memory insurance limiter
// takes over while Redis is unreachable), in memory otherwise.
//
// Every check takes its points BEFORE the credentials are checked, in one atomic step per counter
// (`consume`: INCR in Redis), and a success gives them back: a limit read first and counted after the
// check lets a concurrent burst through, as every request of it reads the counter before any failure
// is added. A refused request runs no argon2 and no TOTP check.
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

/** One counted attempt at a credential: its points are taken; a failure leaves them taken. */
export interface SignInAttempt {
  /** The credential was right: consecutive failures of this e-mail from this address are cleared, the other counters get their point back. */
  succeeded(): Promise<void>;
  /** Nothing was checked after all (nothing to check, the challenge was gone): every point is given back. */
  abandoned(): Promise<void>;
}

export interface SignInThrottle {
  /** Before a password is checked: takes an attempt of this e-mail from this address and of this address; 429 RATE_LIMITED (nothing taken) past either limit. */
  beginSignIn(email: string, ip: string | null): Promise<SignInAttempt>;
  /**
   * Before a second-factor code is checked: as beginSignIn for `key` (the account's counter from this
   * address), plus one of the user's wrong-code budget, which every address shares.
   */
  beginSecondFactor(key: string, userId: string, ip: string | null): Promise<SignInAttempt>;
  /**
   * Takes one of the code tries of a two-factor sign-in challenge (named by its hash), counted for
   * `lifetimeSeconds`; false once it had them all (the caller ends the challenge).
   */
  takeChallengeTry(challengeHash: string, lifetimeSeconds: number): Promise<boolean>;
  /** Counts a signup attempt from this address; throws 429 RATE_LIMITED past the limit. */
  assertSignupAllowed(ip: string | null): Promise<void>;
  /** Counts a request for a mailed link (reset, verification) for this e-mail from this address; throws 429 RATE_LIMITED past either limit. */
  assertMailLinkAllowed(email: string, ip: string | null): Promise<void>;
  /** Counts a provider sign-in started from this address; throws 429 RATE_LIMITED past the limit. */
  assertProviderSignInAllowed(ip: string | null): Promise<void>;
}

/** A 429 the client can act on: the message, and when to try again. */
const tooManyAttempts = (message: string, msBeforeNext: number) => new AppError('RATE_LIMITED', message, { retryAfter: Math.max(1, Math.ceil(msBeforeNext / 1000)) });

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

/** A counter and the key of one of its budgets. */
type Budget = readonly [counter: RateLimiterAbstract, key: string];

/** Creates the throttle on the app's Redis client (null: this process only). */
export function createSignInThrottle(redis: Redis | null, limits: SignInThrottleLimits): SignInThrottle {
  /** A counter of `points` per window; with `blockSeconds`, the attempt past them blocks the key that long. */
  const limiter = (keyPrefix: string, points: number, blockSeconds = 0): RateLimiterAbstract => {
    const options = { keyPrefix, points, duration: limits.windowSeconds, blockDuration: blockSeconds };
    if (!redis) return new RateLimiterMemory(options);
    // Not ready (down, reconnecting): the insurance limiter answers at once instead of waiting on Redis.
    return new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(options) });
  };
  const byAccount = limiter('signin:account', limits.maxFailuresPerAccount, limits.blockSeconds);
  const byIp = limiter('signin:ip', limits.maxFailuresPerIp, limits.blockSeconds);
  // A whole window's block: at most this many wrong codes per account and window, whatever the addresses.
  const secondFactors = limiter('signin:2fa', limits.maxSecondFactorFailures, limits.windowSeconds);
  const challengeTries = limiter('signin:challenge', limits.maxCodesPerChallenge);
  const signups = limiter('signup:ip', limits.maxSignupsPerIp);
  const mailLinksByAccount = limiter('maillink:account', limits.maxMailLinksPerAccount);
  const mailLinksByIp = limiter('maillink:ip', limits.maxMailLinksPerIp);
  const providerSignIns = limiter('provider:ip', limits.maxProviderSignInsPerIp);

  const giveBack = (budgets: readonly Budget[]) => Promise.all(budgets.map(([counter, key]) => counter.reward(key)));

  /**
   * Takes one point of each budget in turn (each `consume` is atomic: never more than its limit pass).
   * Past a limit, the points taken are given back and a 429 with `message` is thrown: a refused request
   * counts nowhere, so a burst refused for one account does not also use up its address's budget.
   */
  async function take(budgets: readonly Budget[], message: string): Promise<void> {
    for (const [i, [counter, key]] of budgets.entries()) {
      try {
        await counter.consume(key);
      } catch (rejection) {
        await giveBack(budgets.slice(0, i));
        if (rejection instanceof Error) throw rejection;
        throw tooManyAttempts(message, (rejection as RateLimiterRes).msBeforeNext);
      }
    }
  }

  /** Takes an attempt of `consecutive` (cleared by a success) and of `budgets` (given back by one). */
  async function begin(consecutive: Budget, budgets: readonly Budget[]): Promise<SignInAttempt> {
    await take([consecutive, ...budgets], 'Too many failed sign-ins: try again later');
    return {
      async succeeded() {
        await Promise.all([consecutive[0].delete(consecutive[1]), giveBack(budgets)]);
      },
      abandoned: async () => void (await giveBack([consecutive, ...budgets])),
    };
  }

  const consume = (counter: RateLimiterAbstract, key: string, message: string) => take([[counter, key]], message);

  return {
    beginSignIn: (email, ip) => begin([byAccount, accountKey(email, ip)], [[byIp, addressGroup(ip)]]),
    beginSecondFactor: (key, userId, ip) => begin([byAccount, accountKey(key, ip)], [[byIp, addressGroup(ip)], [secondFactors, userId]]),
    async takeChallengeTry(challengeHash, lifetimeSeconds) {
      try {
        await challengeTries.consume(challengeHash, 1, { customDuration: lifetimeSeconds });
        return true;
      } catch (rejection) {
        if (rejection instanceof Error) throw rejection;
        return false;
      }
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
