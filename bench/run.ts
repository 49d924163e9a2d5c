// `npm run bench [-- --quick]`: seeds the databases, then measures every target in interleaved
// rounds (raw, product on PostgreSQL, product on PGlite; again...), and prints medians and ratios.
// See /work/shared/BENCHMARKS.md for the method. Progress goes to stderr, the table to stdout.
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { datasetSizes, recreateDatabase, serverVersion, vacuumAnalyze, type DatasetSizes } from './database.js';
import { describeEnvironment } from './environment.js';
import { runLoad } from './load.js';
import { parseOptions, type BenchOptions } from './options.js';
import { preparePglite } from './pglite.js';
import { renderMarkdown, summarize, type Sample } from './report.js';
import { checkOnce, measurementsFor, type Credentials, type Measurement, type ServerKind } from './scenarios.js';
import { fetchSessionData, obtainSessionCookie } from './session.js';
import { killAllServers, repoRoot, startServer, type RunningServer, type ServerSpec } from './targets.js';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function serverSpecs(databaseUrl: string, pgliteDir: string): Record<ServerKind, ServerSpec> {
  return {
    raw: { name: 'raw', entry: 'bench/raw-server.ts', env: { DATABASE_URL: databaseUrl } },
    // Pool of 8 like the raw baseline, so the comparison is about the code, not the pool.
    'product-pg': { name: 'product (PostgreSQL)', entry: 'src/main.ts', env: { DATABASE_URL: databaseUrl, DB_POOL_SIZE: '8' } },
    'product-pglite': { name: 'product (PGlite)', entry: 'src/main.ts', env: { DATABASE_URL: undefined, DATA_DIR: pgliteDir } },
  };
}

/** Starts the product once to apply its migrations and create the bench user through its own API. */
async function seed(spec: ServerSpec): Promise<Credentials> {
  const server = await startServer(spec);
  try {
    const cookie = await obtainSessionCookie(server.baseUrl);
    return { cookie, session: await fetchSessionData(server.baseUrl, cookie) };
  } finally {
    await server.stop();
  }
}

async function measure(server: RunningServer, m: Measurement, round: number, options: BenchOptions): Promise<Sample[]> {
  const label = `round ${round} ${m.scenario} on ${m.target}`;
  await checkOnce(server.baseUrl, m);
  const base = { baseUrl: server.baseUrl, request: m.request, verify: m.verify };
  const samples: Sample[] = [];
  const warmup = await runLoad({ ...base, connections: options.connections, seconds: options.warmupSeconds });
  samples.push({ ...warmup, round, scenario: m.scenario, target: m.target, phase: 'warmup' });
  const throughput = await runLoad({ ...base, connections: options.connections, seconds: options.measureSeconds });
  samples.push({ ...throughput, round, scenario: m.scenario, target: m.target, phase: 'throughput' });
  log(`${label}: ${Math.round(throughput.reqPerSec)} req/s, p50 ${throughput.p50Ms.toFixed(2)} ms, p99 ${throughput.p99Ms.toFixed(2)} ms`);
  if (m.latencyRun) {
    // No separate warm-up: the 50-connection run just before has warmed this server and route.
    const latency = await runLoad({ ...base, connections: 1, seconds: options.measureSeconds });
    samples.push({ ...latency, round, scenario: m.scenario, target: m.target, phase: 'latency' });
    log(`${label} (1 connection): ${Math.round(latency.reqPerSec)} req/s, p50 ${latency.p50Ms.toFixed(3)} ms, p99 ${latency.p99Ms.toFixed(3)} ms`);
  }
  return samples;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const startedAt = new Date();
  const pgliteDir = await mkdtemp(path.join(os.tmpdir(), 'bench-pglite-'));
  // Also on SIGINT, where process.exit skips the finally below.
  process.on('exit', () => rmSync(pgliteDir, { recursive: true, force: true }));
  try {
    log(`recreating ${new URL(options.databaseUrl).pathname.slice(1)} at ${new URL(options.databaseUrl).host}`);
    await recreateDatabase(options.databaseUrl);
    const specs = serverSpecs(options.databaseUrl, pgliteDir);

    log('seeding PostgreSQL through the product (migrations, bench user)');
    const pgCredentials = await seed(specs['product-pg']);
    await vacuumAnalyze(options.databaseUrl);
    log('seeding PGlite through the product (migrations, bench user)');
    const pgliteCredentials = await seed(specs['product-pglite']);
    const datasets: Record<'postgres' | 'pglite', DatasetSizes> = {
      postgres: await datasetSizes(options.databaseUrl),
      pglite: await preparePglite(pgliteDir),
    };

    // Interleaved rounds: slow drift of the machine spreads over all targets instead of one.
    const samples: Sample[] = [];
    const kinds: ServerKind[] = ['raw', 'product-pg', 'product-pglite'];
    for (let round = 1; round <= options.rounds; round++) {
      for (const kind of kinds) {
        const server = await startServer(specs[kind]);
        try {
          for (const m of measurementsFor(kind, pgCredentials, pgliteCredentials)) samples.push(...(await measure(server, m, round, options)));
        } finally {
          await server.stop();
        }
      }
    }

    const summary = summarize(samples);
    process.stdout.write(`${renderMarkdown(summary, options)}\n`);

    const environment = describeEnvironment(await serverVersion(options.databaseUrl));
    const resultsDir = path.join(repoRoot, 'bench', 'results');
    await mkdir(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `${startedAt.toISOString().replaceAll(':', '-')}.json`);
    const record = { startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), options, environment, datasets, summary, samples };
    await writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
    log(`results written to ${path.relative(repoRoot, file)}`);
  } finally {
    killAllServers();
    await rm(pgliteDir, { recursive: true, force: true });
  }
}

// No server may outlive the bench, whatever ends it.
process.on('exit', killAllServers);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllServers();
    process.exit(130);
  });
}

main().catch((error: Error) => {
  log(`FAILED: ${error.message}`);
  process.exitCode = 1;
});
