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

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates and migrates a database no other test file uses. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!testDatabaseUrl) {
    const database = await openDatabase({ dataDir: 'memory://', poolSize: 1 });
    await applyMigrations(database, migrationsDir);
    return { database, url: undefined, drop: () => database.close() };
  }
  const name = `test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), dataDir: '', poolSize: 5 });
  await applyMigrations(database, migrationsDir);
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await database.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
