// Prisma's schema engine (WebAssembly, schema-engine.ts) as a script that migrates meets it, and when
// it is loaded at all: a database that records every migration of the folder, unchanged and none
// failed, is not handed to it (upToDate); anything else is.
// Once the engine ran, nothing of it keeps the process alive: it arms a 10 s timer with each run and
// never clears it; `npm run generate`'s scripts, which boot an app on a migrated database, each exited
// 8–9 s after their work was done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testkit/database.js';
import { applyMigrations, readMigrationList, upToDate } from './migrations.js';
import { migrationsDir } from './paths.js';

/** The timers keeping the event loop alive right now (unref'd ones are not counted). */
const heldTimers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

/** Runs `change` on the file's migrated database's _prisma_migrations, and `work`, then puts the table back as it was. */
async function withRecordChanged<T>(change: string, work: () => Promise<T>): Promise<T> {
  const prisma = db.database.prisma;
  await prisma.$executeRawUnsafe('CREATE TABLE kept_migrations AS SELECT * FROM _prisma_migrations');
  try {
    await prisma.$executeRawUnsafe(change);
    return await work();
  } finally {
    await prisma.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS _prisma_migrations (LIKE kept_migrations INCLUDING ALL)');
    await prisma.$executeRawUnsafe('DELETE FROM _prisma_migrations');
    await prisma.$executeRawUnsafe('INSERT INTO _prisma_migrations SELECT * FROM kept_migrations');
    await prisma.$executeRawUnsafe('DROP TABLE kept_migrations');
  }
}

describe('the schema engine', () => {
  it('is not needed when every migration is recorded applied and unchanged; a new, edited or failed one is its to decide', async () => {
    const list = await readMigrationList(migrationsDir);
    const last = list.migrationDirectories.at(-1)!.path;
    expect(await upToDate(db.database, list)).toBe(true);
    expect(await withRecordChanged(`DELETE FROM _prisma_migrations WHERE migration_name = '${last}'`, () => upToDate(db.database, list))).toBe(false);
    expect(await withRecordChanged(`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '${last}'`, () => upToDate(db.database, list))).toBe(false);
    expect(await withRecordChanged(`UPDATE _prisma_migrations SET checksum = repeat('0', 64) WHERE migration_name = '${last}'`, () => upToDate(db.database, list))).toBe(false);
    expect(await withRecordChanged(`UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = '${last}'`, () => upToDate(db.database, list))).toBe(false);
    expect(await withRecordChanged('DROP TABLE _prisma_migrations', () => upToDate(db.database, list))).toBe(false);
  });

  it('holds no timer once it applied migrations, so a script that migrated exits when its work is done', async () => {
    // An edited migration (its checksum changed) takes the engine's path; it applies nothing for it.
    const last = (await readMigrationList(migrationsDir)).migrationDirectories.at(-1)!.path;
    await withRecordChanged(`UPDATE _prisma_migrations SET checksum = repeat('0', 64) WHERE migration_name = '${last}'`, async () => {
      const before = heldTimers();
      expect(await applyMigrations(db.database, migrationsDir)).toEqual([]);
      // Another timer of the process may have ended meanwhile; the engine's would be one more.
      expect(heldTimers()).toBeLessThanOrEqual(before);
    });
  });
});
