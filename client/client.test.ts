// The typed client against a real server (over HTTP, Node's fetch): the README's example runs as
// written, REST answers and errors are what its types say, GraphQL results are typed by the document.
// Its types are checked by `npm run typecheck` (expectTypeOf), its behaviour here. Must pass on
// PostgreSQL (TEST_DATABASE_URL) as well as on PGlite.
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { signUp, type SignedUpUser } from '../src/testkit/accounts.js';
import { createKey } from '../src/testkit/api-keys.js';
import { createTestApp, type TestApp } from '../src/testkit/test-app.js';
import { quickstart } from './examples/quickstart.js';
import { graphql } from './src/generated/graphql/index.js';
import { createPlatformClient } from './src/index.js';

let t: TestApp;
let owner: SignedUpUser;
let key: string;

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  owner = await signUp(t);
  key = (await createKey(t, owner, { name: 'client', scopes: ['tasks:*'] })).key;
});
afterAll(async () => {
  await t?.close();
});

describe('typed client', () => {
  it('runs the README example: a task created over REST, listed, and found by a typed GraphQL query', async () => {
    const { task, listed, open } = await quickstart(t.origin, key);
    expectTypeOf(task.title).toEqualTypeOf<string>();
    expect(task).toMatchObject({ title: 'Write the report', priority: 'high', status: 'todo' });
    expectTypeOf(listed[0]!.title).toEqualTypeOf<string>();
    expect(listed.some((row) => row.id === task.id && row.title === 'Write the report')).toBe(true);
    expect(open).toContainEqual({ id: task.id, title: 'Write the report', priority: 'HIGH' });
  });

  it('answers errors in the contract’s envelope, typed: 404 for an unknown id, 401 without credentials, 403 without the scope', async () => {
    const client = createPlatformClient({ baseUrl: t.origin, apiKey: key });
    const missing = await client.rest.GET('/api/v1/tasks/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ success: false, code: 'NOT_FOUND' });

    const anonymous = await createPlatformClient({ baseUrl: t.origin }).rest.GET('/api/v1/tasks', {});
    expect(anonymous.response.status).toBe(401);

    const narrow = (await createKey(t, owner, { name: 'narrow', scopes: ['customers:read'] })).key;
    const refused = await createPlatformClient({ baseUrl: t.origin, apiKey: narrow }).rest.POST('/api/v1/tasks', { body: { title: 'Nope' } });
    expect(refused.response.status).toBe(403);
    expect(refused.data).toBeUndefined();
  });

  it('lists records typed as the entity, with its filters, and answers a refused query with the error envelope', async () => {
    const client = createPlatformClient({ baseUrl: t.origin, apiKey: key });
    await client.rest.POST('/api/v1/tasks', { body: { title: 'Listed urgent', priority: 'urgent' } });
    const urgent = await client.list('/api/v1/tasks', { priority: 'urgent', limit: 5 });
    expectTypeOf(urgent.data!.items[0]!.priority).toEqualTypeOf<'low' | 'medium' | 'high' | 'urgent' | null>();
    expect(urgent.data?.items.map((row) => [row.title, row.priority])).toEqual([['Listed urgent', 'urgent']]);
    expect(urgent.data?.pagination).toMatchObject({ total: 1, limit: 5 });
    const bad = await client.list('/api/v1/tasks', { limit: 0 });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
  });

  it('sends GraphQL variables and returns errors with their code', async () => {
    const client = createPlatformClient({ baseUrl: t.origin, apiKey: key });
    const byId = graphql(`
      query TaskById($id: ID!) {
        task(id: $id) {
          id
          title
        }
      }
    `);
    const created = await client.rest.POST('/api/v1/tasks', { body: { title: 'By id' } });
    const found = await client.graphql(byId, { id: created.data!.data.id });
    expectTypeOf(found.data!.task!.title).toEqualTypeOf<string>();
    expect(found.data?.task).toEqual({ id: created.data!.data.id, title: 'By id' });
    const bad = await client.graphql(byId, { id: 'not-a-uuid' });
    expect(bad.errors?.[0]?.extensions?.code).toBeTruthy();
  });

  it('knows the app’s custom operation on both faces, typed: REST POST /api/v1/orders/{id}/pay and GraphQL payOrder', async () => {
    const client = createPlatformClient({ baseUrl: t.origin, apiKey: (await createKey(t, owner, { name: 'orders', scopes: ['orders:*', 'customers:*'] })).key });
    const customer = await client.rest.POST('/api/v1/customers', { body: { name: 'Client buyer', account: 42, office: 'Madrid' } });
    const order = async () => (await client.rest.POST('/api/v1/orders', { body: { customerId: customer.data!.data.id } })).data!.data;
    const first = await order();
    const paid = await client.rest.POST('/api/v1/orders/{id}/pay', { params: { path: { id: first.id } } });
    expectTypeOf(paid.data!.data.status).toEqualTypeOf<'draft' | 'placed' | 'paid' | null>();
    expect(paid.data?.data).toMatchObject({ id: first.id, status: 'paid' });

    const pay = graphql(`
      mutation PayOrderFromClient($id: ID!) {
        payOrder(id: $id) {
          number
          status
          paidAt
        }
      }
    `);
    const second = await order();
    const result = await client.graphql(pay, { id: second.id });
    expectTypeOf(result.data!.payOrder.status).toEqualTypeOf<'DRAFT' | 'PAID' | 'PLACED' | null>();
    expect(result.data?.payOrder).toMatchObject({ number: second.number, status: 'PAID' });
  });
});
