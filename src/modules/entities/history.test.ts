// Record history (issue 38), through the front door: every write path keeps a version in its own
// transaction (REST, GraphQL, an API key, children; a refused or rolled-back change keeps none), the
// versions read newest first with paging on both faces, a restore is a new change refused like any
// write, who sees versions (a teammate never those of another's private record, another team none),
// and the sweep keeps what each definition says. On PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { entityDefinitions } from '../../config/entities/index.js';
import type { EntityDefinition } from '../../config/entity-definition.js';
import { systemDb } from '../../db/request-db.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { sweepHistory } from './history.js';

type Row = Record<string, any>;
let t: TestApp;
let owner: SignedUpUser;
let member: SignedUpUser;
let stranger: SignedUpUser;
const as = (u: SignedUpUser) => ({ cookie: u.cookie });
const definition = (slug: string) => entityDefinitions.find((d) => d.slug === slug)!;
const restores: (() => void)[] = [];
function keeping(d: EntityDefinition, keep: EntityDefinition['history']['keep']): void {
  const before = d.history;
  d.history = { keep };
  restores.push(() => (d.history = before));
}

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  owner = await signUp(t);
  member = await signUp(t);
  stranger = await signUp(t);
  await joinTeam(t, owner, owner.activeTeamId, member, 'member');
});
afterEach(() => {
  for (const restore of restores.splice(0)) restore();
});
afterAll(async () => {
  await t?.close();
});

