// The app as the fuzzer meets it: the real app on a real port (127.0.0.1) on a fresh, migrated
// database, with the production logger (createLogger: its serializers and redaction) writing into
// memory, so the run can read every line it would have logged. On PostgreSQL the database URL
// carries a password the logs are searched for; CRON_SECRET is set for the same reason.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createApp, type App } from '../app.js';
import type { Config } from '../config/config.js';
import { loadConfig } from '../config/env.js';
import type { Database } from '../db/database.js';
import { answerClientErrors } from '../http/node.js';
import { createLogger } from '../logger.js';
import { createTestDatabase } from '../testkit/database.js';

export interface FuzzTarget {
  app: App;
  config: Config;
  database: Database;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Every log line so far, in order (pino's JSON, one per entry). */
  logs: string[];
  /** Errors nothing handled (uncaught exceptions, unhandled rejections) since the target started. */
  uncaught: unknown[];
  /** Secrets no log line may carry: the database URL and its password, the cron secret. */
  configSecrets: string[];
  close(): Promise<void>;
}

/** Boots the target: PGlite unless `postgresUrl` names a PostgreSQL server; `env` overrides the fuzz defaults. */
export async function startTarget(postgresUrl: string | undefined, env: Record<string, string> = {}): Promise<FuzzTarget> {
  // On PostgreSQL, reached through a URL that carries a password (trust authentication ignores it; the logs must not show it).
  const db = await createTestDatabase({ serverUrl: postgresUrl, password: `fuzz-db-password-${randomBytes(8).toString('hex')}` });
  const uploadDir = await mkdtemp(path.join(tmpdir(), 'platform-fuzz-'));
  const cronSecret = `fuzz-cron-${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'debug',
    UPLOAD_DIR: uploadDir,
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    CRON_SECRET: cronSecret,
    // Webhook endpoints on 127.0.0.1 (the victim's receiver), and deliveries that give up fast.
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    WEBHOOKS_TIMEOUT_MS: '500',
    // Limits high enough that the fuzzer reaches the handlers, not only the 429 answer.
    RATE_LIMIT_SESSION: '1000000',
    RATE_LIMIT_WILDCARD: '1000000',
    RATE_LIMIT_TIERS: 'free=1000000,pro=1000000,enterprise=1000000',
    RATE_LIMIT_SCOPES: 'tasks:read=1000000,tasks:write=1000000,tasks:delete=1000000',
    RATE_LIMIT_ANONYMOUS: '1000000',
    // Few subscriptions per user, key or address: one a client left and the server kept counting shows at the end (fuzz-run.ts).
    // Per user too (its default): the attacker's session and keys are one user, whose quota each caller's check opens in turn.
    REALTIME_MAX_SUBSCRIPTIONS: '8',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(line);
      done();
    },
  });
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);

  const app = createApp({ config, database: db.database, logger: createLogger(config, sink) });
  app.markReady();
  const server = createServer(app.listener);
  // GraphQL over WebSocket on /graphql, as src/server.ts serves it.
  server.on('upgrade', app.upgrade);
  // What node's parser refuses (a NUL in a header, headers too large) is answered in the envelope, as main.ts does.
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const configSecrets = [cronSecret];
  if (db.url) configSecrets.push(db.url, decodeURIComponent(new URL(db.url).password));
  return {
    app,
    config,
    database: db.database,
    origin,
    logs,
    uncaught,
    configSecrets,
    async close() {
      // WebSockets and event streams first: node:http's close() waits for them.
      await app.closeStreams();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await app.close();
      await db.drop();
      await rm(uploadDir, { recursive: true, force: true });
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUncaught);
    },
  };
}
