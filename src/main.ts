// Entry point: configuration, database, pending migrations, then listen. SIGTERM/SIGINT finish the
// requests in flight, then close the database.
import { createServer } from 'node:http';
import { createApp } from './app.js';
import { loadConfig } from './config/env.js';
import { openDatabase } from './db/database.js';
import { applyMigrations } from './db/migrations.js';
import { migrationsDir } from './db/paths.js';
import { createLogger } from './logger.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config);
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.dbPoolSize });
  const app = createApp({ config, database, logger });
  const server = createServer(app.listener);
  server.keepAliveTimeout = 65_000;

  const applied = await applyMigrations(database, migrationsDir);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  app.markReady();
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  logger.info({ host: config.host, port: config.port, database: database.kind }, `listening on http://${config.host}:${config.port}${config.graphiql ? ' (GraphiQL at /graphql)' : ''}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    const force = setTimeout(() => {
      logger.warn('shutdown timeout: closing remaining connections');
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    force.unref();
    server.close(async () => {
      await app.close();
      await database.close();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: Error) => {
  console.error(`Failed to start: ${error.message}`);
  process.exit(1);
});
