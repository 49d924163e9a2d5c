// Authentication by API key (`Authorization: Bearer sk_…` or `X-API-Key`), in the contract's order:
// format, hash, cache (API_KEY_CACHE_TTL_SECONDS) or storage, status, expiry; the caller then acts as
// the key's owner with the key's scopes, cut to what the owner's current role allows (a disabled
// owner's keys are refused). Failures
// answer the same 401 after at least API_KEY_FAILURE_DELAY_MS. Revocation and membership changes
// evict cached keys on every instance through the broadcast, once they are committed.
//
// The cache must never outlive a revocation: an eviction runs after the change committed, and a
// lookup that was under way when an eviction ran (it may have read the row before the commit) is
// never cached. While the broadcast cannot hear the other instances (Redis down), the cache is not
// used at all (every request verifies against the database), and it is dropped when the broadcast
// hears again (evictions may have been missed meanwhile).
import { LRUCache } from 'lru-cache';
import { entries } from '../shared/cache-bound.js';
import type { Logger } from 'pino';
import type { SystemDb } from '../db/request-db.js';
import type { HttpRequest } from '../http/exchange.js';
import type { Broadcast } from '../shared/broadcast.js';
import { AppError } from '../shared/errors.js';
import type { Credentials } from './request-scope.js';
import { isGlobalRole, type AuthenticatedActor, type TeamMembership } from './actor.js';
import { recordKeyEvent, type KeyEvent, type KeyEventClient } from './key-audit.js';
import { effectiveKeyScopes, type ScopeResources } from './scopes.js';
import { bearerToken, hashToken, sameHash } from './secret-token.js';

export const apiKeyPattern = /^sk_(live|test)_[A-Za-z0-9_-]{40}$/;

/** The key the request presents, if it presents one (well-formed or not). */
export function presentedApiKey(request: HttpRequest): string | null {
  return bearerToken(request.header('authorization')) ?? request.header('x-api-key')?.trim() ?? null;
}

interface KeyRow {
  id: string;
  key_hash: string;
  user_id: string;
  scopes: string[];
  status: string;
  expires_at: Date | null;
  /** The owner's account is disabled (CLI `user disable`): the key is refused until it is enabled again. */
  disabled: boolean;
  email: string;
  role: string;
  first_name: string;
  last_name: string;
  image: string | null;
  teams: (TeamMembership & { plan: string })[];
}

/** A verified key as cached: everything the actor needs, and when the key stops being valid. */
export interface KeyGrant {
  keyId: string;
  keyHash: string;
  expiresAt: number | null;
  actor: AuthenticatedActor;
  /** Plan of each of the owner's teams (rate-limit tiers). */
  plans: Record<string, string>;
  holdsWildcard: boolean;
}

const keySql = `
    SELECT k.id::text AS id, k.key_hash, k.user_id::text AS user_id, k.scopes, k.status, k.expires_at,
           u.disabled_at IS NOT NULL AS disabled, u.email, u.role, u.first_name, u.last_name, u.image,
           coalesce(json_agg(json_build_object('teamId', m.team_id, 'role', m.role, 'plan', coalesce(sub.plan, 'free')) ORDER BY m.joined_at)
                    FILTER (WHERE m.team_id IS NOT NULL), '[]') AS teams
      FROM api_keys k
      JOIN users u ON u.id = k.user_id
      LEFT JOIN team_members m ON m.user_id = u.id
      LEFT JOIN subscriptions sub ON sub.team_id = m.team_id
     WHERE k.key_hash = $1
     GROUP BY k.id, u.id`;

export interface ApiKeyAuthDeps {
  system: SystemDb;
  broadcast: Broadcast;
  logger: Logger;
  now: () => Date;
  cacheTtlMs: number;
  failureDelayMs: number;
  /** The app's scope resources: a key's scopes its owner's role no longer allows are not granted. */
  scopeResources: ScopeResources;
}

export interface ApiKeyAuth {
  /** The actor for a presented key; throws 401 (after the failure delay) when it is not valid. */
  authenticate(presented: string, request: HttpRequest, client: KeyEventClient): Promise<{ actor: AuthenticatedActor; grant: KeyGrant }>;
  /** Writes a failure event for a key, at most once per key, action and reason a minute (floods stay cheap). */
  audit(event: KeyEvent): void;
  /** Evicts a key everywhere (revocation; call it once the revocation is committed). */
  forgetKey(keyHash: string): Promise<void>;
  /** Evicts every key of a user everywhere (role or membership changed; once committed). */
  forgetUser(userId: string): Promise<void>;
}

