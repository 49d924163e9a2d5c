// The real app on a real HTTP server (127.0.0.1, a free port), in process, on a fresh database: tests
// call it through HTTP as a client would.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp, type App } from '../app.js';
import type { Config } from '../config/config.js';
import { loadConfig } from '../config/env.js';
import type { Database } from '../db/database.js';
import { answerClientErrors } from '../http/node.js';
import { createLogger } from '../logger.js';
import type { ModuleDescription } from '../modules/module-description.js';
import type { RenderLimits } from '../modules/media/render.js';
import { createTestDatabase } from './database.js';

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestApp {
  app: App;
  config: Config;
  database: Database;
  /** The server's own origin (http://127.0.0.1:<port>): same-origin requests carry it. */
  origin: string;
  /** A raw request; relative paths are resolved against the server's origin. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** A JSON request (body serialised, response parsed). */
  json<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonResponse<T>>;
  /** A GraphQL request to /graphql. */
  graphql<T = any>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<JsonResponse<T>>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** The app's clock (see testkit/clock.ts); default the real one. */
  now?: () => Date;
  /** Renders running and waiting at once (a tiny queue, to meet its 503); default the app's. */
  renderLimits?: RenderLimits;
  /** Where the app's logs go, through the app's own logger (redaction, serializers) at LOG_LEVEL; default none. */
  logDestination?: pino.DestinationStream;
  /** The modules the app serves (createApp's `modules`); default the platform's list. */
  modules?: readonly ModuleDescription[];
}

/** A client of the server at `origin`, as tests use it: raw, JSON and GraphQL requests. */
export function httpClient(origin: string): Pick<TestApp, 'fetch' | 'json' | 'graphql'> {
  const fetch = (path: string, init?: RequestInit) => globalThis.fetch(new URL(path, origin), init);
  const json = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(path, init);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };
  return { fetch, json, graphql: (query, variables, headers) => json('POST', '/graphql', { query, variables }, headers) };
}

/**
 * Boots the app on a fresh, migrated database with the given environment overrides; with `sameDatabaseAs`,
 * a second instance on another app's database (what two servers of one deployment share).
 */
export async function createTestApp(env: Record<string, string> = {}, sameDatabaseAs?: TestApp, options: TestAppOptions = {}): Promise<TestApp> {
  const testDb = sameDatabaseAs ? { database: sameDatabaseAs.database, drop: async () => {} } : await createTestDatabase();
  // Uploaded files go to a directory of this app's own, removed on close.
  const uploadDir = await mkdtemp(path.join(tmpdir(), 'platform-uploads-'));
  // Every test's anonymous requests (signups, sign-ins, mailed links, public reads) come from 127.0.0.1,
  // and with REDIS_URL their counters are shared by every test file and run on the machine: the limits
  // per address are out of reach unless a test sets them (the throttle tests do, from addresses of their own).
  const perAddress = { RATE_LIMIT_ANONYMOUS: '1000000', SIGNUP_MAX_PER_IP: '1000000', MAIL_LINK_MAX_PER_IP: '1000000', PROVIDER_SIGNIN_MAX_PER_IP: '1000000', SIGNIN_MAX_FAILURES_PER_IP: '1000000' };
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', UPLOAD_DIR: uploadDir, ...perAddress, ...env });
  const logger = options.logDestination ? createLogger(config, options.logDestination) : pino({ level: config.logLevel });
  const app = createApp({ config, database: testDb.database, logger, now: options.now, renderLimits: options.renderLimits, modules: options.modules });
  app.markReady();
  const server = createServer(app.listener);
  server.on('upgrade', app.upgrade);
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    app,
    config,
    database: testDb.database,
    origin,
    ...httpClient(origin),
    async close() {
      await app.closeStreams();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await app.close();
      await testDb.drop();
      await rm(uploadDir, { recursive: true, force: true });
    },
  };
}
