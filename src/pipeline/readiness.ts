// GET /readyz: whether this instance can serve requests now, for a load balancer or an orchestrator's
// readiness probe (GET /healthz stays liveness: the process is up). It checks what every request
// needs: the database (SELECT 1) and Redis when configured (PING), each within a short timeout, and
// names the part that failed. The answers never carry connection strings or server messages.
import type { Redis } from 'ioredis';
import type { Database } from '../db/database.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { json } from '../rest/envelope.js';
import { describeRedisError } from '../shared/redis-connection.js';
import type { HttpResponse } from '../http/exchange.js';

export interface ReadinessDeps {
  database: Pick<Database, 'hotQuery'>;
  redis: Redis | null;
  /** Each check fails after this long (default 2 s). */
  timeoutMs?: number;
}

class TimedOut extends Error {}

/** `work`, or a TimedOut rejection after `ms` (the work itself is left to finish or fail alone). */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new TimedOut()), ms)));
  work.catch(() => {}); // a late failure after the timeout is nobody's business
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function databaseFailure(error: unknown, ms: number): string {
  if (error instanceof TimedOut) return `failed: no answer within ${ms} ms`;
  const code = (error as { code?: unknown } | null)?.code;
  const reason = isDatabaseUnavailable(error) ? 'unreachable' : 'error';
  return typeof code === 'string' ? `failed: ${reason} (${code})` : `failed: ${reason}`;
}

async function redisState(redis: Redis, ms: number): Promise<string> {
  // Not connected: the client refuses commands at once (no offline queue), and says why in its status.
  if (redis.status !== 'ready') return `failed: not connected (${redis.status})`;
  try {
    await within(ms, redis.ping());
    return 'ok';
  } catch (error) {
    return error instanceof TimedOut ? `failed: no answer within ${ms} ms` : `failed: ${describeRedisError(error)}`;
  }
}

/** Runs the checks; 200 `{status:'ok', checks}` when all pass, else 503 `{status:'unavailable', checks}`. */
export function createReadiness({ database, redis, timeoutMs = 2_000 }: ReadinessDeps): () => Promise<HttpResponse> {
  return async () => {
    const checks: Record<string, string> = {};
    const databaseCheck = within(timeoutMs, database.hotQuery('readyz', 'SELECT 1', [])).then(
      () => void (checks.database = 'ok'),
      (error: unknown) => void (checks.database = databaseFailure(error, timeoutMs)),
    );
    const redisCheck = redis && redisState(redis, timeoutMs).then((state) => void (checks.redis = state));
    await Promise.all([databaseCheck, redisCheck]);
    const ok = Object.values(checks).every((state) => state === 'ok');
    return json(ok ? 200 : 503, { status: ok ? 'ok' : 'unavailable', checks }, { 'cache-control': 'no-store' });
  };
}
