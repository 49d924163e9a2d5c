// Request transactions (request-db.ts): every statement of a request, through Prisma or hotQuery,
// runs in one transaction as its caller; a rollback keeps nothing; values are escaped; Prisma's own
// transactions outside requests stay atomic (begin-with-caller.ts holds their BEGIN on PostgreSQL). A
// request whose first statement is hot runs on the driver on PostgreSQL (caller-transactions.ts):
// never entering Prisma, refusing Prisma afterwards, failing when PostgreSQL turns its COMMIT into a
// rollback; and every connection goes back to the pool.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../testkit/database.js';
import { appRole, RequestDb } from './request-db.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.database.prisma.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS begin_probe (note text PRIMARY KEY)');
  await db.database.prisma.$executeRawUnsafe(`GRANT SELECT, INSERT ON begin_probe TO ${appRole}`);
});
afterAll(() => db.drop());

type Seen = { user_id: string; role: string; started: Date; xid: string };
const seen = async (request: RequestDb): Promise<Seen> => {
  const tx = await request.tx();
  const [row] = await tx.$queryRaw<Seen[]>`SELECT current_setting('app.user_id') AS user_id, current_user::text AS role,
                                                   now() AS started, txid_current()::text AS xid`;
  return row!;
};
const seenHot = async (request: RequestDb): Promise<Omit<Seen, 'started'>> => {
  const [row] = await request.hotQuery<Omit<Seen, 'started'>>(
    'begin_probe_seen',
    `SELECT current_setting('app.user_id') AS user_id, current_user::text AS role, txid_current()::text AS xid`,
    [],
  );
  return row!;
};
const notes = async () => (await db.database.prisma.$queryRaw<{ note: string }[]>`SELECT note FROM begin_probe ORDER BY note`).map((r) => r.note);

