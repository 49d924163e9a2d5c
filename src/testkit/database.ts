// A fresh, migrated database per test file: in-memory PGlite by default, or a new PostgreSQL database
// on the server named by TEST_DATABASE_URL (dropped afterwards). Each starts as a copy of one template
// the run migrated once (global-setup.ts): a dump of a PGlite data directory loaded into memory, or a
// PostgreSQL database copied by CREATE DATABASE … TEMPLATE. Migrating anew cost 3.6–6.6 s of CPU per
// database on PGlite (its initdb, then every migration through the schema engine), a copy ~0.6 s; a
// copy the worker's previous test file dropped, emptied again, a few milliseconds (pglite-lease.ts).
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { createPglite, openDatabase, type Database } from '../db/database.js';
import { applyMigrations } from '../db/migrations.js';
import { migrationsDir } from '../db/paths.js';
import { leasePglite } from './pglite-lease.js';

/** The run's migrated template: a PGlite dump's file, or a PostgreSQL database on TEST_DATABASE_URL's server. */
export type DatabaseTemplate = { kind: 'pglite'; dump: string; dataDir: string } | { kind: 'postgres'; name: string };

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplate: DatabaseTemplate | null;
  }
}

export interface TestDatabase {
  database: Database;
  /** The connection string of the PostgreSQL database, when testing on PostgreSQL. */
  url: string | undefined;
  drop(): Promise<void>;
}

/** The PostgreSQL server tests run against, if any. */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

/** The URL of database `name` on the server of `serverUrl`. */
function databaseUrl(serverUrl: string, name: string): URL {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url;
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface TestDatabaseOptions {
  /** The PostgreSQL server to make the database on; default TEST_DATABASE_URL (none: PGlite). */
  serverUrl?: string;
  /** A password put in the database's URL when it has none (trust authentication ignores it): a secret for logs to leak. */
  password?: string;
}

/** The run's template (global-setup.ts), if this runs under vitest with it. */
function runTemplate(): DatabaseTemplate | null {
  try {
    return inject('databaseTemplate') ?? null;
  } catch {
    return null;
  }
}

/** Creates a migrated database no other test file uses: a copy of the run's template, or migrated here without one. */
export async function createTestDatabase({ serverUrl = testDatabaseUrl, password }: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const template = runTemplate();
  if (!serverUrl) {
    // The worker's copy of the template, lent to this database (pglite-lease.ts); without a template, a new PGlite migrated here.
    const lease = template?.kind === 'pglite' ? await leasePglite(template.dump) : undefined;
    const database = await openDatabase({ dataDir: 'memory://', poolSize: 1, pglite: lease?.pglite });
    if (!lease) await applyMigrations(database, migrationsDir);
    return { database, url: undefined, drop: () => database.close().finally(() => lease?.release()) };
  }
  const name = `test_${randomBytes(6).toString('hex')}`;
  const copied = template?.kind === 'postgres' && serverUrl === testDatabaseUrl;
  await adminQuery(serverUrl, copied ? `CREATE DATABASE ${name} TEMPLATE ${template.name}` : `CREATE DATABASE ${name}`);
  const url = databaseUrl(serverUrl, name);
  if (password && !url.password) url.password = password;
  const database = await openDatabase({ url: url.toString(), dataDir: '', poolSize: 5 });
  if (!copied) await applyMigrations(database, migrationsDir);
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await database.close();
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Pages of zeros kept after a segment's last WAL record: recovery ends where it finds them. */
const walPagesAfterEnd = 8;

/**
 * Cuts a closed PGlite data directory's WAL to what starting it reads: the current segment up to its
 * last record (`offset`; the shutdown's checkpoint follows within a page) and a few pages of zeros,
 * instead of its 16 MB, and no segment recycled for later use. PostgreSQL writes on from there and
 * makes new segments as it needs them.
 */
async function cutWal(dataDir: string, segment: string, offset: number): Promise<void> {
  const wal = path.join(dataDir, 'pg_wal');
  for (const name of await readdir(wal)) {
    if (name === segment) await truncate(path.join(wal, name), (Math.ceil(offset / 8192) + walPagesAfterEnd) * 8192);
    else if (/^[0-9A-F]{24}$/.test(name)) await rm(path.join(wal, name));
  }
}

/** Fills an empty DATA_DIR for a server process with the run's migrated PGlite template, if there is one (else the process migrates it). */
export async function seedDataDir(dataDir: string): Promise<void> {
  const template = runTemplate();
  if (template?.kind === 'pglite') await cp(path.join(template.dataDir, 'pglite'), path.join(dataDir, 'pglite'), { recursive: true });
}

/**
 * Migrates the run's template once (global-setup.ts) and returns it with how to remove it: on PGlite a
 * data directory migrated on disk through the product's own path, then dumped to a file; on PostgreSQL
 * a database no one stays connected to (CREATE DATABASE … TEMPLATE refuses a template in use).
 */
export async function createDatabaseTemplate(): Promise<{ template: DatabaseTemplate; remove(): Promise<void> }> {
  if (!testDatabaseUrl) {
    const dir = await mkdtemp(path.join(tmpdir(), 'platform-template-'));
    const database = await openDatabase({ dataDir: dir, poolSize: 1, holder: 'migrations' });
    await applyMigrations(database, migrationsDir).finally(() => database.close());
    const dataDir = path.join(dir, 'pglite');
    const open = () => createPglite(dir);
    let pglite = await open();
    let current: { file_name: string; file_offset: number };
    try {
      // The app's database is `postgres`; template0 and template1, which no test copies from, were 15 of
      // the dump's 43 MB, loaded again by every test file (~150 ms of CPU each). Then a new WAL segment
      // holding only a checkpoint: the last one's 16 MB were most of the rest (cutWal).
      for (const sql of [`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`, 'DROP DATABASE template0', 'DROP DATABASE template1', 'SELECT pg_switch_wal()', 'CHECKPOINT']) await pglite.query(sql);
      [current] = (await pglite.query<typeof current>('SELECT file_name, file_offset FROM pg_walfile_name_offset(pg_current_wal_lsn())')).rows as [typeof current];
    } finally {
      await pglite.close();
    }
    await cutWal(dataDir, current.file_name, current.file_offset);
    // Opened again on the cut WAL (which servers the tests start copy: seedDataDir), and dumped.
    pglite = await open();
    const dump = path.join(dir, 'template.tar');
    try {
      await writeFile(dump, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
    } finally {
      await pglite.close();
    }
    return { template: { kind: 'pglite', dump, dataDir: dir }, remove: () => rm(dir, { recursive: true, force: true }) };
  }
  const name = `test_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(testDatabaseUrl, `CREATE DATABASE ${name}`);
  const database = await openDatabase({ url: databaseUrl(testDatabaseUrl, name).toString(), dataDir: '', poolSize: 1 });
  await applyMigrations(database, migrationsDir).finally(() => database.close());
  return { template: { kind: 'postgres', name }, remove: () => adminQuery(testDatabaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
