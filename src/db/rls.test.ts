// Row-level security is the backstop: a query issued for one user without any WHERE clause returns
// none of another user's rows, whatever the service layer forgets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
