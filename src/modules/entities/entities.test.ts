// Entities through the front door (REST and GraphQL) on the test database, for the shipped
// definitions: CRUD, the LIST query language, validation, children, metas, soft delete, public
// reads, and the isolation matrix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { addMember, joinTeam, createTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
let alice: SignedUpUser;
let bob: SignedUpUser; // alice's teammate
let vera: SignedUpUser; // viewer in alice's team
let eve: SignedUpUser; // another team
beforeAll(async () => {
  t = await createTestApp();
  alice = await signUp(t, { firstName: 'Alice' });
  bob = await signUp(t);
  vera = await signUp(t);
  eve = await signUp(t);
  await addMember(t, alice, alice.activeTeamId, bob, 'member');
  await addMember(t, alice, alice.activeTeamId, vera, 'viewer');
  for (const user of [bob, vera]) await t.json('POST', '/api/v1/teams/switch', { teamId: alice.activeTeamId }, { cookie: user.cookie });
});
afterAll(() => t.close());

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
const create = (user: SignedUpUser, slug: string, body: unknown) => t.json('POST', `/api/v1/${slug}`, body, as(user));

describe('CRUD', () => {
  it('creates with defaults (201), reads, updates partially and deletes a task', async () => {
    const created = await create(alice, 'tasks', { title: 'Write tests', estimatedHours: 2, dueDate: '2026-12-01', tags: ['qa'] });
    expect(created.status).toBe(201);
    const task = created.body.data;
    expect(task).toMatchObject({ title: 'Write tests', status: 'todo', priority: 'medium', completed: false, estimatedHours: 2, dueDate: '2026-12-01', tags: ['qa'], userId: alice.id, teamId: alice.activeTeamId });
    const read = await t.json('GET', `/api/v1/tasks/${task.id}?metas=all`, undefined, as(alice));
    expect(read.body.data).toEqual(task);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await t.json('PATCH', `/api/v1/tasks/${task.id}`, { status: 'done', completed: true }, as(alice));
    expect(updated.body.data).toMatchObject({ title: 'Write tests', status: 'done', completed: true });
    expect(Date.parse(updated.body.data.updatedAt)).toBeGreaterThan(Date.parse(task.updatedAt));
    const deleted = await t.json('DELETE', `/api/v1/tasks/${task.id}`, undefined, as(alice));
    expect(deleted).toMatchObject({ status: 200, body: { success: true, message: 'Task deleted' } });
    const gone = await t.json('GET', `/api/v1/tasks/${task.id}`, undefined, as(alice));
    expect(gone).toMatchObject({ status: 404, body: { success: false, error: 'Task not found', code: 'NOT_FOUND' } });
  });

  it('validates with 422 VALIDATION_FAILED and field details, never a 500', async () => {
    const cases: [unknown, Record<string, RegExp>][] = [
      [{}, { title: /required/ }],
      [{ title: '' }, { title: /required|at least/ }],
      [{ title: 'x', status: 'nope' }, { status: /one of/ }],
      [{ title: 'x', estimatedHours: 1000 }, { estimatedHours: /at most 999/ }],
      [{ title: 'x', estimatedHours: -1 }, { estimatedHours: /at least 0/ }],
      [{ title: 'x', estimatedHours: '3' }, { estimatedHours: /number/ }],
      [{ title: 'x', dueDate: '2026-13-45' }, { dueDate: /date/ }],
      [{ title: 'x', completed: 'yes' }, { completed: /true or false/ }],
      [{ title: 'x', owner: 'me' }, { owner: /not a field/ }],
      [{ title: 'x', tags: 'qa' }, { tags: /list/ }],
      [{ title: 'x', metas: { a: 1 } }, { metas: /string/ }],
    ];
    for (const [body, details] of cases) {
      const res = await create(alice, 'tasks', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: 'Validation failed', code: 'VALIDATION_FAILED' });
      for (const [field, message] of Object.entries(details)) expect(res.body.details[field]).toMatch(message);
    }
    const badPost = await create(alice, 'posts', { title: 'T', slug: 'Not Valid' });
    expect(badPost.body.details.slug).toMatch(/must match/);
    expect((await t.json('POST', '/api/v1/tasks', [1, 2], as(alice))).status).toBe(400);
  });

  it('answers 404 for an unknown entity, 409 for a duplicate unique value', async () => {
    expect((await t.json('GET', '/api/v1/unicorns', undefined, as(alice))).status).toBe(404);
    expect((await create(alice, 'customers', { name: 'Acme', account: 1, office: 'HQ' })).status).toBe(201);
    const dup = await create(bob, 'customers', { name: 'Acme 2', account: 1, office: 'HQ' });
    expect(dup).toMatchObject({ status: 409, body: { code: 'CONFLICT', details: { account: 'is taken by another record of this team' } } });
    expect(JSON.stringify(dup.body)).not.toMatch(/customers_team_id|constraint|Prisma/i);
    expect((await create(eve, 'customers', { name: 'Other', account: 1, office: 'HQ' })).status).toBe(201); // unique within a team
  });
});

