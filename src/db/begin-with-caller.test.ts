// Request transactions behave as before with BEGIN held back and sent with the caller's set_config
// (begin-with-caller.ts, on PostgreSQL; on PGlite the same assertions hold without it): every
// statement of a request runs in one transaction as its caller, a rollback keeps nothing, values are
// escaped, and transactions that do not start with the caller's statement are still atomic.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testkit/database.js';
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
});
