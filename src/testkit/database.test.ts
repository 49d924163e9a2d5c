// Test databases made one after another in a worker (createTestDatabase): each begins as the migrated
// template, whatever the one before it did. On PGlite the instance a dropped database was on is lent
// to the next one (pglite-lease.ts), so these are the guarantees the suite's isolation rests on; on
// PostgreSQL each is a new database and they hold as plainly.
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from './database.js';

const outbox = "SELECT count(*)::int AS n FROM email_outbox";
const nextEvent = "SELECT nextval(pg_get_serial_sequence('entity_events', 'id'))::int AS n";

describe('a test database made after another one was dropped', () => {
  it('holds none of its rows, sequence values or session settings', async () => {
    const first = await createTestDatabase();
    const before = first.database.prisma;
    const [{ n: start }] = await before.$queryRawUnsafe<[{ n: number }]>(nextEvent);
    await before.emailOutbox.create({ data: { recipient: 'a@example.com', subject: 'left behind', body: '', status: 'pending' } });
    for (let i = 0; i < 3; i++) await before.$queryRawUnsafe(nextEvent);
    await before.$executeRawUnsafe("SELECT set_config('app.user_id', 'left-behind', false)");
    await first.drop();

    const second = await createTestDatabase();
    try {
      const after = second.database.prisma;
      expect(await after.$queryRawUnsafe(outbox)).toEqual([{ n: 0 }]);
      expect(await after.$queryRawUnsafe(nextEvent)).toEqual([{ n: start }]);
      expect(await after.$queryRawUnsafe("SELECT coalesce(current_setting('app.user_id', true), '') AS v")).toEqual([{ v: '' }]);
      // The migrations' record is the template's.
      expect((await after.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL'))[0]!.n).toBeGreaterThan(5);
      // The dropped database's client reaches no database: not this one, on the same PGlite.
      await expect(before.$queryRawUnsafe(outbox)).rejects.toThrow();
    } finally {
      await second.drop();
    }
  });

  it('has none of its schema changes', async () => {
    const first = await createTestDatabase();
    const before = first.database.prisma;
    await before.$executeRawUnsafe('CREATE TABLE left_behind (n int)');
    await before.$executeRawUnsafe('ALTER TABLE email_outbox DROP COLUMN error');
    await first.drop();

    const second = await createTestDatabase();
    try {
      const after = second.database.prisma;
      expect(await after.$queryRawUnsafe("SELECT to_regclass('left_behind') IS NULL AS gone")).toEqual([{ gone: true }]);
      expect(await after.$queryRawUnsafe("SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'email_outbox' AND column_name = 'error'")).toEqual([{ n: 1 }]);
      expect(await after.$queryRawUnsafe(outbox)).toEqual([{ n: 0 }]);
    } finally {
      await second.drop();
    }
  });
});