describe('isolation', () => {
  it('private tasks: creator only; shared customers: the team; other teams: nothing; viewers never write', async () => {
    const task = (await create(alice, 'tasks', { title: 'Alice only' })).body.data;
    expect((await t.json('GET', `/api/v1/tasks/${task.id}`, undefined, as(bob))).status).toBe(404);
    expect((await t.json('GET', '/api/v1/tasks', undefined, as(bob))).body.data.map((r: { id: string }) => r.id)).not.toContain(task.id);
    expect((await t.json('GET', `/api/v1/tasks/${task.id}`, undefined, as(eve))).status).toBe(404);

    const customer = (await create(bob, 'customers', { name: 'Shared Co', account: 77, office: 'Madrid' })).body.data;
    expect((await t.json('GET', `/api/v1/customers/${customer.id}`, undefined, as(alice))).status).toBe(200);
    expect((await t.json('GET', `/api/v1/customers/${customer.id}`, undefined, as(vera))).status).toBe(200);
    expect((await t.json('GET', `/api/v1/customers/${customer.id}`, undefined, as(eve))).status).toBe(404);
    expect((await t.json('PATCH', `/api/v1/customers/${customer.id}`, { office: 'Paris' }, as(eve))).status).toBe(404);

    expect((await create(vera, 'customers', { name: 'Viewer Co', account: 78, office: 'X' })).status).toBe(403);
    expect((await t.json('PATCH', `/api/v1/customers/${customer.id}`, { office: 'Viewer' }, as(vera))).status).toBe(403);
    expect((await t.json('GET', '/api/v1/customers')).status).toBe(401);
  });

  it('checks key scopes: customers:read lists, cannot write; no scope → 403', async () => {
    const reader = await createKey(t, alice, { scopes: ['customers:read'] });
    expect((await t.json('GET', '/api/v1/customers', undefined, bearer(reader.key))).status).toBe(200);
    expect((await t.json('POST', '/api/v1/customers', { name: 'K', account: 90, office: 'K' }, bearer(reader.key))).status).toBe(403);
    const other = await createKey(t, alice, { scopes: ['teams:read'] });
    const denied = await t.json('GET', '/api/v1/customers', undefined, bearer(other.key));
    expect(denied).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
  });

  it('public posts: anonymous callers see published ones without owner ids; soft delete hides', async () => {
    const published = (await create(alice, 'posts', { title: 'Hello', slug: 'hello', status: 'published' })).body.data;
    const draft = (await create(alice, 'posts', { title: 'Draft', slug: 'draft' })).body.data;
    const anon = await t.json('GET', '/api/v1/posts');
    expect(anon.status).toBe(200);
    expect(anon.body.data.map((p: { id: string }) => p.id)).toEqual([published.id]);
    expect(anon.body.data[0]).not.toHaveProperty('userId');
    expect(anon.body.data[0]).not.toHaveProperty('teamId');
    expect((await t.json('GET', `/api/v1/posts/${draft.id}`)).status).toBe(404);
    expect((await t.json('POST', '/api/v1/posts', { title: 'Anon', slug: 'anon' })).status).toBe(401);
    const mine = await t.json('GET', '/api/v1/posts', undefined, as(bob));
    expect(mine.body.data.map((p: { id: string }) => p.id).sort()).toEqual([published.id, draft.id].sort());

    const soft = await t.json('DELETE', `/api/v1/posts/${published.id}`, undefined, as(alice));
    expect(soft).toMatchObject({ status: 200, body: { data: { id: published.id } } });
    expect(soft.body.data.deletedAt).toBeTruthy();
    expect((await t.json('GET', `/api/v1/posts/${published.id}`, undefined, as(alice))).status).toBe(404);
    expect((await t.json('GET', '/api/v1/posts')).body.data).toEqual([]);
  });
});

