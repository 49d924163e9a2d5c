// The OpenAPI document is typed per entity: what a client generator or Swagger UI reads from
// GET /api/v1/openapi.json says what the entity routes accept and answer, and its examples are
// requests the API takes. A disabled operation is not in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeEntities } from '../../config/sanitize-entities.js';
import { entityDefinitions } from '../../config/entities/index.js';
import { buildOpenApi } from '../../rest/openapi.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { entityRoutes } from './rest.js';

type Operation = { operationId?: string; tags?: string[]; parameters?: { name: string; in: string; schema: any; required?: boolean }[]; requestBody?: any; responses: Record<string, any> };
type Doc = { paths: Record<string, any>; components: { schemas: Record<string, any> }; servers?: { url: string }[]; tags?: { name: string }[] };

let t: TestApp;
let doc: Doc;
let owner: SignedUpUser;

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t);
  const res = await t.json<Doc>('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});

afterAll(async () => {
  await t?.close();
});

const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item as Record<string, Operation>).map(([method, op]) => ({ path, method, op })));
const example = (content: any) => content['application/json'].example;

describe('the OpenAPI document, per entity', () => {
  it('has a record schema per entity with its fields, types and the stored enum strings', () => {
    const task = doc.components.schemas.Task;
    expect(task.properties.status.enum).toEqual(['todo', 'in-progress', 'review', 'done', 'blocked', null]);
    expect(task.properties.title).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
    expect(task.properties.dueDate).toMatchObject({ type: ['string', 'null'], format: 'date' });
    expect(task.properties.estimatedHours).toMatchObject({ type: ['number', 'null'], minimum: 0, maximum: 999 });
    expect(task.properties.createdAt).toMatchObject({ type: 'string', format: 'date-time' });
    expect(task.required).toEqual(expect.arrayContaining(['id', 'title', 'createdAt', 'updatedAt']));
    // Definition options: metas, soft delete, children, patterns.
    expect(task.properties.metas.additionalProperties).toEqual({ type: 'string', maxLength: 10_000 });
    expect(doc.components.schemas.Post.properties.deletedAt.format).toBe('date-time');
    expect(doc.components.schemas.Post.properties.slug.pattern).toBe('^[a-z0-9-]+$');
    expect(doc.components.schemas.Customer.properties.notes.items).toEqual({ $ref: '#/components/schemas/Note' });
    expect(doc.components.schemas.Customer.properties.visitDays.items.enum).toEqual(['lun', 'mar', 'mie', 'jue', 'vie']);
  });

  it('has create and update bodies: required fields, defaults, nothing unknown, null clears', () => {
    const create = doc.components.schemas.CreateTaskInput;
    expect(create.required).toContain('title');
    expect(create.required).not.toContain('status'); // it has a default
    expect(create.properties.status.default).toBe('todo');
    expect(create.additionalProperties).toBe(false);
    const update = doc.components.schemas.UpdateTaskInput;
    expect(update.required).toBeUndefined();
    expect(update.properties.title.type).toBe('string'); // a required field cannot be cleared
    expect(update.properties.description.type).toEqual(['string', 'null']);
    expect(doc.paths['/api/v1/tasks'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateTaskInput' });
  });

  it('documents LIST with its parameters and their allowed values, and the envelopes', () => {
    const list = doc.paths['/api/v1/tasks'].get;
    expect(list.operationId).toBe('listTasks');
    const params = Object.fromEntries((list.parameters as Operation['parameters'])!.map((p) => [p.name, p.schema]));
    expect(params.sortBy.enum).toEqual(['title', 'status', 'priority', 'dueDate', 'estimatedHours', 'createdAt', 'updatedAt']);
    expect(params.limit).toMatchObject({ minimum: 1, maximum: 100, default: 10 });
    expect(params.sortOrder.enum).toEqual(['asc', 'desc']);
    expect(params.dateField.enum).toEqual(['dueDate', 'createdAt', 'updatedAt']);
    expect(params.from.format).toBe('date');
    expect(params.status.enum).toContain('in-progress');
    expect(params.estimatedHours_min.type).toBe('number');
    expect(params.metas.enum).toEqual(['all']);
    expect(params.child).toBeUndefined(); // tasks have no children
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429']));
    expect(list.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TaskListResponse' });
    expect(doc.components.schemas.TaskListResponse.required).toEqual(['success', 'data', 'pagination']);
    expect(example(list.responses['400'].content).details.errors[0]).toMatchObject({ path: 'limit', code: 'invalid' });
    const create = doc.paths['/api/v1/tasks'].post;
    expect(example(create.responses['422'].content).details).toMatchObject({ title: 'is required' });
    expect(doc.paths['/api/v1/customers'].get.parameters.find((p: { name: string }) => p.name === 'child').schema.enum).toEqual(['all', 'notes']);
    expect(doc.paths['/api/v1/customers/{id}/child/notes'].get.operationId).toBe('listCustomerNotes');
  });

  it('states the scopes each operation requires', () => {
    const list = doc.paths['/api/v1/tasks'].get;
    expect(list['x-required-scopes']).toEqual(['tasks:read']);
    expect(list.description).toContain('Requires scope `tasks:read`');
    expect(doc.paths['/api/v1/tasks'].post['x-required-scopes']).toEqual(['tasks:write']);
    expect(doc.paths['/api/v1/tasks/{id}'].delete['x-required-scopes']).toEqual(['tasks:delete']);
  });

  it('gives every operation a unique operationId, and declares its servers and tags', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.servers?.length).toBeGreaterThan(0);
    const declared = new Set(doc.tags!.map((tag) => tag.name));
    for (const { op } of operations()) for (const tag of op.tags ?? []) expect(declared).toContain(tag);
  });

  it("shows examples the API accepts: each entity's create and update examples succeed", async () => {
    const as = { cookie: owner.cookie };
    let tried = 0;
    // An example's relation id is a placeholder: a required one names a record made from its target's example.
    const made = new Map<string, string>();
    const withRelated = (slug: string, body: Record<string, unknown>) => {
      const d = entityDefinitions.find((e) => e.slug === slug);
      for (const f of d?.fields ?? []) if (f.type === 'relation' && f.required && made.has(f.to!)) body[f.name] = made.get(f.to!);
      return body;
    };
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      if (!item.post?.operationId?.startsWith('create') || !/^\/api\/v1\/[a-z-]+$/.test(path) || !item.post.requestBody?.content['application/json'].example) continue;
      tried++;
      const created = await t.json('POST', path, withRelated(path.slice('/api/v1/'.length), { ...example(item.post.requestBody.content) }), as);
      expect(created.status, `${path} ${JSON.stringify(created.body)}`).toBe(201);
      expect(Object.keys(created.body.data)).toEqual(expect.arrayContaining(Object.keys(example(item.post.responses['201'].content).data)));
      const id = created.body.data.id;
      made.set(path.slice('/api/v1/'.length), id);
      const update = doc.paths[`${path}/{id}`]?.patch;
      if (update) expect((await t.json('PATCH', `${path}/${id}`, example(update.requestBody.content), as)).status).toBe(200);
      // Children: the create example of each child route is accepted too.
      for (const childPath of Object.keys(doc.paths).filter((p) => p.startsWith(`${path}/{id}/child/`) && doc.paths[p].post)) {
        const child = await t.json('POST', childPath.replace('{id}', id), example(doc.paths[childPath].post.requestBody.content), as);
        expect(child.status, `${childPath} ${JSON.stringify(child.body)}`).toBe(201);
        expect(Object.keys(child.body.data).sort()).toEqual(Object.keys(example(doc.paths[childPath].post.responses['201'].content).data).sort());
      }
    }
    expect(tried).toBeGreaterThanOrEqual(3); // tasks, customers, posts
  });

  it('describes what LIST answers: every member of a record is in its schema', async () => {
    const listed = await t.json('GET', '/api/v1/tasks?metas=all', undefined, { cookie: owner.cookie });
    expect(listed.status).toBe(200);
    expect(listed.body.data.length).toBeGreaterThan(0);
    const declared = Object.keys(doc.components.schemas.Task.properties);
    for (const record of listed.body.data) expect(declared).toEqual(expect.arrayContaining(Object.keys(record)));
    expect(Object.keys(listed.body.pagination).sort()).toEqual([...doc.components.schemas.Pagination.required].sort());
  });
});

describe('a disabled operation', () => {
  it('is absent from the document (the route answers 405, it is not documented)', () => {
    const [memos] = sanitizeEntities([
      {
        name: 'Memo',
        slug: 'memos',
        tableName: 'memos',
        fields: [{ name: 'text', type: 'string', required: true }],
        permissions: { list: ['memos:read'], read: ['memos:read'], create: ['memos:write'] },
        operations: { update: false, delete: false },
      },
    ]);
    const fixture = buildOpenApi(entityRoutes([memos!]));
    const paths = fixture.paths as Record<string, Record<string, Operation>>;
    expect(Object.keys(paths['/api/v1/memos']!)).toEqual(['get', 'post']);
    expect(Object.keys(paths['/api/v1/memos/{id}']!)).toEqual(['get']);
    const ids = Object.values(paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(ids).not.toContain('updateMemo');
    expect(ids).not.toContain('deleteMemo');
  });
});
