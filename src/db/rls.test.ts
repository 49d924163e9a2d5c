// Row-level security is the backstop: a query issued for one user without any WHERE clause returns
// none of another user's rows, whatever the service layer forgets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../generated/prisma/client.js';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';
import { RequestDb, runAsUser } from './request-db.js';

let t: TestApp;
let a: SignedUpUser;
let b: SignedUpUser;

beforeAll(async () => {
  t = await createTestApp();
  a = await signUp(t);
  b = await signUp(t);
});
afterAll(() => t.close());

async function asCaller<T>(userId: string | null, work: (db: RequestDb) => Promise<T>): Promise<T> {
  const db = new RequestDb(t.database, userId);
  try {
    return await work(db);
  } finally {
    await db.finish(false);
  }
}

describe('row-level security', () => {
  it('shows user A none of user B’s rows, in any table, with no WHERE clause', async () => {
    await asCaller(a.id, async (db) => {
      const tx = await db.tx();
      expect((await tx.user.findMany()).map((u) => u.id)).toEqual([a.id]);
      expect((await tx.team.findMany()).map((team) => team.id)).toEqual([a.activeTeamId]);
      expect((await tx.teamMember.findMany()).map((m) => m.userId)).toEqual([a.id]);
      expect((await tx.session.findMany()).every((s) => s.userId === a.id)).toBe(true);
      const raw = await tx.$queryRaw<{ id: string }[]>`SELECT id::text FROM users`;
      expect(raw.map((r) => r.id)).toEqual([a.id]);
    });
  });

  it('runs requests as the app role, which does not bypass RLS', async () => {
    const [row] = await asCaller(a.id, async (db) =>
      (await db.tx()).$queryRaw<{ role: string; bypass: boolean }[]>`SELECT current_user AS role, rolbypassrls AS bypass FROM pg_roles WHERE rolname = current_user`,
    );
    expect(row).toEqual({ role: 'app_user', bypass: false });
  });

  it('shows an anonymous caller nothing', async () => {
    await asCaller(null, async (db) => {
      const tx = await db.tx();
      expect(await tx.user.count()).toBe(0);
      expect(await tx.team.count()).toBe(0);
      expect(await tx.session.count()).toBe(0);
    });
  });

  it('refuses writes to another user’s rows', async () => {
    const changed = await asCaller(a.id, async (db) => (await db.tx()).user.updateMany({ data: { firstName: 'Mallory' } }));
    expect(changed.count).toBe(1);
    const bRow = await t.database.prisma.user.findUniqueOrThrow({ where: { id: b.id } });
    expect(bRow.firstName).not.toBe('Mallory');
    await expect(runAsUser(t.database, a.id, (tx) => tx.teamMember.create({ data: { teamId: b.activeTeamId, userId: a.id, role: 'admin' } }))).rejects.toThrow();
    expect(await t.database.prisma.teamMember.count({ where: { teamId: b.activeTeamId } })).toBe(1);
  });

  it('lets team mates see each other, and only them', async () => {
    await t.database.prisma.teamMember.create({ data: { teamId: b.activeTeamId, userId: a.id, role: 'member' } });
    const c = await signUp(t);
    const seen = await asCaller(a.id, async (db) => (await (await db.tx()).user.findMany()).map((u) => u.id).sort());
    expect(seen).toEqual([a.id, b.id].sort());
    expect(seen).not.toContain(c.id);
  });

  it('rolls back the request transaction when the request fails', async () => {
    const db = new RequestDb(t.database, a.id);
    await (await db.tx()).user.update({ where: { id: a.id }, data: { lastName: 'Rolled back' } });
    await db.finish(false);
    expect((await t.database.prisma.user.findUniqueOrThrow({ where: { id: a.id } })).lastName).not.toBe('Rolled back');
  });

  it('tests membership once per statement: a count over a team reads the index with it as a condition, no subquery probed per row', async () => {
    // Every policy of the schema (platform tables and entity tables) says membership as `= ANY (ARRAY(SELECT …))`.
    const perRow = await t.database.prisma.$queryRaw<{ policy: string }[]>`
      SELECT polname AS policy FROM pg_policy
       WHERE coalesce(pg_get_expr(polqual, polrelid), '') || coalesce(pg_get_expr(polwithcheck, polrelid), '') LIKE '%IN ( SELECT app_user_%ids()%'`;
    expect(perRow).toEqual([]);
    await t.database.prisma.$executeRaw`INSERT INTO tasks (id, team_id, user_id, title, status, updated_at)
      SELECT gen_random_uuid(), ${a.activeTeamId}::uuid, ${a.id}::uuid, 'Task ' || n, (ARRAY['todo', 'done'])[1 + n % 2], now() FROM generate_series(1, 300) n`;
    const [counted, plan] = await asCaller(a.id, async (db) => {
      const tx = await db.tx();
      const where = Prisma.sql`team_id = ${a.activeTeamId}::uuid AND user_id = ${a.id}::uuid`;
      const rows = await tx.$queryRaw<{ status: string; n: number }[]>`SELECT status, count(*)::int AS n FROM tasks WHERE ${where} GROUP BY status ORDER BY status`;
      const [explained] = await tx.$queryRaw<{ 'QUERY PLAN': unknown }[]>`EXPLAIN (FORMAT JSON) SELECT status, count(*) FROM tasks WHERE ${where} GROUP BY status`;
      return [rows, JSON.stringify(explained!['QUERY PLAN'])];
    });
    expect(counted).toEqual([{ status: 'done', n: 150 }, { status: 'todo', n: 150 }]);
    expect(plan).toMatch(/"Index Cond":"[^"]*team_id = ANY/);
    expect(plan).not.toContain('SubPlan');
    // b, in no team of a's, counts none of them through the same policy.
    const seenByB = await asCaller(b.id, async (db) => (await db.tx()).$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM tasks WHERE team_id = ${a.activeTeamId}::uuid`);
    expect(seenByB).toEqual([{ n: 0 }]);
  });
});
