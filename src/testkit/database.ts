// A fresh, migrated database per test file: in-memory PGlite by default, or a new PostgreSQL database
// on the server named by TEST_DATABASE_URL (dropped afterwards).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../db/database.js';
import { applyMigrations } from '../db/migrations.js';
import { migrationsDir } from '../db/paths.js';

export interface TestDatabase {
  database: Database;
  /** The connection string of the PostgreSQL database, when testing on PostgreSQL. */
  url: string | undefined;
  drop(): Promise<void>;
}

/** The PostgreSQL server tests run against, if any. */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

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

/** Creates and migrates a database no other test file uses. */
export async function createTestDatabase({ serverUrl = testDatabaseUrl, password }: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (!serverUrl) {
    const database = await openDatabase({ dataDir: 'memory://', poolSize: 1 });
    await applyMigrations(database, migrationsDir);
    return { database, url: undefined, drop: () => database.close() };
  }
  const name = `test_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  if (password && !url.password) url.password = password;
  const database = await openDatabase({ url: url.toString(), dataDir: '', poolSize: 5 });
  await applyMigrations(database, migrationsDir);
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await database.close();
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
