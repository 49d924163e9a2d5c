// Request transactions (request-db.ts), one mechanism on both databases: every statement of a request
// runs in one transaction, as its caller, whose context is set once; a rollback keeps nothing; the
// caller is passed as a value; a COMMIT after a failed statement fails the request (commit-guard.ts);
// Prisma's own transactions outside requests stay atomic (begin-with-caller.ts holds their BEGIN on
// PostgreSQL until their first statement); and every connection goes back to the pool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../testkit/database.js';
import { rolledBackAtCommit } from './commit-guard.js';
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
const insert = async (request: RequestDb, note: string) => (await request.tx()).$executeRaw`INSERT INTO begin_probe VALUES (${note})`;
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

  it('pass the caller as a value, whatever it holds', async () => {
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
    // and an empty one is fine
    await db.database.prisma.$transaction(async () => {});
    expect(await notes()).toEqual(['committed', 'next']);
  });

  // PGlite has one connection: its transactions queue, so two requests are never open at once there.
  it.runIf(testDatabaseUrl !== undefined)('on PostgreSQL, keep two requests at once apart, and return every connection to the pool', async () => {
    const [ann, bob] = [new RequestDb(db.database, 'ann'), new RequestDb(db.database, 'bob')];
    const [annSeen, bobSeen] = await Promise.all([seen(ann), seen(bob)]);
    expect([annSeen.user_id, bobSeen.user_id]).toEqual(['ann', 'bob']);
    expect(annSeen.xid).not.toBe(bobSeen.xid);
    await Promise.all([ann.finish(true), bob.finish(false)]);
    const requests = Array.from({ length: 12 }, (_, i) => new RequestDb(db.database, `caller ${i}`));
    await Promise.all(
      requests.map(async (request, i) => {
        if (i % 3 !== 2) await seen(request);
        if (i % 4 === 1) await (await request.tx()).$queryRawUnsafe('SELECT 1 / 0').catch(() => {});
        await request.finish(i % 2 === 0).catch(() => {});
      }),
    );
    expect(db.database.poolStats()).toMatchObject({ idle: db.database.poolStats().total, waiting: 0 });
  });
});
