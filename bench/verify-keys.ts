// Key verification alone (S6): CPU µs per verification of the product's API-key strategy, on a cache
// hit and on a miss (one prepared query), in its own process against the bench's PostgreSQL. Run by
// run.ts as `node --import tsx bench/verify-keys.ts` with DATABASE_URL and the keys on stdin (JSON);
// prints one JSON line.
import { text } from 'node:stream/consumers';
import pino from 'pino';
import { createApiKeyAuth } from '../src/auth/api-key-strategy.js';
import { createKeyUsage } from '../src/auth/key-usage.js';
import { openDatabase } from '../src/db/database.js';
import { systemDb } from '../src/db/request-db.js';
import type { HttpRequest } from '../src/http/exchange.js';
import { createBroadcast } from '../src/shared/broadcast.js';
import { scopeResourcesOf } from '../src/auth/scopes.js';
import { modules } from '../src/module-list.js';

export interface VerifyInput {
  warm: string;
  /** Keys never verified by this process: each one's first verification is a miss. */
  cold: string[];
  hits: number;
}

export interface VerifyResult {
  hit: { count: number; cpuMicros: number; wallMicros: number };
  miss: { count: number; cpuMicros: number; wallMicros: number };
}

const request = { header: () => null } as unknown as HttpRequest;
const client = { ipAddress: '127.0.0.1', userAgent: 'bench' };

async function timed(count: number, work: (i: number) => Promise<unknown>): Promise<{ count: number; cpuMicros: number; wallMicros: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) await work(i);
  const used = process.cpuUsage(cpu);
  return { count, cpuMicros: (used.user + used.system) / count, wallMicros: ((performance.now() - started) * 1000) / count };
}

async function main(): Promise<void> {
  const input = JSON.parse(await text(process.stdin)) as VerifyInput;
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  const logger = pino({ level: 'silent' });
  const database = await openDatabase({ url, dataDir: '.', poolSize: 2 });
  const system = systemDb(database, 'bench: verify keys');
  const now = () => new Date();
  // Usage is counted as on the hot path; the hour-long flush keeps its writes out of the measurement.
  const usage = createKeyUsage(system, 3_600_000, logger, now);
  const scopeResources = scopeResourcesOf(modules.flatMap((m) => m.scopes ?? []));
  const auth = createApiKeyAuth({ system, broadcast: createBroadcast(null, logger), logger, now, cacheTtlMs: 300_000, failureDelayMs: 100, scopeResources });
  // The app records a use once the request succeeded; counted here as part of the hot path.
  const verify = async (key: string) => usage.record((await auth.authenticate(key, request, client)).grant.keyId, now());
  try {
    await verify(input.warm);
    // Warm the JIT on hits before measuring them; misses are measured cold per key, as they happen.
    for (let i = 0; i < 20_000; i++) await verify(input.warm);
    const hit = await timed(input.hits, () => verify(input.warm));
    const miss = await timed(input.cold.length, (i) => verify(input.cold[i]!));
    const result: VerifyResult = { hit, miss };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await database.close();
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
