// Opens the one database the process uses: embedded PGlite under DATA_DIR, or PostgreSQL when a
// connection string is configured. Both are driven through Prisma driver adapters.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPg } from '@prisma/adapter-pg';
import { lockDataDir, pgliteOpenError, type DataDirHolder } from './data-dir-lock.js';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { listenOnPostgres, type NotificationHandlers } from './notifications.js';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';
import { defaultPgliteSharedBuffersMb } from '../config/env.js';
import { activeTracing } from '../telemetry/tracing.js';
import { wholeScriptFactory } from './script-runner.js';
import { commitCheckingPglite } from './commits.js';
import { isCallerEntry } from './caller-entry.js';
import { heldBeginPool } from './held-begin.js';
import { transactionClients, type OpenTransaction } from './transaction-clients.js';

export type DatabaseKind = 'pglite' | 'postgres';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** The process's database: the Prisma client, the adapter factory migrations reuse, and its lifecycle. */
export interface Database {
  kind: DatabaseKind;
  /** Prisma's client on the driver adapter, for work outside request transactions (systemDb). */
  prisma: PrismaClient;
  /** Opens a request transaction on a client of its own (transaction-clients.ts; request-db.ts uses it). */
  openTransaction(): Promise<OpenTransaction>;
  /**
   * Runs `work` with an adapter factory for the schema engine (scripts run whole; see script-runner.ts).
   * On PostgreSQL it is a dedicated single connection, closed afterwards: the engine takes an advisory
   * lock, which must be released on the connection that took it, not on another one of a pool.
   */
  withMigrationAdapter<T>(work: (factory: SqlMigrationAwareDriverAdapterFactory) => Promise<T>): Promise<T>;
  /**
   * A prepared statement straight on the driver, outside any transaction and bypassing Prisma, for the
   * few system lookups on every request's path (authentication, before the request's transaction):
   * Prisma's raw-query path costs about 3× the driver's here. `name` identifies the statement; it
   * must always be used with the same SQL.
   */
  hotQuery<Row>(name: string, sql: string, values: unknown[]): Promise<Row[]>;
  poolStats(): PoolStats;
  /**
   * Listens to NOTIFY on `channel` (delivered at commit, in commit order) until the returned function
   * is called: PGlite in process, PostgreSQL on a connection of its own (notifications.ts).
   */
  listen(channel: string, handlers: NotificationHandlers): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; absent means embedded PGlite. */
  url?: string;
  /** Where PGlite keeps its files; `memory://` keeps it in memory (tests). */
  dataDir: string;
  poolSize: number;
  /** Who opens a PGlite data directory (named to a second process it refuses); default `server`. */
  holder?: DataDirHolder;
  /** PGlite's shared buffers in MiB (PGLITE_SHARED_BUFFERS_MB); default `defaultPgliteSharedBuffersMb`. */
  pgliteSharedBuffersMb?: number;
  /** An open PGlite to run on instead of opening `dataDir` (the tests' instance lent to a test database: src/testkit/pglite-lease.ts); close() leaves it open, its owner's to close. */
  pglite?: PGlite;
}


/**
 * Prisma's client as configured on both databases. `minimal` errors: the other formats capture a stack
 * trace (a `new Error()`) at every call, to point an error at its caller's line, which cost 2 % of a
 * READ's CPU; errors reach clients through our own envelope and logs, which never show that frame.
 */
const clientOptions = { errorFormat: 'minimal' } as const;

/** Opens PGlite or PostgreSQL according to the options. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const database = await (options.url ? openPostgres(options.url, options.poolSize) : openPglite(options.dataDir, options.holder ?? 'server', options.pgliteSharedBuffersMb ?? defaultPgliteSharedBuffersMb, options.pglite));
  const tracing = activeTracing();
  if (!tracing) return database;
  // With traces on, Prisma's statements get their spans from Prisma's own tracing (telemetry/start.ts);
  // the hot lookups, which bypass Prisma, get theirs here.
  return { ...database, hotQuery: <Row>(name: string, sql: string, values: unknown[]) => tracing.statement(sql, () => database.hotQuery<Row>(name, sql, values)) };
}

/**
 * PGlite as the product runs it, on `dataDir` (a directory's `pglite` folder, or `memory://`, which may
 * start as `startsFrom`, a dump of a data directory: PGlite's dumpDataDir).
 */