describe('request transactions', () => {
  it('run every statement of a request in one transaction, as its caller', async () => {
    const request = new RequestDb(db.database, '5b0c1a4e-9d7f-4c1e-8a11-2f3e4d5c6b7a');
    const first = await seen(request);
    const second = await seen(request);
    await request.finish(true);
    expect(first).toMatchObject({ user_id: '5b0c1a4e-9d7f-4c1e-8a11-2f3e4d5c6b7a', role: appRole });
    expect(second).toEqual(first);
    const next = new RequestDb(db.database, null);
    const other = await seen(next);
    await next.finish(true);
    expect(other.xid).not.toBe(first.xid);
    expect(other.user_id).toBe('');
  });

  it('keep nothing when rolled back, and everything when committed', async () => {
    const rolledBack = new RequestDb(db.database, 'someone');
    await (await rolledBack.tx()).$executeRaw`INSERT INTO begin_probe VALUES ('rolled back')`;
    await rolledBack.finish(false);
    const committed = new RequestDb(db.database, 'someone');
    await (await committed.tx()).$executeRaw`INSERT INTO begin_probe VALUES ('committed')`;
    await committed.finish(true);
    expect(await notes()).toEqual(['committed']);
  });

  it('pass the caller as a value, whatever it holds', async () => {
    const request = new RequestDb(db.database, `o'hare\\'); DROP TABLE begin_probe; --`);
    expect((await seen(request)).user_id).toBe(`o'hare\\'); DROP TABLE begin_probe; --`);
    await request.finish(true);
    expect(await notes()).toEqual(['committed']);
  });

  it('leave Prisma\'s own transactions, outside requests, atomic (a failing second statement undoes the first)', async () => {
    await expect(
      db.database.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`INSERT INTO begin_probe VALUES ('undone')`;
        await tx.$executeRaw`INSERT INTO begin_probe VALUES ('committed')`; // a duplicate key
      }),
    ).rejects.toThrow();
    expect(await notes()).toEqual(['committed']);
    // and an empty one is fine
    await db.database.prisma.$transaction(async () => {});
    expect(await notes()).toEqual(['committed']);
  });

  it('run a request\'s hot statements in its own transaction, as its caller, before Prisma or after it', async () => {
    // After Prisma: in Prisma's transaction.
    const ann = new RequestDb(db.database, 'ann');
    const annPrisma = await seen(ann);
    expect(await seenHot(ann)).toEqual({ user_id: 'ann', role: appRole, xid: annPrisma.xid });
    await ann.finish(true);
    // First: every hot statement of the request in one transaction.
    const bob = new RequestDb(db.database, 'bob');
    const bobHot = await seenHot(bob);
    expect(bobHot).toMatchObject({ user_id: 'bob', role: appRole });
    expect(await seenHot(bob)).toEqual(bobHot);
    if (testDatabaseUrl) {
      // On the driver: Prisma cannot join that transaction, and says so rather than open another.
      await expect(bob.tx()).rejects.toThrow(/Prisma cannot join/);
    } else {
      expect((await seen(bob)).xid).toBe(bobHot.xid);
    }
    await bob.finish(true);
    expect(bobHot.xid).not.toBe(annPrisma.xid);
    // After the end, the connection may be another request's: refused.
    await expect(seenHot(ann)).rejects.toThrow(/after the request transaction ended/);
    await expect(seenHot(bob)).rejects.toThrow(/after the request transaction ended/);
  });

  it('commit and roll back hot statements with the request', async () => {
    const insert = (request: RequestDb, note: string) => request.hotQuery('begin_probe_insert', 'INSERT INTO begin_probe VALUES ($1) RETURNING note', [note]);
    const rolledBack = new RequestDb(db.database, 'someone');
    expect(await insert(rolledBack, 'hot rolled back')).toEqual([{ note: 'hot rolled back' }]);
    await rolledBack.finish(false);
    const committed = new RequestDb(db.database, 'someone');
    await insert(committed, 'hot committed');
    await committed.finish(true);
    expect(await notes()).toEqual(['committed', 'hot committed']);
  });

  // PGlite has one connection: its transactions queue, so two requests are never open at once there.
  it.runIf(testDatabaseUrl !== undefined)('on PostgreSQL, run hot statements prepared on each transaction\'s own connection, two requests at once', async () => {
    const [ann, bob] = [new RequestDb(db.database, 'ann'), new RequestDb(db.database, 'bob')];
    const [annHot, bobHot] = await Promise.all([seenHot(ann), seenHot(bob)]);
    const [annAgain, bobAgain] = await Promise.all([seenHot(ann), seenHot(bob)]);
    expect(annHot).toMatchObject({ user_id: 'ann', role: appRole });
    expect(bobHot).toMatchObject({ user_id: 'bob', role: appRole });
    expect([annAgain, bobAgain]).toEqual([annHot, bobHot]);
    expect(annHot.xid).not.toBe(bobHot.xid);
    const prepared = await ann.hotQuery<{ n: number }>('begin_probe_prepared', `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'begin_probe_seen'`, []);
    await Promise.all([ann.finish(true), bob.finish(true)]);
    expect(prepared).toEqual([{ n: 1 }]);
  });

  it('never enter Prisma for a request made of hot statements alone (on PostgreSQL)', async () => {
    const transactions = vi.spyOn(db.database.prisma, '$transaction');
    try {
      const request = new RequestDb(db.database, 'hot only');
      expect(await seenHot(request)).toMatchObject({ user_id: 'hot only', role: appRole });
      await request.finish(true);
      expect(transactions).toHaveBeenCalledTimes(testDatabaseUrl ? 0 : 1);
    } finally {
      transactions.mockRestore();
    }
  });

  it.runIf(testDatabaseUrl !== undefined)('on PostgreSQL, fail a request whose COMMIT PostgreSQL turns into a rollback, keeping nothing', async () => {
    const request = new RequestDb(db.database, 'someone');
    await request.hotQuery('begin_probe_insert', 'INSERT INTO begin_probe VALUES ($1) RETURNING note', ['lost with the rest']);
    // A failed statement the request swallowed: the transaction is aborted.
    await expect(request.hotQuery('begin_probe_insert', 'INSERT INTO begin_probe VALUES ($1) RETURNING note', ['committed'])).rejects.toThrow();
    await expect(request.finish(true)).rejects.toThrow(/rolled back at COMMIT/);
    expect(await notes()).not.toContain('lost with the rest');
  });

  it.runIf(testDatabaseUrl !== undefined)('on PostgreSQL, return every connection to the pool, whatever the requests did', async () => {
    const requests = Array.from({ length: 12 }, (_, i) => new RequestDb(db.database, `caller ${i}`));
    await Promise.all(
      requests.map(async (request, i) => {
        // Prisma's transactions, the driver's, and some that never open one.
        if (i % 3 === 0) await seen(request);
        if (i % 3 !== 2) await seenHot(request);
        if (i % 4 === 1) await request.hotQuery('begin_probe_fail', 'SELECT 1 / 0', []).catch(() => {});
        await request.finish(i % 2 === 0).catch(() => {});
      }),
    );
    expect(db.database.poolStats()).toMatchObject({ idle: db.database.poolStats().total, waiting: 0 });
  });
});
