// Prisma's schema engine (WebAssembly, schema-engine.ts) as a script that migrates meets it: once the
// migrations are applied, nothing of the engine keeps the process alive. It arms a 10 s timer with
// each run and never clears it; `npm run generate`'s scripts, which boot an app on a migrated
// database, each exited 8–9 s after their work was done.
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../testkit/database.js';
import { applyMigrations } from './migrations.js';
import { migrationsDir } from './paths.js';

/** The timers keeping the event loop alive right now (unref'd ones are not counted). */
const heldTimers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

describe('the schema engine', () => {
  it('holds no timer once migrations are applied, so a script that migrated exits when its work is done', async () => {
    const db = await createTestDatabase();
    try {
      const before = heldTimers();
      expect(await applyMigrations(db.database, migrationsDir)).toEqual([]);
      expect(heldTimers()).toBe(before);
    } finally {
      await db.drop();
    }
  });
});