async function created(path: string, body: Row, headers: Record<string, string>): Promise<Row> {
  const res = await t.json('POST', path, body, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}
const versions = async (path: string, u: SignedUpUser, query = '') => t.json('GET', `${path}/versions${query}`, undefined, as(u));

describe('record history', () => {
  it('keeps a version of every change from every face, newest first, with who, how and which fields', async () => {
    const key = await createKey(t, owner, { scopes: ['customers:*'] });
    const customer = await created('/api/v1/customers', { name: 'Acme', account: 101, office: 'Lyon' }, as(owner));
    const path = `/api/v1/customers/${customer.id}`;
    expect((await t.json('PATCH', path, { office: 'Paris', phone: '1' }, bearer(key.key))).status).toBe(200);
    const gql = await t.graphql('mutation($id: ID!) { updateCustomer(id: $id, input: { name: "Acme SA" }) { name } }', { id: customer.id }, as(member));
    expect(gql.body.errors).toBeUndefined();
    // A change refused by validation keeps nothing.
    expect((await t.json('PATCH', path, { account: -1 }, as(owner))).status).toBe(422);
    const res = await versions(path, owner);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((v: Row) => [v.version, v.operation, v.face, v.changedFields])).toEqual([
      [3, 'update', 'graphql', ['name']],
      [2, 'update', 'rest', ['office', 'phone']],
      [1, 'create', 'rest', ['name', 'account', 'office']],
    ]);
    expect(res.body.data[0]).toMatchObject({ userId: member.id, apiKeyId: null, data: { name: 'Acme SA', office: 'Paris' } });
    expect(res.body.data[1]).toMatchObject({ userId: owner.id, apiKeyId: key.id, data: { name: 'Acme', office: 'Paris', phone: '1' } });
    expect(res.body.data[2].data).toMatchObject({ id: customer.id, name: 'Acme', office: 'Lyon', phone: null, account: 101 });
    // Paged: two, then the rest from the cursor.
    const first = await versions(path, owner, '?limit=2');
    expect(first.body.data.map((v: Row) => v.version)).toEqual([3, 2]);
    expect(first.body.pagination).toEqual({ hasMore: true, nextCursor: '2' });
    const rest = await versions(path, owner, `?limit=2&cursor=${first.body.pagination.nextCursor}`);
    expect(rest.body.data.map((v: Row) => v.version)).toEqual([1]);
    expect(rest.body.pagination).toEqual({ hasMore: false, nextCursor: null });
    // The same through GraphQL, and one version by number on both faces.
    const paged = await t.graphql('query($id: ID!) { customer(id: $id) { versions(first: 1, after: "3") { items { version operation changedFields record { office } } hasMore endCursor } } }', { id: customer.id }, as(owner));
    expect(paged.body.data.customer.versions).toEqual({ items: [{ version: 2, operation: 'UPDATE', changedFields: ['office', 'phone'], record: { office: 'Paris' } }], hasMore: true, endCursor: '2' });
    expect((await t.json('GET', `${path}/versions/1`, undefined, as(member))).body.data).toMatchObject({ version: 1, operation: 'create', data: { office: 'Lyon' } });
    expect((await t.json('GET', `${path}/versions/9`, undefined, as(member))).status).toBe(404);
  });

  it('restores a version as a new change, and refuses one whose unique value was taken since (409)', async () => {
    const customer = await created('/api/v1/customers', { name: 'Globex', account: 201, office: 'Rome' }, as(owner));
    const path = `/api/v1/customers/${customer.id}`;
    await t.json('PATCH', path, { name: 'Globex 2', account: 202 }, as(owner));
    const restored = await t.json('POST', `${path}/versions/1/restore`, undefined, as(member));
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.data).toMatchObject({ name: 'Globex', account: 201, office: 'Rome' });
    const latest = (await versions(path, owner, '?limit=1')).body.data[0];
    expect(latest).toMatchObject({ version: 3, operation: 'restore', userId: member.id, changedFields: ['name', 'account'] });
    // Another record takes the account number version 2 had: restoring it is refused like any update, and keeps nothing.
    await created('/api/v1/customers', { name: 'Initech', account: 202, office: 'Oslo' }, as(owner));
    const refused = await t.json('POST', `${path}/versions/2/restore`, undefined, as(owner));
    expect(refused.status).toBe(409);
    const gql = await t.graphql('mutation($id: ID!) { restoreCustomerVersion(id: $id, version: 2) { account } }', { id: customer.id }, as(owner));
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect((await versions(path, owner)).body.data.map((v: Row) => v.version)).toEqual([3, 2, 1]);
  });

  it('keeps versions of soft deletes and final deletes, and of children', async () => {
    const post = await created('/api/v1/posts', { title: 'Hello', slug: `hello-${Date.now()}` }, as(owner));
    expect((await t.json('DELETE', `/api/v1/posts/${post.id}`, undefined, as(owner))).status).toBe(200);
    const customer = await created('/api/v1/customers', { name: 'Hooli', account: 301, office: 'Palo Alto' }, as(owner));
    const note = await created(`/api/v1/customers/${customer.id}/child/notes`, { body: 'first' }, as(owner));
    await t.json('PATCH', `/api/v1/customers/${customer.id}/child/notes/${note.id}`, { body: 'second' }, as(member));
    // A child's versions, read through its parent on both faces, while it is one; another team's caller sees nothing.
    const notePath = `/api/v1/customers/${customer.id}/child/notes/${note.id}`;
    const listed = await versions(notePath, owner, '?limit=1');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data.map((v: Row) => [v.version, v.operation, v.userId, v.changedFields, v.data.body, v.data.parentId])).toEqual([[2, 'update', member.id, ['body'], 'second', customer.id]]);
    expect(listed.body.pagination).toEqual({ hasMore: true, nextCursor: '2' });
    expect((await versions(notePath, owner, '?cursor=2')).body.data.map((v: Row) => [v.version, v.data.body])).toEqual([[1, 'first']]);
    expect((await t.json('GET', `${notePath}/versions/1`, undefined, as(member))).body.data).toMatchObject({ version: 1, operation: 'create', data: { body: 'first' } });
    const gql = await t.graphql('query($id: ID!, $note: ID!) { customer(id: $id) { noteVersions(id: $note) { items { version record { body } } } noteVersion(id: $note, number: 1) { face } } }', { id: customer.id, note: note.id }, as(member));
    expect(gql.body.data.customer).toEqual({ noteVersions: { items: [{ version: 2, record: { body: 'second' } }, { version: 1, record: { body: 'first' } }] }, noteVersion: { face: 'REST' } });
    expect((await versions(notePath, stranger)).status).toBe(404);
    expect((await t.json('GET', `/api/v1/customers/${customer.id}/child/notes/${customer.id}/versions`, undefined, as(owner))).status).toBe(404);
    await t.json('DELETE', `/api/v1/customers/${customer.id}/child/notes/${note.id}`, undefined, as(owner));
    expect((await versions(notePath, owner)).status).toBe(404);
    expect((await t.json('DELETE', `/api/v1/customers/${customer.id}`, undefined, as(owner))).status).toBe(200);
    const kept = await t.database.prisma.recordHistory.findMany({ where: { recordId: { in: [post.id, note.id, customer.id] } }, orderBy: [{ entity: 'asc' }, { version: 'asc' }] });
    expect(kept.map((v) => [v.entity, v.version, v.operation, (v.data as Row).deletedAt ? 'deletedAt' : (v.data as Row).body ?? (v.data as Row).name ?? (v.data as Row).title])).toEqual([
      ['customers', 1, 'create', 'Hooli'],
      ['customers', 2, 'delete', 'Hooli'],
      ['customers/notes', 1, 'create', 'first'],
      ['customers/notes', 2, 'update', 'second'],
      ['customers/notes', 3, 'delete', 'second'],
      ['posts', 1, 'create', 'Hello'],
      ['posts', 2, 'delete', 'deletedAt'],
    ]);
  });

  it('shows versions only to who can read the record now: never another user’s private record, never another team’s', async () => {
    const task = await created('/api/v1/tasks', { title: 'Mine' }, as(owner));
    await t.json('PATCH', `/api/v1/tasks/${task.id}`, { title: 'Still mine' }, as(owner));
    expect((await versions(`/api/v1/tasks/${task.id}`, owner)).body.data).toHaveLength(2);
    // A teammate: the task is private to its creator, so are its versions.
    expect((await versions(`/api/v1/tasks/${task.id}`, member)).status).toBe(404);
    expect((await t.json('GET', `/api/v1/tasks/${task.id}/versions/1`, undefined, as(member))).status).toBe(404);
    expect((await t.json('POST', `/api/v1/tasks/${task.id}/versions/1/restore`, undefined, as(member))).status).toBe(404);
    const customer = await created('/api/v1/customers', { name: 'Shared', account: 401, office: 'Kyiv' }, as(owner));
    expect((await versions(`/api/v1/customers/${customer.id}`, member)).status).toBe(200);
    expect((await versions(`/api/v1/customers/${customer.id}`, stranger)).status).toBe(404);
    // Row-level security behind it: as the teammate, the private record's versions are not there at all.
    const seen = await t.database.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT set_config('app.user_id', ${member.id}, true), set_config('role', 'app_user', true)`;
      return tx.recordHistory.count({ where: { recordId: { in: [task.id, customer.id] } } });
    });
    expect(seen).toBe(1);
  });

  it('keeps no version of a change that rolls back (a hook failing after the write)', async () => {
    const customers = definition('customers');
    const before = customers.hooks;
    customers.hooks = { ...before, afterChange: () => Promise.reject(new Error('after the write')) };
    restores.push(() => (customers.hooks = before));
    const count = () => t.database.prisma.recordHistory.count({ where: { entity: 'customers' } });
    const n = await count();
    expect((await t.json('POST', '/api/v1/customers', { name: 'Never', account: 501, office: 'Nowhere' }, as(owner))).status).toBe(500);
    expect(await count()).toBe(n);
  });

  it('sweeps versions past each definition’s keep: a count per record, days, or none', async () => {
    const customer = await created('/api/v1/customers', { name: 'Sweep', account: 601, office: 'Turin' }, as(owner));
    for (const office of ['a', 'b', 'c']) await t.json('PATCH', `/api/v1/customers/${customer.id}`, { office }, as(owner));
    const system = systemDb(t.database, 'history sweep');
    const numbers = async () => (await t.database.prisma.recordHistory.findMany({ where: { recordId: customer.id }, orderBy: { version: 'asc' } })).map((v) => v.version);
    keeping(definition('customers'), 2);
    await sweepHistory(system, [definition('customers')], new Date());
    expect(await numbers()).toEqual([3, 4]);
    keeping(definition('customers'), '30d');
    await sweepHistory(system, [definition('customers')], new Date(Date.now() + 29 * 86_400_000));
    expect(await numbers()).toEqual([3, 4]);
    await sweepHistory(system, [definition('customers')], new Date(Date.now() + 31 * 86_400_000));
    expect(await numbers()).toEqual([]);
    keeping(definition('customers'), false);
    await t.json('PATCH', `/api/v1/customers/${customer.id}`, { office: 'd' }, as(owner));
    expect(await numbers()).toEqual([]);
    expect((await versions(`/api/v1/customers/${customer.id}`, owner)).status).toBe(200);
  });
});