describe('LIST query language', () => {
  let owner: SignedUpUser;
  beforeAll(async () => {
    owner = await signUp(t);
    const rows = [
      { title: 'Alpha report', status: 'todo', priority: 'high', estimatedHours: 1, dueDate: '2026-01-05', tags: ['a', 'b'] },
      { title: 'Beta review', status: 'review', priority: 'low', estimatedHours: 5, dueDate: '2026-01-10', tags: ['b'] },
      { title: 'Gamma 100% done_now', status: 'done', priority: 'high', estimatedHours: 8, dueDate: '2026-02-01', tags: [] },
      { title: 'Delta', status: 'todo', priority: 'urgent', estimatedHours: 3, dueDate: '2026-01-10', tags: ['c'] },
    ];
    for (const row of rows) await create(owner, 'tasks', row);
  });
  const list = (query: string) => t.json('GET', `/api/v1/tasks?${query}`, undefined, as(owner));
  const titles = (res: { body: { data: { title: string }[] } }) => res.body.data.map((r) => r.title);

  it('pages, sorts and reports pagination', async () => {
    const res = await list('limit=2&sortBy=title&sortOrder=asc');
    expect(titles(res)).toEqual(['Alpha report', 'Beta review']);
    expect(res.body.pagination).toEqual({ page: 1, limit: 2, total: 4, totalPages: 2, nextCursor: expect.any(String) });
    expect(titles(await list('limit=2&page=2&sortBy=title&sortOrder=asc'))).toEqual(['Delta', 'Gamma 100% done_now']);
    expect((await list('')).body.pagination.limit).toBe(10);
  });

  it('filters by equality, ranges, dates, membership and ids; searches with wildcards escaped', async () => {
    expect(titles(await list('status=todo&sortBy=title&sortOrder=asc'))).toEqual(['Alpha report', 'Delta']);
    expect(titles(await list('status=todo&priority=urgent'))).toEqual(['Delta']);
    expect(titles(await list('estimatedHours_min=3&estimatedHours_max=5&sortBy=estimatedHours&sortOrder=asc'))).toEqual(['Delta', 'Beta review']);
    expect(titles(await list('from=2026-01-10&to=2026-01-10&dateField=dueDate&sortBy=title&sortOrder=asc'))).toEqual(['Beta review', 'Delta']);
    expect(titles(await list('tags=b&sortBy=title&sortOrder=asc'))).toEqual(['Alpha report', 'Beta review']);
    expect(titles(await list('search=REVIEW'))).toEqual(['Beta review']);
    expect(titles(await list('search=100%25'))).toEqual(['Gamma 100% done_now']);
    expect(titles(await list('search=%25'))).toEqual(['Gamma 100% done_now']);
    expect(titles(await list('search=e_n'))).toEqual(['Gamma 100% done_now']);
    const one = (await list('search=Delta')).body.data[0];
    expect(titles(await list(`ids=${one.id}`))).toEqual(['Delta']);
  });

  it('selects fields and distinct values', async () => {
    const res = await list('fields=title,status&sortBy=title&sortOrder=asc&limit=1');
    expect(res.body.data).toEqual([{ title: 'Alpha report', status: 'todo' }]);
    const distinct = await list('fields=status&distinct=true');
    expect(distinct.body.data).toEqual([
      { value: 'done', label: 'done', entityType: 'tasks' },
      { value: 'review', label: 'review', entityType: 'tasks' },
      { value: 'todo', label: 'todo', entityType: 'tasks' },
    ]);
  });

  it.each([
    'limit=101',
    'limit=0',
    'page=abc',
    'sortBy=password',
    'sortBy=title;DROP TABLE tasks',
    'sortOrder=sideways',
    'fields=title,secret',
    'distinct=true',
    'distinct=true&fields=title',
    'ids=not-a-uuid',
    'from=yesterday',
    'dateField=title&from=2026-01-01',
    'status=nope',
    'estimatedHours=abc',
    'title=Alpha',
    "unknown'param=1",
    'completed=maybe',
    'metas=some',
    'child=notes',
  ])('refuses %s with 400 Invalid query parameters', async (query) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'Invalid query parameters', code: 'VALIDATION_ERROR' });
    expect(res.body.details.errors.length).toBeGreaterThan(0);
  });
});

