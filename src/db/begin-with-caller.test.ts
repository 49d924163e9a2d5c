// Request transactions behave as before with BEGIN held back and sent with the caller's set_config
// (begin-with-caller.ts, on PostgreSQL; on PGlite the same assertions hold without it): every
// statement of a request runs in one transaction as its caller, a rollback keeps nothing, values are
// escaped, and transactions that do not start with the caller's statement are still atomic. A
// request's hot statements (hotQuery) run in that same transaction: on PostgreSQL straight on its
// connection, on PGlite through Prisma.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const request = new RequestDb(db.database.prisma, '5b0c1a4e-9d7f-4c1e-8a11-2f3e4d5c6b7a');
    const first = await seen(request);
    const second = await seen(request);
    await request.finish(true);
    expect(first).toMatchObject({ user_id: '5b0c1a4e-9d7f-4c1e-8a11-2f3e4d5c6b7a', role: appRole });
    expect(second).toEqual(first);
    const next = new RequestDb(db.database.prisma, null);
    const other = await seen(next);
    await next.finish(true);
    expect(other.xid).not.toBe(first.xid);
    expect(other.user_id).toBe('');
  });

  it('keep nothing when rolled back, and everything when committed', async () => {
    const rolledBack = new RequestDb(db.database.prisma, 'someone');
    await (await rolledBack.tx()).$executeRaw`INSERT INTO begin_probe VALUES ('rolled back')`;
    await rolledBack.finish(false);
    const committed = new RequestDb(db.database.prisma, 'someone');
    await (await committed.tx()).$executeRaw`INSERT INTO begin_probe VALUES ('committed')`;
    await committed.finish(true);
    expect(await notes()).toEqual(['committed']);
  });

  it('pass the caller as a value, whatever it holds', async () => {
    const request = new RequestDb(db.database.prisma, `o'hare\\'); DROP TABLE begin_probe; --`);
    expect((await seen(request)).user_id).toBe(`o'hare\\'); DROP TABLE begin_probe; --`);
    await request.finish(true);
    expect(await notes()).toEqual(['committed']);
  });

  it('leave transactions that start otherwise atomic (a failing second statement undoes the first)', async () => {
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

  it('run a request\'s hot statements in its own transaction, as its caller', async () => {
    const ann = new RequestDb(db.database.prisma, 'ann');
    const annPrisma = await seen(ann);
    expect(await seenHot(ann)).toEqual({ user_id: 'ann', role: appRole, xid: annPrisma.xid });
    await ann.finish(true);
    // A first statement may be a hot one too.
    const bob = new RequestDb(db.database.prisma, 'bob');
    const bobHot = await seenHot(bob);
    expect(bobHot).toMatchObject({ user_id: 'bob', role: appRole });
    expect((await seen(bob)).xid).toBe(bobHot.xid);
    await bob.finish(true);
    expect(bobHot.xid).not.toBe(annPrisma.xid);
    // After the end, the connection may be another request's: refused.
    await expect(seenHot(ann)).rejects.toThrow(/after the request transaction ended/);
  });

  it('commit and roll back hot statements with the request', async () => {
    const insert = (request: RequestDb, note: string) => request.hotQuery('begin_probe_insert', 'INSERT INTO begin_probe VALUES ($1) RETURNING note', [note]);
    const rolledBack = new RequestDb(db.database.prisma, 'someone');
    expect(await insert(rolledBack, 'hot rolled back')).toEqual([{ note: 'hot rolled back' }]);
    await rolledBack.finish(false);
    const committed = new RequestDb(db.database.prisma, 'someone');
    await insert(committed, 'hot committed');
    await committed.finish(true);
    expect(await notes()).toEqual(['committed', 'hot committed']);
  });

  // PGlite has one connection: its transactions queue, so two requests are never open at once there.
  it.runIf(testDatabaseUrl !== undefined)('on PostgreSQL, run hot statements prepared on each transaction\'s own connection, two requests at once', async () => {
    const [ann, bob] = [new RequestDb(db.database.prisma, 'ann'), new RequestDb(db.database.prisma, 'bob')];
    const [annPrisma, bobPrisma] = await Promise.all([seen(ann), seen(bob)]);
    const [annHot, bobHot] = await Promise.all([seenHot(ann), seenHot(bob)]);
    expect(annHot).toEqual({ user_id: 'ann', role: appRole, xid: annPrisma.xid });
    expect(bobHot).toEqual({ user_id: 'bob', role: appRole, xid: bobPrisma.xid });
    const prepared = await (await ann.tx()).$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'begin_probe_seen'`;
    await Promise.all([ann.finish(true), bob.finish(true)]);
    expect(prepared).toEqual([{ n: 1 }]);
  });
});
