// Per-key usage (totalRequests, hourly buckets for requestsLast24h, lastUsedAt), counted in memory and
// written in one batch every API_KEY_USAGE_FLUSH_MS: a busy key costs one UPDATE per flush, not one
// write per request, and requests never wait for it.
import type { Logger } from 'pino';
import type { SystemDb } from '../db/request-db.js';
import { isDatabaseUnavailable, reportDatabaseOutage } from '../db/unavailable.js';

interface Pending {
  count: number;
  lastUsedAt: Date;
  /** Requests per hour bucket (epoch ms of the hour's start). */
  hours: Map<number, number>;
}

export interface KeyUsage {
  /** Counts one successful use (the app calls it once the answer is below 400: refused calls are not uses). */
  record(keyId: string, at: Date): void;
  /** What this instance counted and has not written yet (reads add it, so they are exact here). */
  pending(keyId: string): { count: number; last24h: number; lastUsedAt: Date | null };
  flush(): Promise<void>;
  close(): Promise<void>;
}

const hourMs = 3_600_000;

export function createKeyUsage(system: SystemDb, flushMs: number, logger: Logger, now: () => Date): KeyUsage {
  let pending = new Map<string, Pending>();
  let flushing: Promise<void> = Promise.resolve();

  async function write(batch: Map<string, Pending>): Promise<void> {
    const ids: string[] = [];
    const counts: number[] = [];
    const lastUsed: Date[] = [];
    const bucketIds: string[] = [];
    const bucketHours: Date[] = [];
    const bucketCounts: number[] = [];
    for (const [id, usage] of batch) {
      ids.push(id);
      counts.push(usage.count);
      lastUsed.push(usage.lastUsedAt);
      for (const [hour, n] of usage.hours) {
        bucketIds.push(id);
        bucketHours.push(new Date(hour));
        bucketCounts.push(n);
      }
    }
    await system.prisma.$transaction([
      system.prisma.$executeRaw`
        UPDATE api_keys k SET total_requests = k.total_requests + u.n,
               last_used_at = greatest(k.last_used_at, u.at)
          FROM unnest(${ids}::uuid[], ${counts}::int[], ${lastUsed}::timestamptz[]) AS u(id, n, at)
         WHERE k.id = u.id`,
      system.prisma.$executeRaw`
        INSERT INTO api_key_usage (key_id, hour, requests)
        SELECT b.id, b.hour, b.n FROM unnest(${bucketIds}::uuid[], ${bucketHours}::timestamptz[], ${bucketCounts}::int[]) AS b(id, hour, n)
          JOIN api_keys k ON k.id = b.id
        ON CONFLICT (key_id, hour) DO UPDATE SET requests = api_key_usage.requests + excluded.requests`,
      system.prisma.$executeRaw`DELETE FROM api_key_usage WHERE hour < ${new Date(now().getTime() - 48 * hourMs)}`,
    ]);
  }

  async function flush(): Promise<void> {
    await flushing;
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    flushing = write(batch).catch((error: unknown) => {
      // A database outage fails every flush: said once in a while, not every API_KEY_USAGE_FLUSH_MS.
      if (isDatabaseUnavailable(error)) reportDatabaseOutage(logger, error);
      else logger.error({ err: error, keys: batch.size }, 'api key usage flush failed; counts kept for the next flush');
      for (const [id, usage] of batch) merge(id, usage);
    });
    await flushing;
  }

  function merge(id: string, usage: Pending): void {
    const current = pending.get(id);
    if (!current) return void pending.set(id, usage);
    current.count += usage.count;
    if (usage.lastUsedAt > current.lastUsedAt) current.lastUsedAt = usage.lastUsedAt;
    for (const [hour, n] of usage.hours) current.hours.set(hour, (current.hours.get(hour) ?? 0) + n);
  }

  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();

  return {
    record(keyId, at) {
      const hour = Math.floor(at.getTime() / hourMs) * hourMs;
      merge(keyId, { count: 1, lastUsedAt: at, hours: new Map([[hour, 1]]) });
    },
    pending(keyId) {
      const usage = pending.get(keyId);
      if (!usage) return { count: 0, last24h: 0, lastUsedAt: null };
      const since = now().getTime() - 24 * hourMs;
      let last24h = 0;
      for (const [hour, n] of usage.hours) if (hour + hourMs > since) last24h += n;
      return { count: usage.count, last24h, lastUsedAt: usage.lastUsedAt };
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