describe('metas and children', () => {
  it('merges metas (null removes) and returns them with metas=all', async () => {
    const task = (await create(alice, 'tasks', { title: 'With metas', metas: { color: 'red', size: 'L' } })).body.data;
    await t.json('PATCH', `/api/v1/tasks/${task.id}`, { metas: { size: null, owner: 'ops' } }, as(alice));
    const read = await t.json('GET', `/api/v1/tasks/${task.id}?metas=all`, undefined, as(alice));
    expect(read.body.data.metas).toEqual({ color: 'red', owner: 'ops' });
    const listed = await t.json('GET', `/api/v1/tasks?metas=all&ids=${task.id}`, undefined, as(alice));
    expect(listed.body.data[0].metas).toEqual({ color: 'red', owner: 'ops' });
  });

  it('lists, creates, updates and deletes child notes under a visible parent', async () => {
    const customer = (await create(alice, 'customers', { name: 'Notes Inc', account: 501, office: 'HQ' })).body.data;
    const note = await t.json('POST', `/api/v1/customers/${customer.id}/child/notes`, { body: 'First call' }, as(bob));
    expect(note).toMatchObject({ status: 201, body: { data: { body: 'First call', parentId: customer.id } } });
    expect((await t.json('POST', `/api/v1/customers/${customer.id}/child/notes`, {}, as(bob))).status).toBe(422);
    const notes = await t.json('GET', `/api/v1/customers/${customer.id}/child/notes`, undefined, as(alice));
    expect(notes.body.data.map((n: { body: string }) => n.body)).toEqual(['First call']);
    const withChildren = await t.json('GET', `/api/v1/customers/${customer.id}?child=all`, undefined, as(alice));
    expect(withChildren.body.data.notes).toHaveLength(1);
    const patched = await t.json('PATCH', `/api/v1/customers/${customer.id}/child/notes/${note.body.data.id}`, { body: 'Edited' }, as(alice));
    expect(patched.body.data.body).toBe('Edited');
    expect((await t.json('GET', `/api/v1/customers/${customer.id}/child/notes`, undefined, as(eve))).status).toBe(404);
    expect((await t.json('DELETE', `/api/v1/customers/${customer.id}/child/notes/${note.body.data.id}`, undefined, as(alice))).status).toBe(200);
    expect((await t.json('GET', `/api/v1/customers/${customer.id}/child/notes`, undefined, as(alice))).body.data).toEqual([]);
  });
});

