// REST entity routes as typed GraphQL documents (rest.ts): the edge refuses what the types would
// (a value outside the enum is 422, nothing written), answers what GraphQL answers for the same record
// in REST's shape (stored enum strings, not enum value names), and a path whose operations the
// definition all turns off still answers 405 (with an empty Allow), not 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityDefinitions } from '../../config/entities/index.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import type { TestApp } from '../../testkit/test-app.js';

let t: TestApp;
let owner: SignedUpUser;
// Posts lose LIST and CREATE: `/api/v1/posts` has no operation left. The routes are built when the
// app's modules are first imported, so the app is imported after the change.
const posts = entityDefinitions.find((d) => d.slug === 'posts')!;
const saved = { ...posts.operations };
beforeAll(async () => {
  Object.assign(posts.operations, { list: false, create: false });
  const { createTestApp } = await import('../../testkit/test-app.js');
  t = await createTestApp();
  owner = await signUp(t);
});
afterAll(async () => {
  Object.assign(posts.operations, saved);
  await t.close();
});

const as = () => ({ cookie: owner.cookie });
const total = async () => (await t.json('GET', '/api/v1/tasks?limit=1', undefined, as())).body.pagination.total as number;

describe('bodies', () => {
  it('refuses a value outside the enum (stored value or enum name) with 422, and writes nothing', async () => {
    const task = (await t.json('POST', '/api/v1/tasks', { title: 'Kept', status: 'in-progress' }, as())).body.data;
    const before = await total();
    for (const status of ['nope', 'IN_PROGRESS', 3, ['todo']]) {
      const created = await t.json('POST', '/api/v1/tasks', { title: 'Never', status }, as());
      expect(created, JSON.stringify(status)).toMatchObject({ status: 422, body: { success: false, error: 'Validation failed', code: 'VALIDATION_FAILED' } });
      expect(created.body.details.status).toMatch(/one of/);
      const patched = await t.json('PATCH', `/api/v1/tasks/${task.id}`, { title: 'Changed', status }, as());
      expect(patched.status).toBe(422);
    }
    const tags = await t.json('POST', '/api/v1/customers', { name: 'C', account: 1, office: 'X', visitDays: ['lun', 'sun'] }, as());
    expect(tags).toMatchObject({ status: 422, body: { details: { visitDays: expect.stringMatching(/among/) } } });
    expect(await total()).toBe(before);
    expect((await t.json('GET', `/api/v1/tasks/${task.id}`, undefined, as())).body.data).toMatchObject({ title: 'Kept', status: 'in-progress' });
  });
});

describe('who may write is decided before what is written', () => {
  it('answers 401 to nobody and 403 to a key without the scope, even for a body that would be 422', async () => {
    const invalid = { title: 'Never', status: 'nope' };
    expect(await t.json('POST', '/api/v1/tasks', invalid)).toMatchObject({ status: 401, body: { success: false, error: 'Unauthorized' } });
    const key = (await t.json('POST', '/api/v1/api-keys', { name: 'reader', scopes: ['tasks:read'] }, as())).body.data.key as string;
    const refused = await t.json('POST', '/api/v1/tasks', invalid, { authorization: `Bearer ${key}` });
    expect(refused).toMatchObject({ status: 403, body: { success: false, error: 'Insufficient permissions - tasks:write scope required' } });
    // With the scope, the same body is the 422 it always was.
    expect((await t.json('POST', '/api/v1/tasks', invalid, as())).status).toBe(422);
  });
});

describe('answers', () => {
  it('answers, for one record, what GraphQL answers, with the stored enum strings', async () => {
    const body = { title: 'Same', status: 'in-progress', priority: 'urgent', tags: ['x', 'y'], dueDate: '2026-03-04', estimatedHours: 2.5, metas: { k: 'v' } };
    const created = await t.json('POST', '/api/v1/tasks', body, as());
    expect(created.status).toBe(201);
    const rest = (await t.json('GET', `/api/v1/tasks/${created.body.data.id}?metas=all`, undefined, as())).body.data;
    expect(rest).toEqual(created.body.data);
    const selection = Object.keys(rest).join(' ');
    const graphql = await t.graphql(`query($id: ID!) { task(id: $id) { ${selection} } }`, { id: rest.id }, as());
    expect(graphql.body.errors).toBeUndefined();
    expect(graphql.body.data.task).toEqual({ ...rest, status: 'IN_PROGRESS', priority: 'URGENT' });
    expect(rest).toMatchObject({ status: 'in-progress', priority: 'urgent', userId: owner.id });

    const filtered = await t.json('GET', '/api/v1/tasks?status=in-progress&priority=urgent&fields=id,status', undefined, as());
    expect(filtered.body.data).toEqual([{ id: rest.id, status: 'in-progress' }]);

    // Enumerated multiselect values go out and come back as stored, in a write, a filter and a child listing.
    const customer = await t.json('POST', '/api/v1/customers', { name: 'Days', account: 7, office: 'X', visitDays: ['lun', 'mie'], metas: { a: 'b' } }, as());
    expect(customer).toMatchObject({ status: 201, body: { data: { visitDays: ['lun', 'mie'], contactDays: [], metas: { a: 'b' } } } });
    const byDay = await t.json('GET', '/api/v1/customers?visitDays=mie&child=notes', undefined, as());
    expect(byDay.body.data).toEqual([{ ...customer.body.data, metas: undefined, notes: [] }].map(({ metas: _m, ...c }) => c));
  });

  it('gives distinct values in the field\'s JSON type, as before', async () => {
    await t.json('POST', '/api/v1/tasks', { title: 'Distinct', estimatedHours: 7, completed: true }, as());
    const hours = await t.json('GET', '/api/v1/tasks?distinct=true&fields=estimatedHours', undefined, as());
    expect(hours.body.data).toContainEqual({ value: 7, label: '7', entityType: 'tasks' });
    const done = await t.json('GET', '/api/v1/tasks?distinct=true&fields=completed', undefined, as());
    expect(done.body.data).toContainEqual({ value: true, label: 'true', entityType: 'tasks' });
    const statuses = await t.json('GET', '/api/v1/tasks?distinct=true&fields=status', undefined, as());
    expect(statuses.body.data).toContainEqual({ value: 'in-progress', label: 'in-progress', entityType: 'tasks' });
  });
});

describe('operations turned off', () => {
  it('answers 405 METHOD_NOT_ALLOWED on a path none of whose operations is on, and keeps the others', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await t.fetch('/api/v1/posts', { method, headers: { cookie: owner.cookie, 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{"title":"x","slug":"x"}' } : {}) });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('');
      expect(await res.json()).toMatchObject({ success: false, code: 'METHOD_NOT_ALLOWED' });
    }
    const missing = await t.json('GET', '/api/v1/posts/00000000-0000-4000-8000-000000000000', undefined, as());
    expect(missing).toMatchObject({ status: 404, body: { error: 'Post not found', code: 'NOT_FOUND' } });
    const operations = JSON.parse(await (await t.fetch('/api/v1/openapi.json')).text()).paths as Record<string, object>;
    expect(operations['/api/v1/posts']).toBeUndefined();
    expect(Object.keys(operations['/api/v1/posts/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
  });
});
