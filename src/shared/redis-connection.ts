// The app's Redis client (REDIS_URL: shared rate-limit counters and the broadcast between instances),
// configured so that a Redis that is down or slow costs a request milliseconds, not seconds: commands
// fail at once while it is not connected (no offline queue), within commandTimeout when it does not
// answer, and callers fall back (rate limits count in memory, the key cache stops being trusted). It
// reconnects by itself; its state changes are logged once each, not on every reconnection attempt.
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** Bounds on every Redis call: a request never waits longer than this for Redis. */
export const redisTimeouts = { connectTimeoutMs: 2_000, commandTimeoutMs: 1_000, reconnectMaxDelayMs: 2_000 } as const;

/** The names this platform's connections carry in CLIENT LIST (CLIENT SETNAME): operators, and tests, can tell them from others. */
export const redisConnectionNames = { client: 'platform', subscriber: 'platform-bus' } as const;

const options: RedisOptions = {
  connectionName: redisConnectionNames.client,
  connectTimeout: redisTimeouts.connectTimeoutMs,
  commandTimeout: redisTimeouts.commandTimeoutMs,
  // While disconnected, commands are refused at once instead of queued until a reconnection.
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  // Reconnect attempts every 100 ms growing to every 2 s, for ever: it comes back by itself.
  retryStrategy: (attempt) => Math.min(attempt * 100, redisTimeouts.reconnectMaxDelayMs),
};

/** A Redis client for `url` with the bounds above; its connection state is logged by `watchRedis`. */
export function createRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, options);
  watchRedis(redis, 'redis', logger);
  return redis;
}

/** How often a connected client is asked for a PING (a server that stopped answering keeps its TCP connection). */
const heartbeatMs = 1_000;

/**
 * Logs a connection's state changes once each ("unavailable" when it goes down or cannot connect,
 * "available again" when it is back), and swallows the error events in between (an unheard 'error'
 * event would end the process; a logged one per attempt floods the log). A server that stops
 * answering (hung, paused, a network black hole) keeps the connection open: a PING unanswered within
 * the command timeout makes the client reconnect, so that it reads "not ready" (callers then fall
 * back at once) until the server answers again.
 */
export function watchRedis(redis: Redis, name: string, logger: Logger): void {
  let down = false;
  let probing = false;
  const wentDown = (error?: Error) => {
    if (down) return;
    down = true;
    logger.warn({ connection: name, reason: error ? describeRedisError(error) : 'connection closed' }, 'redis unavailable; retrying in the background');
  };
  redis.on('error', wentDown);
  redis.on('close', () => {
    if (redis.status !== 'end') wentDown();
  });
  redis.on('ready', () => {
    if (down) logger.warn({ connection: name }, 'redis available again');
    down = false;
  });
  // When the server last sent anything on the current connection. A PING is judged by it, so a fresh
  // connection (which has answered its own setup since) is never dropped for a PING sent on the last.
  let heard = 0;
  redis.on('connect', () => redis.stream.on('data', () => void (heard = performance.now())));
  const heartbeat = setInterval(() => {
    if (redis.status !== 'ready' || probing) return;
    probing = true;
    const sent = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer to PING within ${redisTimeouts.commandTimeoutMs} ms`)), redisTimeouts.commandTimeoutMs)));
    Promise.race([redis.ping(), silent])
      .catch(
        (error: Error) =>
          // Judged once the loop has read its sockets (setImmediate runs after the poll phase): after
          // a pause of this process (CPU starved, a long GC) the timeout and the answer are due
          // together, and a server that sent anything since the PING is alive, not silent.
          new Promise<void>((resolve) =>
            setImmediate(() => {
              if (redis.status === 'ready' && heard < sent) {
                wentDown(error);
                redis.disconnect(true);
              }
              resolve();
            }),
          ),
      )
      .finally(() => {
        clearTimeout(timer);
        probing = false;
      });
  }, heartbeatMs);
  heartbeat.unref();
  redis.on('end', () => clearInterval(heartbeat));
}

/** A short, secret-free description of a Redis failure (never the URL, which may carry a password). */
export function describeRedisError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/rediss?:\/\/\S*/g, 'redis://…').slice(0, 200);
}

/** Closes a client whatever its state: QUIT when connected (pending replies arrive), then no more reconnecting. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => {});
  redis.disconnect();
}