describe('GraphQL', () => {
  it('serves typed queries and mutations built from the definitions', async () => {
    const created = await t.graphql('mutation($i: CreateTaskInput!) { createTask(input: $i) { id title status tags estimatedHours } }', { i: { title: 'From GraphQL', estimatedHours: 4 } }, as(alice));
    expect(created.body.data.createTask).toMatchObject({ title: 'From GraphQL', status: 'TODO', tags: [], estimatedHours: 4 });
    const listed = await t.graphql('{ tasks(search: "graphql", limit: 5) { items { title } total page endCursor } }', undefined, as(alice));
    expect(listed.body.data.tasks).toEqual({ items: [{ title: 'From GraphQL' }], total: 1, page: 1, endCursor: null });
    const filtered = await t.graphql('query($f: TaskFilter) { tasks(filter: $f) { items { title } } }', { f: { status: 'TODO', estimatedHours_min: 4 } }, as(alice));
    expect(filtered.body.data.tasks.items.map((i: { title: string }) => i.title)).toContain('From GraphQL');
    const invalid = await t.graphql('mutation($i: CreateTaskInput!) { createTask(input: $i) { id } }', { i: { title: 'x', estimatedHours: 1000 } }, as(alice));
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', details: { estimatedHours: 'must be at most 999' } });
    const customer = (await create(alice, 'customers', { name: 'Graph Customer', account: 9001, office: 'G' })).body.data;
    const note = await t.graphql('mutation($p: ID!) { createNote(parentId: $p, input: { body: "via GraphQL" }) { id body parentId } }', { p: customer.id }, as(alice));
    expect(note.body.errors).toBeUndefined();
    expect(note.body.data.createNote).toMatchObject({ body: 'via GraphQL', parentId: customer.id });
    const customers = await t.graphql('query($p: [ID!]) { customers(ids: $p) { items { name notes { body } } } }', { p: [customer.id] }, as(alice));
    expect(customers.body.data.customers.items).toEqual([{ name: 'Graph Customer', notes: [{ body: 'via GraphQL' }] }]);
    const removed = await t.graphql('mutation($p: ID!, $n: ID!) { deleteNote(parentId: $p, id: $n) }', { p: customer.id, n: note.body.data.createNote.id }, as(alice));
    expect(removed.body.data.deleteNote).toBe(true);
  });
});

describe('plans and cursors', () => {
  it('applies the plan limit to creates and pages with cursors in GraphQL', async () => {
    const small = await createTestApp({ PLANS_JSON: JSON.stringify({ free: { limits: { tasks: 2 } } }) });
    try {
      const user = await signUp(small);
      for (const title of ['one', 'two']) expect((await small.json('POST', '/api/v1/tasks', { title }, as(user))).status).toBe(201);
      const over = await small.json('POST', '/api/v1/tasks', { title: 'three' }, as(user));
      expect(over).toMatchObject({ status: 403, body: { code: 'PLAN_LIMIT_REACHED', details: { limitSlug: 'tasks', max: 2 } } });
      const usage = await small.json('GET', `/api/v1/teams/${user.activeTeamId}/usage/tasks`, undefined, as(user));
      expect(usage.body.data).toMatchObject({ current: 2, max: 2, remaining: 0 });

      const first = await small.graphql('{ tasks(first: 1, sortBy: title, sortOrder: asc) { items { title } endCursor } }', undefined, as(user));
      expect(first.body.data.tasks.items).toEqual([{ title: 'one' }]);
      const next = await small.graphql('query($a: String) { tasks(first: 1, after: $a, sortBy: title, sortOrder: asc) { items { title } endCursor } }', { a: first.body.data.tasks.endCursor }, as(user));
      expect(next.body.data.tasks).toEqual({ items: [{ title: 'two' }], endCursor: null });
    } finally {
      await small.close();
    }
  });
});

