// The server, as main.ts runs it: configuration, database (locked, reachable), pending migrations, the
// entity definitions checked against the generated client and the migrated tables, then listen. A start-up failure is one line on stderr and a non-zero exit (start-failure.ts); SIGTERM/SIGINT
// finish the requests in flight and close everything within SHUTDOWN_TIMEOUT_MS (shutdown.ts).
import { createServer, type Server } from 'node:http';
import { createApp } from './app.js';
import type { Config } from './config/config.js';
import { loadConfig } from './config/env.js';
import { openDatabase, type Database } from './db/database.js';
import { entityDefinitions } from './config/entities/index.js';
import { applyMigrations } from './db/migrations.js';
import { migrationsDir } from './db/paths.js';
import { answerClientErrors } from './http/node.js';
import { catalogProblem, readCatalog } from './modules/entities/catalog-check.js';
import { closeDestination, stdoutDestination, type LogDestination } from './log-destination.js';
import { createLogger } from './logger.js';
import { stopOnSignals } from './shutdown.js';
import { describeStartFailure, StartStepError } from './start-failure.js';
import { activeTracing } from './telemetry/tracing.js';

/** How long start-up waits for PostgreSQL to answer a first query. */
const databaseProbeMs = 15_000;

let destination: LogDestination | undefined;
/** What to close when start-up fails half-way, latest first. */
const opened: Array<() => Promise<void>> = [];

async function start(): Promise<void> {
  const config = loadConfig();
  destination = stdoutDestination();
  const logger = createLogger(config, destination);
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.dbPoolSize, holder: 'server', pgliteSharedBuffersMb: config.pgliteSharedBuffersMb });
  opened.unshift(() => database.close());
  await probe(database, config);
  const app = createApp({ config, database, logger });
  opened.unshift(() => app.close());
  const server = createServer(app.listener);
  server.on('upgrade', app.upgrade);
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);

  const applied = await applyMigrations(database, migrationsDir).catch((error: unknown) => {
    throw new StartStepError('migrations', {}, error);
  });
  if (applied.length) logger.info({ applied }, 'migrations applied');
  // A definition without its generated model or its migration stops here, in one line, not as 500s later.
  const mismatch = catalogProblem(entityDefinitions, await readCatalog((sql, values) => database.hotQuery('entity_catalog', sql, values)));
  if (mismatch) throw new Error(mismatch);
  app.markReady();
  await listen(server, config);
  logger.info({ host: config.host, port: config.port, database: database.kind }, `listening on http://${config.host}:${config.port}${config.graphiql ? ' (GraphiQL at /graphql)' : ''}`);

  const tracing = activeTracing();
  stopOnSignals({
    server,
    logger,
    destination,
    timeoutMs: config.shutdownTimeoutMs,
    closeStreams: () => app.closeStreams(),
    closers: [
      { name: 'app (scheduler, Redis, storage)', close: () => app.close() },
      { name: 'database', close: () => database.close() },
      // The last spans (the shutdown's own requests included) are exported before the exit.
      ...(tracing ? [{ name: 'traces', close: () => tracing.shutdown() }] : []),
    ],
  });
}

/** A first query, so that an unreachable or refusing PostgreSQL is reported now, by name. */
async function probe(database: Database, config: Config): Promise<void> {
  if (database.kind !== 'postgres') return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${databaseProbeMs / 1000} s`)), databaseProbeMs);
  });
  try {
    await Promise.race([database.hotQuery('startup_probe', 'SELECT 1', []), timeout]);
  } catch (error) {
    throw new StartStepError('database', { databaseUrl: config.databaseUrl }, error);
  } finally {
    clearTimeout(timer);
  }
}

function listen(server: Server, config: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    const refused = (error: Error) => reject(new StartStepError('listen', { host: config.host, port: config.port }, error));
    server.once('error', refused);
    server.listen(config.port, config.host, () => {
      server.off('error', refused);
      resolve();
    });
  });
}

/** Starts the server; a failure is reported in one line and ends the process. */
export function runServer(): Promise<void> {
  return start().catch(async (error: unknown) => {
    process.stderr.write(`Failed to start: ${describeStartFailure(error)}\n`);
    // Close what was opened (Redis, the database and its lock), but never wait long for it.
    const cleanup = (async () => {
      for (const close of opened) await close().catch(() => {});
    })();
    await Promise.race([cleanup, new Promise((resolve) => setTimeout(resolve, 3_000))]);
    if (destination) await closeDestination(destination, 500);
    process.exit(1);
  });
}
