// How a change the CLI commits reaches the running servers' API-key caches. With REDIS_URL the CLI joins
// the servers' broadcast and publishes on their eviction channel (api-key-strategy.ts's keyEvictions):
// the publish returns once every server listening acknowledged it, so the next request anywhere is
// refused. Without Redis nothing can reach another process: on PGlite no server runs beside the CLI
// (the data directory lock), on PostgreSQL a server's cached key lapses within API_KEY_CACHE_TTL_SECONDS.
import pino from 'pino';
import { keyEvictions } from '../auth/api-key-strategy.js';
import type { Config } from '../config/config.js';
import { createBroadcast } from '../shared/broadcast.js';
import { closeRedis, createRedis, redisTimeouts } from '../shared/redis-connection.js';
import type { Credentials } from '../auth/request-scope.js';

/**
 * How the running servers learnt of the change: over Redis; no need (the embedded database: no server
 * runs beside the CLI); or not (no REDIS_URL, or Redis unreachable: a cached key lapses within its TTL).
 */
export type EvictionOutcome = 'published' | 'not-needed' | 'no-redis' | 'redis-unreachable';

export interface CliEvictions extends Pick<Credentials, 'forgetKey' | 'forgetUser'> {
  /** What became of the evictions published so far. */
  outcome(): EvictionOutcome;
}

/** How long the CLI waits to join the broadcast before it gives up on Redis (it has committed already). */
const joinTimeoutMs = redisTimeouts.connectTimeoutMs + redisTimeouts.reconnectMaxDelayMs;

/** Runs `work` with evictions that reach the running servers where they can (see the top of the file); closes Redis after. */
export async function withEvictions<T>(config: Config, work: (evictions: CliEvictions) => Promise<T>): Promise<T> {
  if (!config.redisUrl || !config.databaseUrl) {
    const outcome = config.databaseUrl ? 'no-redis' : 'not-needed';
    return work({ forgetKey: async () => {}, forgetUser: async () => {}, outcome: () => outcome });
  }
  const logger = pino({ level: 'silent' });
  const redis = createRedis(config.redisUrl, logger);
  const broadcast = createBroadcast(redis, logger);
  let outcome: EvictionOutcome = 'not-needed'; // until something is published
  // Joined once it hears its acknowledgements channel: a publish then waits for the servers' acknowledgements.
  const joined = async (): Promise<boolean> => {
    const deadline = Date.now() + joinTimeoutMs;
    while (!broadcast.listening() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    return broadcast.listening();
  };
  const publish = async (message: () => Promise<void>) => {
    if (!(await joined())) {
      outcome = 'redis-unreachable';
      return;
    }
    await message();
    if (outcome !== 'redis-unreachable') outcome = 'published';
  };
  const { forgetKey, forgetUser } = keyEvictions(broadcast);
  try {
    return await work({
      forgetKey: (keyHash) => publish(() => forgetKey(keyHash)),
      forgetUser: (userId) => publish(() => forgetUser(userId)),
      outcome: () => outcome,
    });
  } finally {
    await broadcast.close();
    await closeRedis(redis);
  }
}

/** A sentence for the text output: when the running servers stop accepting what changed. */
export function evictionNote(outcome: EvictionOutcome, config: Config): string {
  const ttl = `${Math.round(config.apiKeys.cacheTtlMs / 1000)} s (API_KEY_CACHE_TTL_SECONDS)`;
  switch (outcome) {
    case 'published':
      return 'running servers were told over Redis: refused from the next request';
    case 'not-needed':
      return 'no server runs on this data directory, so none has it cached';
    case 'redis-unreachable':
      return `Redis could not be reached: servers that cached the key may accept it for up to ${ttl}`;
    case 'no-redis':
      return `no REDIS_URL: a server running on this database that cached the key accepts it for up to ${ttl}`;
  }
}
