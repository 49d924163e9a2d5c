// Which rate-limit buckets a request pays into, and when. A key's request takes one point (a GraphQL
// operation: its cost in points) from the bucket of each scope its operation requires: the scope's
// RATE_LIMIT_SCOPES limit in a bucket of its own per key and scope, else the wildcard limit when the key
// holds `*`, else the tier of its owner's active team's plan (one bucket per key for those). An
// operation requiring no scope pays into that last bucket. A session pays into its user's bucket; an
// anonymous request into its address's (RATE_LIMIT_ANONYMOUS; an IPv6 address by its /64, which one
// host commonly holds whole, as the sign-in throttle counts it), one point a request.
//
// A route's scopes are known when it matches (REST routes: derived at start-up from their operation's
// root fields; HTTP declarations: declared), so such a request pays up front. A keyed /graphql request
// is known only once its operation is parsed: it pays then (graphql/limits.ts, Context.chargeCost), or,
// when no operation ran (a parse or validation error), one point into its fallback bucket as it ends.
// So a request never pays twice and is never free.
import type { Actor } from '../auth/actor.js';
import type { KeyGrant } from '../auth/api-key-strategy.js';
import { addressGroup } from '../auth/sign-in-throttle.js';
import type { Config } from '../config/config.js';
import type { RateDecision, RateLimiter } from './rate-limit.js';

interface Bucket {
  caller: string;
  limit: number;
}

export interface RequestRate {
  /**
   * Pays for the request now when its buckets are known: a session, an anonymous caller, or a key on
   * a route whose scopes are given. Null when nothing was paid (a key whose operation is not known yet).
   */
  payUpFront(scopes: readonly string[] | undefined): Promise<RateDecision | null>;
  /** A keyed operation, once parsed: pays its cost into its scopes' buckets (Context.chargeCost); null when allowed. */
  chargeOperation(cost: number, scopes: readonly string[]): Promise<{ retryAfter: number } | null>;
  /** As the request ends: a keyed request that paid nothing pays one point into its fallback bucket. */
  settle(): Promise<RateDecision | null>;
  /** The last payment's decision (RateLimit-* headers); null before one. */
  readonly decision: RateDecision | null;
}

/** The rate of one request: its caller, its client's address, and what to do when a bucket refuses it (audit the key). */
export type RequestRates = (actor: Actor, grant: KeyGrant | null, address: string | null, onRefused: (limit: number) => void) => RequestRate;

/**
 * `tierOf(plan)`: the rate-limit tier of a plan's slug (the plan's `rateLimitTier`, else the slug).
 * `costPerRatePoint`: a GraphQL operation's cost takes ceil(cost / this) points, at least 1.
 */
export function createRequestRates(limiter: RateLimiter, rates: Config['rateLimit'], costPerRatePoint: number, tierOf: (plan: string) => string): RequestRates {
  /** A key's bucket when no scope limit applies: the wildcard's, else its tier's. */
  function fallbackOf(actor: Actor, grant: KeyGrant): Bucket {
    if (grant.holdsWildcard) return { caller: `key:${grant.keyId}:*`, limit: rates.wildcard };
    const activeTeamId = actor.kind === 'user' ? actor.activeTeamId : null;
    const tier = tierOf((activeTeamId && grant.plans[activeTeamId]) || 'free');
    return { caller: `key:${grant.keyId}:tier`, limit: rates.tiers[tier] ?? rates.tiers.free ?? 60 };
  }

  function keyBuckets(actor: Actor, grant: KeyGrant, scopes: readonly string[]): Bucket[] {
    const buckets = new Map<string, number>();
    let fallback = scopes.length === 0;
    for (const scope of scopes) {
      if (Object.hasOwn(rates.scopes, scope)) buckets.set(`key:${grant.keyId}:${scope}`, rates.scopes[scope]!);
      else fallback = true;
    }
    if (fallback) {
      const { caller, limit } = fallbackOf(actor, grant);
      buckets.set(caller, limit);
    }
    return [...buckets].map(([caller, limit]) => ({ caller, limit }));
  }

  return (actor, grant, address, onRefused) => {
    // Who pays up front whatever the route: a session's user, an anonymous caller's address.
    const caller: Bucket | null = grant
      ? null
      : actor.kind === 'user'
        ? { caller: `user:${actor.userId}`, limit: rates.session }
        : { caller: `address:${addressGroup(address)}`, limit: rates.anonymous };
    let decision: RateDecision | null = null;
    let paid = false;
    let paidUpFront = false;

    async function pay(buckets: Bucket[], points: number): Promise<RateDecision> {
      paid = true;
      const decisions = await Promise.all(buckets.map((b) => limiter.consume(b.caller, b.limit, points)));
      const refused = decisions.filter((d) => !d.allowed);
      for (const d of refused) onRefused(d.limit);
      // Refused: the bucket that frees up last; allowed: the one closest to its limit.
      decision = refused.length
        ? refused.reduce((a, b) => (b.resetSeconds > a.resetSeconds ? b : a))
        : decisions.reduce((a, b) => (b.remaining < a.remaining ? b : a));
      return decision;
    }

    return {
      get decision() {
        return decision;
      },
      async payUpFront(scopes) {
        if (caller) {
          paidUpFront = true;
          return pay([caller], 1);
        }
        if (!grant) return null;
        if (scopes === undefined) return null;
        paidUpFront = true;
        return pay(keyBuckets(actor, grant, scopes), 1);
      },
      async chargeOperation(cost, scopes) {
        // Paid up front already (a session, a route); each operation of a keyed /graphql request pays.
        if (paidUpFront || !grant) return null;
        const refusal = await pay(keyBuckets(actor, grant, scopes), Math.max(1, Math.ceil(cost / costPerRatePoint)));
        return refusal.allowed ? null : { retryAfter: refusal.resetSeconds };
      },
      async settle() {
        if (paid || !grant) return null;
        return pay([fallbackOf(actor, grant)], 1);
      },
    };
  };
}
