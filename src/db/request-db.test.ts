// Request transactions (request-db.ts), on clients of their own (transaction-clients.ts), on both databases: every
// statement of a request runs in one transaction, as its caller, whose context is set once; a rollback
// keeps nothing; the caller arrives intact whatever it holds; a COMMIT after a failed statement fails the request
// (the COMMIT's answer is checked); Prisma's own transactions outside requests stay atomic; and every
// connection goes back to the pool; a client kept past its transaction runs nothing.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../testkit/database.js';
import { countStatements } from '../testkit/statements.js';
import { appRole, RequestDb, rolledBackAtCommit } from './request-db.js';
import { isDatabaseUnavailable } from './unavailable.js';

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
const insert = async (request: RequestDb, note: string) => (await request.tx()).$executeRaw`INSERT INTO begin_probe VALUES (${note})`;
const insertRaw = (request: RequestDb, note: string) => request.query('INSERT INTO begin_probe VALUES ($1) RETURNING note', [note]);
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
    // After the end, the connection may be another request's: refused.
    await expect(seen(next)).rejects.toThrow();
    await expect(new RequestDb(db.database, null).finish(true)).resolves.toBeUndefined();
  });

  it('keep nothing when rolled back, and everything when committed', async () => {
    const rolledBack = new RequestDb(db.database, 'someone');
    await insert(rolledBack, 'rolled back');
    await rolledBack.finish(false);
    const committed = new RequestDb(db.database, 'someone');
    await insert(committed, 'committed');
    await committed.finish(true);
    expect(await notes()).toEqual(['committed']);
  });

  it('keep the caller intact, whatever it holds (quotes, backslashes, SQL)', async () => {
    const request = new RequestDb(db.database, `o'hare\\'); DROP TABLE begin_probe; --`);
    expect((await seen(request)).user_id).toBe(`o'hare\\'); DROP TABLE begin_probe; --`);
    await request.finish(true);
    expect(await notes()).toEqual(['committed']);
  });

  it('fail a request whose COMMIT would be a rollback (a statement had failed and the request went on), keeping nothing', async () => {
    const request = new RequestDb(db.database, 'someone');
    await insert(request, 'lost with the rest');
    // A failed statement the request swallowed: the transaction is aborted.
    await expect(insert(request, 'committed')).rejects.toThrow();
    await expect(request.finish(true)).rejects.toThrow(rolledBackAtCommit);
    expect(await notes()).toEqual(['committed']);
    // The connection is fine for the next request.
    const next = new RequestDb(db.database, 'someone');
    await insert(next, 'next');
    await next.finish(true);
    expect(await notes()).toEqual(['committed', 'next']);
  });

  it('leave Prisma\'s own transactions, outside requests, atomic (a failing second statement undoes the first)', async () => {
    await expect(
      db.database.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`INSERT INTO begin_probe VALUES ('undone')`;
        await tx.$executeRaw`INSERT INTO begin_probe VALUES ('committed')`; // a duplicate key
      }),
    ).rejects.toThrow();
    expect(await notes()).toEqual(['committed', 'next']);
    // the same when the first statement has parameters (on PostgreSQL its BEGIN goes before it, not with it)
    await expect(
      db.database.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`INSERT INTO begin_probe VALUES (${'undone'})`;
        await tx.$executeRaw`INSERT INTO begin_probe VALUES (${'committed'})`;
      }),
    ).rejects.toThrow();
    // and an empty one is fine
    await db.database.prisma.$transaction(async () => {});
    expect(await notes()).toEqual(['committed', 'next']);
  });

  it('run raw statements (query) and Prisma\'s client in the same transaction, in any order, ended as one', async () => {
    const request = new RequestDb(db.database, 'ann');
    expect(await insertRaw(request, 'raw first')).toEqual([{ note: 'raw first' }]);
    const [caller] = await request.query<{ user_id: string; role: string; xid: string }>(
      `SELECT current_setting('app.user_id') AS user_id, current_user::text AS role, txid_current()::text AS xid`,
      [],
    );
    expect(caller).toMatchObject({ user_id: 'ann', role: appRole });
    expect((await seen(request)).xid).toBe(caller!.xid);
    await insert(request, 'prisma second');
    await insertRaw(request, 'raw third');
    expect((await request.query<{ note: string }>('SELECT note FROM begin_probe WHERE note = ANY($1::text[]) ORDER BY note', [['prisma second', 'raw first']])).map((r) => r.note)).toEqual(['prisma second', 'raw first']);
    await request.finish(false);
    expect(await notes()).toEqual(['committed', 'next']);

    const kept = new RequestDb(db.database, 'ann');
    await insertRaw(kept, 'raw only');
    await kept.finish(true);
    await expect(insertRaw(kept, 'too late')).rejects.toThrow('after the request transaction ended');
    const both = new RequestDb(db.database, 'ann');
    await insert(both, 'prisma then');
    await insertRaw(both, 'raw now');
    await both.finish(true);
    expect(await notes()).toEqual(['committed', 'next', 'prisma then', 'raw now', 'raw only']);
    await db.database.prisma.$executeRawUnsafe(`DELETE FROM begin_probe WHERE note NOT IN ('committed', 'next')`);
  });

  it('fail a request whose raw statement failed and that went on to commit, keeping nothing', async () => {
    const request = new RequestDb(db.database, 'someone');
    await insertRaw(request, 'lost too');
    await expect(insertRaw(request, 'committed')).rejects.toThrow();
    await expect(request.finish(true)).rejects.toThrow(rolledBackAtCommit);
    expect(await notes()).toEqual(['committed', 'next']);
  });

  it('run the afterCommit work after a commit and the onRollback work after a rollback or a failed commit, never both', async () => {
    const ran: string[] = [];
    const queue = (request: RequestDb, name: string) => {
      request.afterCommit(async () => void ran.push(`${name}: committed`));
      request.onRollback(async () => void ran.push(`${name}: rolled back`));
    };
    const committed = new RequestDb(db.database, 'someone');
    queue(committed, 'kept');
    await insertRaw(committed, 'kept by its commit');
    await committed.finish(true);
    const rolledBack = new RequestDb(db.database, 'someone');
    queue(rolledBack, 'undone');
    await insertRaw(rolledBack, 'undone by its rollback');
    await rolledBack.finish(false);
    const failedCommit = new RequestDb(db.database, 'someone');
    queue(failedCommit, 'failed');
    await expect(insertRaw(failedCommit, 'committed')).rejects.toThrow(); // a duplicate key: the transaction is aborted
    await expect(failedCommit.finish(true)).rejects.toThrow(rolledBackAtCommit);
    const untouched = new RequestDb(db.database, 'someone');
    queue(untouched, 'no statement');
    await untouched.finish(false);
    expect(ran).toEqual(['kept: committed', 'undone: rolled back', 'failed: rolled back', 'no statement: rolled back']);
    expect(await notes()).toEqual(['committed', 'kept by its commit', 'next']);
    await db.database.prisma.$executeRawUnsafe(`DELETE FROM begin_probe WHERE note = 'kept by its commit'`);
  });

  it('refuse statements while a phase that holds no connection runs, and take them again after it', async () => {
    const request = new RequestDb(db.database, 'someone');
    await request.without('the network phase', async () => {
      await expect(request.tx()).rejects.toThrow('No statement may run during the network phase');
      await expect(request.query('SELECT 1', [])).rejects.toThrow('No statement may run during the network phase');
    });
    expect(await request.query<{ one: number }>('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
    await request.finish(true);
  });

  it('roll back a transaction still open after 30 s (a request with a bug), so that the connection serves others, and fail that request', async () => {
    const request = new RequestDb(db.database, 'someone');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await insertRaw(request, 'held too long');
      vi.advanceTimersByTime(30_000);
    } finally {
      vi.useRealTimers();
    }
    await expect(request.finish(true)).rejects.toThrow('still open after 30 s');
    const next = new RequestDb(db.database, 'someone');
    await insertRaw(next, 'served');
    await next.finish(true);
    expect(await notes()).toEqual(['committed', 'next', 'served']);
    await db.database.prisma.$executeRawUnsafe(`DELETE FROM begin_probe WHERE note = 'served'`);
  });

  it('refuse a client kept past its transaction: nothing it runs lands in the transaction of the next request to hold it', async () => {
    const first = new RequestDb(db.database, 'first');
    const kept = await first.tx();
    const madeBefore = kept.$executeRaw`INSERT INTO begin_probe VALUES ('late')`; // Prisma runs it when awaited
    await first.finish(true);
    const next = new RequestDb(db.database, 'next');
    expect((await seen(next)).user_id).toBe('next');
    await expect(madeBefore).rejects.toThrow('used after its transaction ended');
    expect(() => kept.$queryRaw`SELECT 1`).toThrow('used after its transaction ended');
    expect(() => kept.user).toThrow('used after its transaction ended');
    await next.finish(true);
    expect(await notes()).toEqual(['committed', 'next']);
  });

  it('fail a request that waited 30 s for a transaction while all were in use, as the database being unavailable (503, retry later)', async () => {
    // As many request transactions as the test database has connections (testkit/database.ts: 1 on PGlite, 5 on PostgreSQL).
    const holders = Array.from({ length: db.database.kind === 'pglite' ? 1 : 5 }, (_, i) => new RequestDb(db.database, `holder ${i}`));
    await Promise.all(holders.map((holder) => holder.tx()));
    const late = new RequestDb(db.database, 'late');
    let outcome: Promise<unknown>;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      outcome = late.tx().then(() => 'opened', (error: unknown) => error);
      vi.advanceTimersByTime(30_000);
    } finally {
      vi.useRealTimers();
    }
    expect(isDatabaseUnavailable(await outcome)).toBe(true);
    await late.finish(false).catch(() => {});
    await Promise.all(holders.map((holder) => holder.finish(false)));
    const next = new RequestDb(db.database, 'next');
    expect((await seen(next)).user_id).toBe('next');
    await next.finish(false);
  });

  it.runIf(testDatabaseUrl !== undefined)('on PostgreSQL, send the BEGIN in one message with the caller\'s entry: a one-statement request is three round trips', async () => {
    const counter = countStatements();
    try {
      const request = new RequestDb(db.database, 'ann');
      const [row] = await request.query<{ user_id: string }>(`SELECT current_setting('app.user_id') AS user_id`, []);
      await request.finish(true);
      expect(row?.user_id).toBe('ann');
      // BEGIN with the entry, the statement, COMMIT
      expect(counter.statements()).toBe(3);
    } finally {
      counter.stop();
    }
  });

  // PGlite has one connection: its transactions queue, so two requests are never open at once there.
  it.runIf(testDatabaseUrl !== undefined)('on PostgreSQL, keep two requests at once apart, and return every connection to the pool', async () => {
    const [ann, bob] = [new RequestDb(db.database, 'ann'), new RequestDb(db.database, 'bob')];
    const [annSeen, bobSeen] = await Promise.all([seen(ann), seen(bob)]);
    expect([annSeen.user_id, bobSeen.user_id]).toEqual(['ann', 'bob']);
    expect(annSeen.xid).not.toBe(bobSeen.xid);
    await Promise.all([ann.finish(true), bob.finish(false)]);
    const requests = Array.from({ length: 12 }, (_, i) => new RequestDb(db.database, `caller ${i}`));
    // Prisma's own transactions at the same moment never land in a request's, nor a request in another's.
    const system = Array.from({ length: 4 }, () =>
      db.database.prisma.$transaction(async (tx) => (await tx.$queryRaw<{ role: string; user_id: string | null }[]>`SELECT current_user::text AS role, current_setting('app.user_id', true) AS user_id`)[0]!),
    );
    await Promise.all(
      requests.map(async (request, i) => {
        if (i % 3 !== 2) expect((await seen(request)).user_id).toBe(`caller ${i}`);
        if (i % 4 === 1) await (await request.tx()).$queryRawUnsafe('SELECT 1 / 0').catch(() => {});
        if (i % 3 === 2) await request.query('SELECT 1', []).catch(() => {});
        await request.finish(i % 2 === 0).catch(() => {});
      }),
    );
    for (const seenBySystem of await Promise.all(system)) expect(seenBySystem.role).not.toBe(appRole);
    expect(db.database.poolStats()).toMatchObject({ idle: db.database.poolStats().total, waiting: 0 });
  });
});