describe('ids from elsewhere', () => {
  it('reads a record whose id is any PostgreSQL uuid, not only a generated v4 one', async () => {
    const owner = await signUp(t);
    const created = (await create(owner, 'customers', { name: 'Imported', account: 4242, office: 'X' })).body.data;
    const imported = 'a1b2c3d4-0000-0000-0000-000000000000';
    await t.database.prisma.$executeRaw`UPDATE customers SET id = ${imported}::uuid WHERE id = ${created.id}::uuid`;
    expect((await t.json('GET', `/api/v1/customers/${imported}`, undefined, as(owner))).body.data).toMatchObject({ id: imported, name: 'Imported' });
    expect((await t.json('GET', `/api/v1/customers?ids=${imported}`, undefined, as(owner))).body.data.map((c: { id: string }) => c.id)).toEqual([imported]);
  });
});

describe('exact totals', () => {
  const todoTotal = async (app: TestApp, user: SignedUpUser, slug = 'tasks', query = 'status=todo') =>
    (await app.json('GET', `/api/v1/${slug}?${query}`, undefined, as(user))).body.pagination.total as number;

  it('follows every write: through the API, straight in SQL, on another instance', async () => {
    const owner = await signUp(t);
    for (const title of ['a', 'b']) await create(owner, 'tasks', { title });
    expect(await todoTotal(t, owner)).toBe(2);
    expect(await todoTotal(t, owner)).toBe(2); // remembered, and still right
    const third = (await create(owner, 'tasks', { title: 'c' })).body.data;
    expect(await todoTotal(t, owner)).toBe(3);
    await t.json('PATCH', `/api/v1/tasks/${third.id}`, { status: 'done' }, as(owner));
    expect(await todoTotal(t, owner)).toBe(2);
    expect(await todoTotal(t, owner, 'tasks', 'status=done')).toBe(1);
    await t.json('DELETE', `/api/v1/tasks/${third.id}`, undefined, as(owner));
    expect(await todoTotal(t, owner, 'tasks', 'status=done')).toBe(0);

    // A write outside the API (the database owner, no RLS) renews the version too.
    await t.database.prisma.$executeRaw`UPDATE tasks SET status = 'review' WHERE user_id = ${owner.id}::uuid AND title = 'a'`;
    expect(await todoTotal(t, owner)).toBe(1);

    // Another instance on the same database writes; this one answers the new total at once.
    const other = await createTestApp({}, t);
    try {
      // Sessions live in the database: the same cookie works there.
      await other.json('POST', '/api/v1/tasks', { title: 'd' }, as(owner));
      expect(await todoTotal(t, owner)).toBe(2);
    } finally {
      await other.close();
    }
  });

  it('keeps a shared entity\'s total per team, and a private one per creator', async () => {
    const owner = await signUp(t);
    const mate = await signUp(t);
    await joinTeam(t, owner, owner.activeTeamId, mate, 'member');
    await create(owner, 'customers', { name: 'One', account: 1, office: 'X' });
    await create(owner, 'tasks', { title: 'mine' });
    expect(await todoTotal(t, owner, 'customers', '')).toBe(1);
    expect(await todoTotal(t, mate, 'tasks')).toBe(0);
    await create(mate, 'customers', { name: 'Two', account: 2, office: 'X' });
    await create(mate, 'tasks', { title: 'theirs' });
    expect(await todoTotal(t, owner, 'customers', '')).toBe(2);
    expect(await todoTotal(t, owner)).toBe(1);
    expect(await todoTotal(t, mate)).toBe(1);
  });

  it('lets a team with records be deleted (its versions go with it)', async () => {
    const owner = await signUp(t);
    const teamId = await createTeam(t, owner, `versions-${Date.now()}`);
    await t.json('POST', '/api/v1/teams/switch', { teamId }, as(owner));
    await create(owner, 'tasks', { title: 'doomed' });
    expect(await todoTotal(t, owner)).toBe(1);
    expect((await t.json('DELETE', `/api/v1/teams/${teamId}`, undefined, as(owner))).status).toBe(204);
    expect(await t.database.prisma.$queryRaw`SELECT * FROM record_versions WHERE team_id = ${teamId}::uuid`).toEqual([]);
  });
});
