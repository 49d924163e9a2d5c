// The database a restore goes into: it must hold no rows, and it is brought to the backup's migrations
// (no further: the server applies newer ones of its code when it starts, to the restored rows as to any).
import type { Database } from '../db/database.js';
import { readMigrationList } from '../db/migrations.js';
import { migrationsDir } from '../db/paths.js';
import { openSchemaEngine } from '../db/schema-engine.js';
import { readAppliedMigrations, readTables, tablesWithRows } from './catalog.js';
import type { Manifest } from './manifest.js';

/** A restore this database or this code cannot take; nothing was written. */
export class RestoreRefusedError extends Error {}

/** Refuses a database with rows in any table (Prisma's bookkeeping of migrations aside). */
export async function assertEmpty(database: Database): Promise<void> {
  const held = await tablesWithRows(database.prisma, await readTables(database.prisma));
  if (held.length) {
    const named = held.slice(0, 3).join(', ') + (held.length > 3 ? ` and ${held.length - 3} more` : '');
    throw new RestoreRefusedError(`the database is not empty (${named} hold rows): restore into an empty one (a new DATA_DIR, or a new PostgreSQL database)`);
  }
}

/**
 * Refuses a backup taken at migrations this code does not have, or a database already past the
 * backup's migrations; otherwise applies the backup's migrations that are not applied yet.
 */
export async function migrateToBackup(database: Database, manifest: Manifest): Promise<string[]> {
  const list = await readMigrationList(migrationsDir);
  const known = new Set(list.migrationDirectories.map((d) => d.path));
  const unknown = manifest.migrations.filter((name) => !known.has(name));
  if (unknown.length) {
    throw new RestoreRefusedError(`the backup was taken at migrations this version of the platform does not have (${unknown.join(', ')}): restore it with the version that took it, or a newer one`);
  }
  const wanted = new Set(manifest.migrations);
  const beyond = (await readAppliedMigrations(database.prisma)).filter((name) => !wanted.has(name));
  if (beyond.length) {
    throw new RestoreRefusedError(`the database has migrations the backup was not taken at (${beyond.join(', ')}): restore into a new, empty database`);
  }
  return database.withMigrationAdapter(async (factory) => {
    const engine = await openSchemaEngine(factory);
    try {
      const migrationsList = { ...list, migrationDirectories: list.migrationDirectories.filter((d) => wanted.has(d.path)) };
      const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters: { externalTables: [], externalEnums: [] } });
      return appliedMigrationNames;
    } finally {
      engine.free();
    }
  });
}