/** A key lookup, and how many evictions had run when it started. */
interface Lookup {
  row: Promise<KeyRow | undefined>;
  evictionsBefore: number;
}

/**
 * The credentials one request's services see: their evictions wait for the request's commit (a
 * lookup between an eviction and the commit would read, and cache, the old row) and are dropped if it
 * rolls back. The request's answer waits for them (afterCommit work runs before it is sent).
 */
export function evictingAfterCommit(credentials: Credentials, db: { afterCommit(work: () => Promise<void>): void }): Credentials {
  return {
    ...credentials,
    forgetKey: async (keyHash) => db.afterCommit(() => credentials.forgetKey(keyHash)),
    forgetUser: async (userId) => db.afterCommit(() => credentials.forgetUser(userId)),
  };
}

const channel = 'api-keys:forget';

/**
 * How evictions reach every instance's cache: on the broadcast's channel, which the servers subscribe
 * to. The operators' CLI publishes on it too (its own broadcast over REDIS_URL), so a revocation or a
 * disabled user it commits is refused at once by running servers.
 */
export function keyEvictions(broadcast: Pick<Broadcast, 'publish'>): Pick<ApiKeyAuth, 'forgetKey' | 'forgetUser'> {
  return {
    forgetKey: (keyHash) => broadcast.publish(channel, `key ${keyHash}`),
    forgetUser: (userId) => broadcast.publish(channel, `user ${userId}`),
  };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createApiKeyAuth(deps: ApiKeyAuthDeps): ApiKeyAuth {
  const { system, broadcast, logger, now } = deps;
  const cache = new LRUCache<string, KeyGrant>({ ...entries(50_000), ttl: Math.max(1, deps.cacheTtlMs) });
  const audited = new LRUCache<string, true>({ ...entries(10_000), ttl: 60_000 });
  // Hashes that can never verify: unknown (a new key is 240 random bits, so its hash was never
  // presented before it existed), revoked or expired (neither is ever undone). A flood of them costs
  // a hash and a map lookup each, not a query.
  const refused = new LRUCache<string, { reason: string; keyId?: string }>({ ...entries(100_000), ttl: Math.max(1, deps.cacheTtlMs) });

  function audit(event: KeyEvent): void {
    const key = `${event.keyId} ${event.action} ${event.reason}`;
    if (audited.has(key)) return;
    audited.set(key, true);
    recordKeyEvent(system, event).catch((error: unknown) => logger.error({ err: error, action: event.action }, 'api key audit failed'));
  }

  // Evictions so far. A lookup during which one ran (it may have read the row before the change
  // committed) is used by its own request, which started before, but never cached: the check and the
  // insert are one synchronous step, so no eviction can fall between them. Evictions are rare
  // (revocations, role and membership changes), so counting them all rather than per key costs at
  // most a few more lookups.
  let evictions = 0;
  // Lookups later requests for the same key may share, until the next eviction.
  const shared = new Map<string, Lookup>();
  const evicted = () => {
    evictions++;
    shared.clear();
  };

  broadcast.subscribe(channel, (message) => {
    const [kind, value] = message.split(' ');
    if (kind === 'key' && value) cache.delete(value);
    if (kind === 'user' && value) {
      for (const [hash, grant] of cache.entries()) if (grant.actor.userId === value) cache.delete(hash);
    }
    evicted();
  });
  broadcast.onResume(() => {
    cache.clear();
    evicted();
  });

  /** The key's row from storage; shared by concurrent requests only while the cache is trusted. */
  function lookUp(keyHash: string, share: boolean): Lookup {
    const existing = share ? shared.get(keyHash) : undefined;
    if (existing) return existing;
    const lookup: Lookup = { evictionsBefore: evictions, row: system.hotQuery<KeyRow>('auth_api_key', keySql, [keyHash]).then((rows) => rows[0]) };
    if (!share) return lookup;
    shared.set(keyHash, lookup);
    const done = () => void (shared.get(keyHash) === lookup && shared.delete(keyHash));
    lookup.row.then(done, done);
    return lookup;
  }

  function grantOf(row: KeyRow, keyHash: string): KeyGrant | null {
    if (!isGlobalRole(row.role)) return null;
    const scopes = effectiveKeyScopes(deps.scopeResources, row.scopes, row.role);
    const teams = row.teams.map(({ teamId, role }) => ({ teamId, role }));
    return {
      keyId: row.id,
      keyHash,
      expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
      plans: Object.fromEntries(row.teams.map((t) => [t.teamId, t.plan])),
      holdsWildcard: scopes.includes('*'),
      actor: {
        kind: 'user',
        via: 'api-key',
        userId: row.user_id,
        email: row.email,
        role: row.role,
        profile: { firstName: row.first_name, lastName: row.last_name, image: row.image },
        scopes,
        teams,
        activeTeamId: teams[0]?.teamId ?? null,
        sessionId: null,
        apiKeyId: row.id,
      },
    };
  }

  return {
    async authenticate(presented, request, client) {
      const started = performance.now();
      const refuse = async (reason: string, keyId?: string): Promise<never> => {
        if (keyId) audit({ keyId, action: 'auth_failed', reason, ...client });
        logger.info({ reason, keyPrefix: apiKeyPattern.test(presented) ? presented.slice(0, 12) : undefined }, 'api key refused');
        const wait = deps.failureDelayMs - (performance.now() - started);
        if (wait > 0) await sleep(wait);
        throw new AppError('AUTHENTICATION_FAILED', 'Unauthorized');
      };
      if (!apiKeyPattern.test(presented)) return refuse('malformed');
      const keyHash = hashToken(presented);
      // Unknown, revoked and expired stay so for good: `refused` is trusted even while the cache is not.
      const trusted = broadcast.listening();
      let grant = trusted ? cache.get(keyHash) : undefined;
      if (!grant) {
        const known = refused.get(keyHash);
        if (known) return refuse(known.reason, known.keyId);
        const lookup = lookUp(keyHash, trusted);
        const row = await lookup.row;
        if (!row || !sameHash(row.key_hash, keyHash)) {
          refused.set(keyHash, { reason: 'unknown' });
          return refuse('unknown');
        }
        if (row.status !== 'active') {
          const reason = row.status === 'expired' ? 'expired' : 'revoked';
          refused.set(keyHash, { reason, keyId: row.id });
          return refuse(reason, row.id);
        }
        // Not kept in `refused`: an operator may enable the owner again. Never cached either; a
        // disable evicts the owner's cached keys everywhere (forgetUser), once it is committed.
        if (row.disabled) return refuse('owner disabled', row.id);
        const loaded = grantOf(row, keyHash);
        if (!loaded) return refuse('owner role unknown', row.id);
        grant = loaded;
        // Good for this request, which started before any eviction that ran during the lookup.
        if (trusted && lookup.evictionsBefore === evictions && broadcast.listening()) cache.set(keyHash, grant);
      }
      const at = now();
      if (grant.expiresAt !== null && grant.expiresAt <= at.getTime()) {
        cache.delete(keyHash);
        refused.set(keyHash, { reason: 'expired', keyId: grant.keyId });
        // The first use after expiry records the transition (once: the update matches one row once).
        const updated = await system.prisma.$executeRaw`UPDATE api_keys SET status = 'expired', updated_at = now() WHERE id = ${grant.keyId}::uuid AND status = 'active'`;
        if (updated > 0) await recordKeyEvent(system, { keyId: grant.keyId, action: 'expired', reason: null, ...client });
        return refuse('expired', grant.keyId);
      }
      return { actor: withTeam(grant.actor, request.header('x-team-id')), grant };
    },
    audit,
    ...keyEvictions(broadcast),
  };
}

/** The actor acting in the team named by `x-team-id`, which must be one of the owner's teams. */
function withTeam(actor: AuthenticatedActor, teamId: string | null): AuthenticatedActor {
  if (!teamId || teamId === actor.activeTeamId) return actor;
  if (!actor.teams.some((t) => t.teamId === teamId)) throw new AppError('FORBIDDEN', 'Not a member of the team named in x-team-id');
  return { ...actor, activeTeamId: teamId };
}
