// The trash of soft-deleting entities (issue 38), through the front door: a deleted record is listed
// in the trash with LIST's filters (never another user's or team's), restored as a new change, purged
// for good by an owner or admin only; a deleted record's unique value is free again, and restoring one
// whose value was taken since is 409 naming the field; the trash sweep purges past `purgeAfter`. On
// PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityDefinitions } from '../../config/entities/index.js';
import { systemDb } from '../../db/request-db.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { sweepTrash } from './trash.js';

type Row = Record<string, any>;
let t: TestApp;
let owner: SignedUpUser;
let member: SignedUpUser;
let stranger: SignedUpUser;
const as = (u: SignedUpUser) => ({ cookie: u.cookie });
const posts = entityDefinitions.find((d) => d.slug === 'posts')!;
let n = 0;
const slug = (name: string) => `${name}-${++n}-${Date.now()}`;

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  owner = await signUp(t);
  member = await signUp(t);
  stranger = await signUp(t);
  await joinTeam(t, owner, owner.activeTeamId, member, 'member');
});
afterAll(async () => {
  await t?.close();
});

async function post(u: SignedUpUser, body: Row): Promise<Row> {
  const res = await t.json('POST', '/api/v1/posts', body, as(u));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}
const remove = (u: SignedUpUser, id: string, query = '') => t.json('DELETE', `/api/v1/posts/${id}${query}`, undefined, as(u));
const trash = (u: SignedUpUser, query = '') => t.json('GET', `/api/v1/posts/trash${query}`, undefined, as(u));

describe('the trash', () => {
  it('lists deleted records with LIST’s filters, restores one as a new change, and shows them to the team only', async () => {
    const kept = await post(owner, { title: 'Kept', slug: slug('kept') });
    const gone = await post(member, { title: 'Gone draft', slug: slug('gone') });
    const other = await post(owner, { title: 'Gone published', slug: slug('other'), status: 'published' });
    expect((await remove(member, gone.id)).body.data.deletedAt).toEqual(expect.any(String));
    await remove(owner, other.id);
    const listed = await trash(member, '?sortBy=title&sortOrder=asc');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data.map((p: Row) => p.title)).toEqual(expect.arrayContaining(['Gone draft', 'Gone published']));
    expect(listed.body.data.map((p: Row) => p.id)).not.toContain(kept.id);
    expect((await trash(member, '?status=published')).body.data.map((p: Row) => p.id)).toEqual([other.id]);
    // Another team's member sees none of it; LIST and READ do not show trashed records.
    expect((await trash(stranger)).body.data).toEqual([]);
    expect((await t.json('GET', `/api/v1/posts/${gone.id}`, undefined, as(owner))).status).toBe(404);
    expect((await t.json('POST', `/api/v1/posts/${gone.id}/restore`, undefined, as(stranger))).status).toBe(404);
    const restored = await t.json('POST', `/api/v1/posts/${gone.id}/restore`, undefined, as(owner));
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.data).toMatchObject({ id: gone.id, title: 'Gone draft', deletedAt: null });
    expect((await t.json('GET', `/api/v1/posts/${gone.id}`, undefined, as(owner))).status).toBe(200);
    expect((await t.json('POST', `/api/v1/posts/${gone.id}/restore`, undefined, as(owner))).status).toBe(404);
    const versions = (await t.json('GET', `/api/v1/posts/${gone.id}/versions`, undefined, as(owner))).body.data;
    expect(versions.map((v: Row) => [v.version, v.operation, v.userId])).toEqual([[3, 'restore', owner.id], [2, 'delete', member.id], [1, 'create', member.id]]);
    expect(versions[0].changedFields).toEqual([]);
    // The same through GraphQL.
    const gql = await t.graphql('{ trashedPosts(search: "published") { items { id title deletedAt } total } }', undefined, as(owner));
    expect(gql.body.data.trashedPosts).toMatchObject({ items: [{ id: other.id, title: 'Gone published' }], total: 1 });
    const back = await t.graphql('mutation($id: ID!) { restorePost(id: $id) { id deletedAt } }', { id: other.id }, as(member));
    expect(back.body.data.restorePost).toEqual({ id: other.id, deletedAt: null });
  });

  it('frees a deleted record’s unique value, and refuses its restore once the value is taken (409 naming the field)', async () => {
    const taken = slug('taken');
    const first = await post(owner, { title: 'First', slug: taken });
    expect((await t.json('POST', '/api/v1/posts', { title: 'Twin', slug: taken }, as(owner))).status).toBe(409);
    await remove(owner, first.id);
    const second = await post(member, { title: 'Second', slug: taken });
    const refused = await t.json('POST', `/api/v1/posts/${first.id}/restore`, undefined, as(owner));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CONFLICT', details: { slug: expect.any(String) } });
    expect(refused.body.error).toContain('slug');
    // Still in the trash, untouched; free again once the other goes.
    expect((await trash(owner)).body.data.map((p: Row) => p.id)).toContain(first.id);
    await remove(member, second.id);
    expect((await t.json('POST', `/api/v1/posts/${first.id}/restore`, undefined, as(owner))).status).toBe(200);
  });

  it('purges for good: owners and admins only, live or trashed', async () => {
    const live = await post(member, { title: 'Live', slug: slug('live') });
    const trashed = await post(member, { title: 'Trashed', slug: slug('trashed') });
    await remove(member, trashed.id);
    const refused = await remove(member, trashed.id, '?purge=true');
    expect(refused.status).toBe(403);
    const gqlRefused = await t.graphql('mutation($id: ID!) { deletePost(id: $id, purge: true) { message } }', { id: live.id }, as(member));
    expect(gqlRefused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const purged = await remove(owner, trashed.id, '?purge=true');
    expect(purged.status, JSON.stringify(purged.body)).toBe(200);
    expect(purged.body.message).toBe('Post purged');
    const gql = await t.graphql('mutation($id: ID!) { deletePost(id: $id, purge: true) { message record { id } } }', { id: live.id }, as(owner));
    expect(gql.body.data.deletePost).toEqual({ message: 'Post purged', record: null });
    const left = await t.database.prisma.post.count({ where: { id: { in: [live.id, trashed.id] } } });
    expect(left).toBe(0);
    expect((await trash(owner)).body.data.map((p: Row) => p.id)).not.toContain(trashed.id);
    expect((await remove(owner, trashed.id, '?purge=true')).status).toBe(404);
  });

  it('sweeps trashed records past softDelete.purgeAfter, and only those', async () => {
    const old = await post(owner, { title: 'Old', slug: slug('old') });
    const recent = await post(owner, { title: 'Recent', slug: slug('recent') });
    await remove(owner, old.id);
    await remove(owner, recent.id);
    await t.database.prisma.post.update({ where: { id: old.id }, data: { deletedAt: new Date(Date.now() - 31 * 86_400_000) } });
    const system = systemDb(t.database, 'trash sweep');
    const before = posts.purgeAfterDays;
    try {
      expect(await sweepTrash(system, [posts], new Date())).toBe(0);
      posts.purgeAfterDays = 30;
      expect(await sweepTrash(system, [posts], new Date())).toBeGreaterThanOrEqual(1);
    } finally {
      posts.purgeAfterDays = before;
    }
    const ids = (await t.database.prisma.post.findMany({ where: { id: { in: [old.id, recent.id] } }, select: { id: true } })).map((p) => p.id);
    expect(ids).toEqual([recent.id]);
  });
});