export function createPglite(dataDir: string, sharedBuffersMb: number = defaultPgliteSharedBuffersMb, startsFrom?: Blob): Promise<PGlite> {
  const inMemory = dataDir.startsWith('memory://');
  return PGlite.create(inMemory ? dataDir : path.join(dataDir, 'pglite'), {
    extensions: { pg_trgm },
    ...(inMemory && startsFrom ? { loadDataDir: startsFrom } : {}),
    // A start parameter, not PGlite's postgresqlconf option, which replaces the data directory's
    // postgresql.conf (its time zone and text search configuration with it).
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`],
  });
}

/**
 * PGlite is single-process: the data directory is locked before anything in it is created or opened
 * (data-dir-lock.ts), and released when the database closes. A PGlite given (`lent`) is used as it is,
 * and left open.
 */
async function openPglite(dataDir: string, holder: DataDirHolder, sharedBuffersMb: number, lent: PGlite | undefined): Promise<Database> {
  const inMemory = lent !== undefined || dataDir.startsWith('memory://');
  const unlock = inMemory ? async () => {} : await lockDataDir(dataDir, holder);
  let pglite: PGlite;
  try {
    pglite = lent ?? (await createPglite(dataDir, sharedBuffersMb));
  } catch (error) {
    await unlock();
    throw pgliteOpenError(dataDir, error);
  }
  const clientFactory = new PrismaPGlite(pglite);
  const adapter = commitCheckingPglite(pglite, clientFactory);
  const prisma = new PrismaClient({ adapter, ...clientOptions });
  // One connection, one transaction at a time: one client for request transactions.
  const transactions = transactionClients(adapter, 1, clientOptions);
  return {
    kind: 'pglite',
    prisma,
    openTransaction: () => transactions.open(),
    withMigrationAdapter: (work) => work(wholeScriptFactory(clientFactory, (script) => pglite.exec(script))),
    hotQuery: async <Row>(_name: string, sql: string, values: unknown[]) => (await pglite.query<Row>(sql, values)).rows,
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    listen: async (channel, handlers) => {
      const unlisten = await pglite.listen(channel, handlers.message);
      return () => unlisten();
    },
    close: async () => {
      try {
        await transactions.close();
        await prisma.$disconnect();
        if (!lent) await pglite.close();
      } finally {
        await unlock();
      }
    },
  };
}

/**
 * Names each distinct SQL text so that pg prepares it once per connection and reuses the plan: planning
 * dominated short queries (the session lookup ran 8× slower unprepared). Prisma's SQL is parameterised,
 * so the set of texts is bounded by the shapes of the queries the code makes. Counts and aggregates
 * stay unnamed: they read every row their values select, and a plan made without the values misjudges
 * how many (PostgreSQL switches a named statement to such a generic plan after five runs): a count of
 * 58k of a team's 100k tasks under an OR filter took 55 ms by the generic plan's bitmap scan against
 * 39 ms by the sequential scan its values choose, while planning it again costs well under a millisecond.
 * The caller's entry holds its caller in its text (caller-entry.ts): unnamed too, or every caller would
 * leave a prepared statement behind on every connection.
 */
function statementName(query: { sql: string }): string {
  // '': the protocol's unnamed statement, planned with its values at every run.
  if (readsWholeSet.test(query.sql) || isCallerEntry(query.sql)) return '';
  let name = statementNames.get(query.sql);
  if (!name) {
    name = `p_${createHash('sha1').update(query.sql).digest('hex').slice(0, 24)}`;
    statementNames.set(query.sql, name);
  }
  return name;
}
/** Prisma's count, aggregate and groupBy statements. */
const readsWholeSet = /^SELECT (?:COUNT|SUM|AVG|MIN|MAX)\(|\sGROUP BY\s/;
const statementNames = new Map<string, string>();

async function openPostgres(url: string, poolSize: number): Promise<Database> {
  // Waiting longer than this for a connection (as Prisma's maxWait did for its transactions) is an error.
  const pool = heldBeginPool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 30_000 });
  // An idle connection the server ends (a restart, DROP DATABASE … WITH (FORCE) after tests) is dropped
  // by the pool, which connects anew on next use; unheard, its 'error' event would end the process.
  pool.on('error', () => {});
  const adapter = new PrismaPg(pool, { statementNameGenerator: statementName });
  const prisma = new PrismaClient({ adapter, ...clientOptions });
  // A client for request transactions per connection the pool may open.
  const transactions = transactionClients(adapter, poolSize, clientOptions);
  return {
    kind: 'postgres',
    prisma,
    openTransaction: () => transactions.open(),
    withMigrationAdapter: async (work) => {
      const single = new pg.Pool({ connectionString: url, max: 1 });
      try {
        return await work(wholeScriptFactory(new PrismaPg(single), (script) => single.query(script)));
      } finally {
        await single.end();
      }
    },
    hotQuery: async <Row>(name: string, sql: string, values: unknown[]) => (await pool.query<Row & pg.QueryResultRow>({ name, text: sql, values })).rows,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: (channel, handlers) => listenOnPostgres(url, channel, handlers),
    close: async () => {
      await transactions.close();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
