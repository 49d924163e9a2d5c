// The entities' typed GraphQL face, through /graphql: per-definition input types and enums seen by
// introspection, wrong values refused by GraphQL before anything is written, typed CRUD (enum values
// for select fields, days, metas, soft delete answering the record), and scopes declared on the
// fields (403 naming the scope, 401 for anonymous callers, public reads for anyone).
import { graphql as execute } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeEntities } from '../../config/sanitize-entities.js';
import { createBuilder } from '../../graphql/builder.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { registerEntities } from './schema.js';

let t: TestApp;
let alice: SignedUpUser;
beforeAll(async () => {
  t = await createTestApp();
  alice = await signUp(t, { firstName: 'Alice' });
});
afterAll(() => t.close());

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
const taskCount = async () => (await t.database.prisma.$queryRaw<[{ n: number }]>`SELECT count(*)::int AS n FROM tasks`)[0].n;

describe('typed entity schema', () => {
  it('shows CreateTaskInput with title: String! and status: TaskStatus, and no JSONObject on entity operations', async () => {
    const res = await t.graphql('{ __type(name: "CreateTaskInput") { inputFields { name type { kind name ofType { name } } } } }', undefined, as(alice));
    const fields = Object.fromEntries(res.body.data.__type.inputFields.map((f: { name: string; type: unknown }) => [f.name, f.type]));
    expect(fields.title).toEqual({ kind: 'NON_NULL', name: null, ofType: { name: 'String' } });
    expect(fields.status).toEqual({ kind: 'ENUM', name: 'TaskStatus', ofType: null });
    expect(fields.dueDate).toMatchObject({ kind: 'SCALAR', name: 'Date' });
    const status = await t.graphql('{ __type(name: "TaskStatus") { enumValues { name } } }', undefined, as(alice));
    expect(status.body.data.__type.enumValues.map((v: { name: string }) => v.name).sort()).toEqual(['BLOCKED', 'DONE', 'IN_PROGRESS', 'REVIEW', 'TODO']);
    const roots = await t.graphql('{ q: __type(name: "Query") { fields { name args { type { name ofType { name } } } type { name ofType { name } } } } m: __type(name: "Mutation") { fields { name args { type { name ofType { name } } } type { name ofType { name } } } } }', undefined, as(alice));
    const entityFields = [...roots.body.data.q.fields, ...roots.body.data.m.fields].filter((f: { name: string }) => /^(tasks?|posts?|customers?|(create|update|delete)(Task|Post|Customer|Note))$/.test(f.name));
    expect(entityFields.length).toBe(18);
    expect(JSON.stringify(entityFields)).not.toContain('JSONObject');
  });

  it('refuses a wrong enum value or a wrong day before any resolver: nothing is written', async () => {
    const before = await taskCount();
    const cases: [string, Record<string, unknown> | undefined][] = [
      ['mutation($i: CreateTaskInput!) { createTask(input: $i) { id } }', { i: { title: 'Stored string', status: 'in-progress' } }],
      ['mutation { createTask(input: { title: "Unknown value", status: SIDEWAYS }) { id } }', undefined],
      ['mutation($i: CreateTaskInput!) { createTask(input: $i) { id } }', { i: { title: 'Bad day', dueDate: '2026-13-45' } }],
      ['mutation { createTask(input: { title: "Bad day", dueDate: "tomorrow" }) { id } }', undefined],
      ['mutation($i: CreateTaskInput!) { createTask(input: $i) { id } }', { i: { title: 'Bad metas', metas: { a: 1 } } }],
      ['mutation($i: CreateTaskInput!) { createTask(input: $i) { id } }', { i: { status: 'TODO' } }],
      ['{ tasks(sortBy: password) { total } }', undefined],
    ];
    for (const [query, variables] of cases) {
      const res = await t.graphql(query, variables, as(alice));
      // A wrong variable is a 400; a wrong literal fails validation, which yoga answers 200 on application/json.
      expect(res.status, query).toBe(variables ? 400 : 200);
      expect(res.body.errors[0].extensions.code, JSON.stringify(res.body)).toBe(variables ? 'BAD_REQUEST' : 'GRAPHQL_VALIDATION_FAILED');
      expect(res.body.data, query).toBeUndefined();
    }
    expect(await taskCount()).toBe(before);
  });

  it('creates, reads, updates, lists and deletes a task with typed values', async () => {
    const input = { title: 'Typed', status: 'IN_PROGRESS', priority: 'HIGH', tags: ['a', 'b'], dueDate: '2026-12-01', estimatedHours: 3.5, metas: { color: 'red', size: 'L' } };
    const fields = 'id title description status priority tags dueDate estimatedHours completed metas createdAt userId';
    const created = await t.graphql(`mutation($i: CreateTaskInput!) { createTask(input: $i) { ${fields} } }`, { i: input }, as(alice));
    expect(created.body.errors).toBeUndefined();
    const task = created.body.data.createTask;
    expect(task).toMatchObject({ ...input, description: null, completed: false, userId: alice.id });
    // The stored value is the definition's string: REST shows it as it always did.
    expect((await t.json('GET', `/api/v1/tasks/${task.id}`, undefined, as(alice))).body.data).toMatchObject({ status: 'in-progress', priority: 'high', dueDate: '2026-12-01' });
    expect((await t.graphql(`query($id: ID!) { task(id: $id) { ${fields} } }`, { id: task.id }, as(alice))).body.data.task).toEqual(task);

    const update = 'mutation($id: ID!, $i: UpdateTaskInput!) { updateTask(id: $id, input: $i) { title status dueDate estimatedHours metas } }';
    const updated = await t.graphql(update, { id: task.id, i: { status: 'DONE', dueDate: null, estimatedHours: null, metas: { size: null } } }, as(alice));
    expect(updated.body.data.updateTask).toEqual({ title: 'Typed', status: 'DONE', dueDate: null, estimatedHours: null, metas: { color: 'red' } });
    // A required field cannot be cleared; the one validator says so (422 with details).
    const cleared = await t.graphql(update, { id: task.id, i: { title: null } }, as(alice));
    expect(cleared.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', details: { title: 'is required' } });
    const tooLong = await t.graphql(update, { id: task.id, i: { title: 'x'.repeat(201) } }, as(alice));
    expect(tooLong.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', details: { title: 'must be at most 200 characters' } });

    const list = 'query($f: TaskFilter, $d: TaskFieldName) { tasks(filter: $f, sortBy: title, sortOrder: asc, distinct: $d, limit: 5) { items { title status } values { value label entityType } total } }';
    const listed = await t.graphql(list, { f: { status: 'DONE', tags: 'a' } }, as(alice));
    expect(listed.body.data.tasks).toEqual({ items: [{ title: 'Typed', status: 'DONE' }], values: [], total: 1 });
    const distinct = await t.graphql(list, { d: 'status' }, as(alice));
    expect(distinct.body.data.tasks.items).toEqual([]);
    expect(distinct.body.data.tasks.values).toContainEqual({ value: 'done', label: 'done', entityType: 'tasks' });
    // What types cannot say is the service's: the contract's 400 with every problem.
    const invalid = await t.graphql('{ tasks(limit: 101, ids: ["nope"], distinct: title) { total } }', undefined, as(alice));
    expect(invalid.body.errors[0]).toMatchObject({ message: 'Invalid query parameters', extensions: { code: 'VALIDATION_ERROR' } });
    expect(invalid.body.errors[0].extensions.details.errors.map((e: { path: string }) => e.path)).toEqual(['limit', 'distinct', 'ids']);

    const deleted = await t.graphql('mutation($id: ID!) { deleteTask(id: $id) { id message record { id } } }', { id: task.id }, as(alice));
    expect(deleted.body.data.deleteTask).toEqual({ id: task.id, message: 'Task deleted', record: null });
    expect((await t.graphql('query($id: ID!) { task(id: $id) { id } }', { id: task.id }, as(alice))).body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('answers a soft delete with the record and its deletedAt; anonymous callers read published posts only', async () => {
    const create = 'mutation($i: CreatePostInput!) { createPost(input: $i) { id status publishedAt } }';
    const published = await t.graphql(create, { i: { title: 'Hello', slug: 'typed-hello', status: 'PUBLISHED', publishedAt: '2026-01-02T03:04:05.000Z' } }, as(alice));
    expect(published.body.data.createPost).toMatchObject({ status: 'PUBLISHED', publishedAt: '2026-01-02T03:04:05.000Z' });
    const draft = (await t.graphql(create, { i: { title: 'Draft', slug: 'typed-draft' } }, as(alice))).body.data.createPost;
    expect(draft.status).toBe('DRAFT');

    const anonymous = await t.graphql('{ posts(limit: 100) { items { id slug userId } } }');
    const slugs = anonymous.body.data.posts.items.map((p: { slug: string }) => p.slug);
    expect(slugs).toContain('typed-hello');
    expect(slugs).not.toContain('typed-draft');
    expect(anonymous.body.data.posts.items.every((p: { userId: string | null }) => p.userId === null)).toBe(true);
    expect((await t.graphql('query($id: ID!) { post(id: $id) { title } }', { id: draft.id })).body.errors[0].extensions.code).toBe('NOT_FOUND');

    const deleted = await t.graphql('mutation($id: ID!) { deletePost(id: $id) { id message record { id title deletedAt } } }', { id: draft.id }, as(alice));
    expect(deleted.body.data.deletePost).toMatchObject({ id: draft.id, message: 'Post deleted', record: { id: draft.id, title: 'Draft' } });
    expect(Date.parse(deleted.body.data.deletePost.record.deletedAt)).not.toBeNaN();
    expect((await t.graphql('query($id: ID!) { post(id: $id) { id } }', { id: draft.id }, as(alice))).body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('takes a DateTime as typed input on both faces: an offset is the same instant, years outside 0001 to 9999 are 422 for the field', async () => {
    const create = 'mutation($i: CreatePostInput!) { createPost(input: $i) { id publishedAt } }';
    const offset = await t.graphql(create, { i: { title: 'Offset', slug: 'typed-offset', publishedAt: '2026-01-02T05:04:05+02:00' } }, as(alice));
    expect(offset.body.data.createPost.publishedAt).toBe('2026-01-02T03:04:05.000Z');
    const rest = await t.json('POST', '/api/v1/posts', { title: 'Offset REST', slug: 'typed-offset-rest', publishedAt: '2026-01-02T05:04:05+02:00' }, as(alice));
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(rest.body.data.publishedAt).toBe('2026-01-02T03:04:05.000Z');

    const yearZero = '0000-06-01T00:00:00Z';
    const refused = await t.graphql(create, { i: { title: 'Year zero', slug: 'typed-year-zero', publishedAt: yearZero } }, as(alice));
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', details: { publishedAt: 'must be an ISO 8601 date-time (years 0001 to 9999)' } });
    const refusedRest = await t.json('POST', '/api/v1/posts', { title: 'Year zero', slug: 'typed-year-zero', publishedAt: yearZero }, as(alice));
    expect(refusedRest.status).toBe(422);
    expect(refusedRest.body.details).toEqual({ publishedAt: 'must be an ISO 8601 date-time (years 0001 to 9999)' });
  });

  it('types children the same way and answers each parent its own, whether selected directly or through a fragment', async () => {
    const create = 'mutation($i: CreateCustomerInput!) { createCustomer(input: $i) { id visitDays } }';
    const first = (await t.graphql(create, { i: { name: 'First', account: 71, office: 'A', visitDays: ['LUN', 'VIE'] } }, as(alice))).body.data.createCustomer;
    expect(first.visitDays).toEqual(['LUN', 'VIE']);
    const second = (await t.graphql(create, { i: { name: 'Second', account: 72, office: 'B' } }, as(alice))).body.data.createCustomer;
    const note = 'mutation($p: ID!, $i: CreateNoteInput!) { createNote(parentId: $p, input: $i) { body parentId } }';
    for (const [parent, body] of [[first.id, 'one'], [first.id, 'two'], [second.id, 'three']]) {
      expect((await t.graphql(note, { p: parent, i: { body } }, as(alice))).body.data.createNote).toEqual({ body, parentId: parent });
    }
    const expected = [{ name: 'First', notes: [{ body: 'one' }, { body: 'two' }] }, { name: 'Second', notes: [{ body: 'three' }] }];
    const direct = await t.graphql('query($ids: [ID!]) { customers(ids: $ids, sortBy: name, sortOrder: asc) { items { name notes { body } } } }', { ids: [first.id, second.id] }, as(alice));
    expect(direct.body.data.customers.items).toEqual(expected);
    const fragment = await t.graphql('fragment C on Customer { name notes { body } } query($ids: [ID!]) { customers(ids: $ids, sortBy: name, sortOrder: asc) { items { ...C } } }', { ids: [first.id, second.id] }, as(alice));
    expect(fragment.body.data.customers.items).toEqual(expected);
    const read = await t.graphql('query($id: ID!) { customer(id: $id) { name notes { body } } }', { id: first.id }, as(alice));
    expect(read.body.data.customer).toEqual(expected[0]);
    const wrongDay = await t.graphql(create, { i: { name: 'Third', account: 73, office: 'C', visitDays: ['SUNDAY'] } }, as(alice));
    expect(wrongDay.status).toBe(400);
  });

  it('checks scopes on the fields: 403 naming the scope for a key without it, 401 for anonymous callers of private entities', async () => {
    const key = await createKey(t, alice, { scopes: ['customers:read'] });
    const listed = await t.graphql('{ tasks { total } }', undefined, bearer(key.key));
    expect(listed.status).toBe(403);
    expect(listed.body.errors[0]).toMatchObject({ message: 'Insufficient permissions - tasks:read scope required', extensions: { code: 'FORBIDDEN' } });
    const before = await taskCount();
    const created = await t.graphql('mutation { createTask(input: { title: "Not allowed" }) { id } }', undefined, bearer(key.key));
    expect(created.body.errors[0].message).toBe('Insufficient permissions - tasks:write scope required');
    expect(await taskCount()).toBe(before);
    const customers = await t.graphql('{ customers { total } }', undefined, bearer(key.key));
    expect(customers.body).toEqual({ data: { customers: { total: expect.any(Number) } } });
    const note = await t.graphql('mutation { createNote(parentId: "00000000-0000-4000-8000-000000000000", input: { body: "x" }) { id } }', undefined, bearer(key.key));
    expect(note.body.errors[0].message).toBe('Insufficient permissions - customers:write scope required');

    const anonymous = await t.graphql('{ tasks { total } }');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].extensions.code).toBe('AUTHENTICATION_FAILED');
    expect((await t.graphql('mutation { createPost(input: { title: "x", slug: "x" }) { id } }')).status).toBe(401);
  });
});

describe('an operation whose definition lists no scope', () => {
  it('refuses everyone, sessions with every scope included, naming the operation', async () => {
    const [d] = sanitizeEntities([{ name: 'Receipt', slug: 'receipts', tableName: 'receipts', fields: [{ name: 'number', type: 'string', required: true }], permissions: { list: ['receipts:read'] } }]);
    const b = createBuilder();
    registerEntities(b, [d!]);
    const session = { actor: { kind: 'user', via: 'session', scopes: ['*'], role: 'superadmin', userId: 'u', teams: [], activeTeamId: null } };
    const res = await execute({ schema: b.toSchema(), source: 'mutation { createReceipt(input: { number: "1" }) { id } }', contextValue: session });
    expect(res.errors?.[0]?.message).toBe('Insufficient permissions - receipts:create scope required (the definition grants it to no scope)');
  });
});
