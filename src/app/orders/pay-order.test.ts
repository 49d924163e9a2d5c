// The app's custom operation `payOrder` (src/app/orders/module.ts), as a client sees it: GraphQL
// `payOrder(id)` and REST `POST /api/v1/orders/{id}/pay` mark an order paid through the orders' hooks
// (paidAt set, order:paid scheduled for the team, a paid order refused to a member), with
// the field's one rule on both faces (orders:write; a read-only key gets 403 before anything runs, a
// key of another team 404), in OpenAPI and the served schema, rate-limited per key like any route.
// On PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
let owner: SignedUpUser;
let member: SignedUpUser;
let customerId: string;
const as = (u: SignedUpUser) => ({ cookie: u.cookie });

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t);
  member = await signUp(t);
  await joinTeam(t, owner, owner.activeTeamId, member, 'member');
  customerId = (await t.json('POST', '/api/v1/customers', { name: 'Payer', account: 7, office: 'Madrid' }, as(owner))).body.data.id;
});
afterAll(async () => {
  await t?.close();
});

async function order(u: SignedUpUser = member): Promise<Row> {
  const res = await t.json('POST', '/api/v1/orders', { customerId, lines: [{ item: 'a' }] }, as(u));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

describe('payOrder, an app’s custom operation', () => {
  it('REST: pays through the hooks and answers the record as READ does; paying again is the paid rule’s 422 for a member', async () => {
    const o = await order();
    const paid = await t.json('POST', `/api/v1/orders/${o.id}/pay`, undefined, as(member));
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.success).toBe(true);
    expect(paid.body.data).toMatchObject({ id: o.id, number: o.number, customerId, status: 'paid', lineCount: 1 });
    expect(Date.parse(paid.body.data.paidAt)).not.toBeNaN();
    const read = await t.json('GET', `/api/v1/orders/${o.id}`, undefined, as(member));
    expect(read.body.data).toEqual(paid.body.data);

    const again = await t.json('POST', `/api/v1/orders/${o.id}/pay`, undefined, as(member));
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', details: { status: expect.stringContaining('paid order cannot be changed') } });
    // An owner may (the rule's exception): paidAt stays the first payment's.
    const byOwner = await t.json('POST', `/api/v1/orders/${o.id}/pay`, undefined, as(owner));
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.data.paidAt).toBe(paid.body.data.paidAt);
    expect((await t.json('POST', `/api/v1/orders/00000000-0000-4000-8000-000000000000/pay`, undefined, as(member))).status).toBe(404);
  });

  it('GraphQL: payOrder(id) answers the typed Order; its afterChange schedules the team’s order:paid webhook event', async () => {
    const o = await order();
    const res = await t.graphql('mutation($id: ID!) { payOrder(id: $id) { id status paidAt lineCount customer { name } } }', { id: o.id }, as(member));
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.payOrder).toMatchObject({ id: o.id, status: 'PAID', lineCount: 1, customer: { name: 'Payer' } });
    const scheduled = await t.database.prisma.scheduledAction.findMany({ where: { actionType: 'webhook:send', teamId: owner.activeTeamId } });
    expect(scheduled.filter((a) => (a.payload as Row).entityId === o.id).map((a) => (a.payload as Row).eventType)).toEqual(['order:paid']);
  });

  const inTeam = (key: string) => ({ ...bearer(key), 'x-team-id': owner.activeTeamId });

  it('has the field’s one rule on both faces: orders:read only is 403 before anything runs, orders:write pays, another team’s key finds nothing', async () => {
    const o = await order();
    const reader = await createKey(t, member, { scopes: ['orders:read'] });
    const rest = await t.json('POST', `/api/v1/orders/${o.id}/pay`, undefined, inTeam(reader.key));
    expect(rest.status).toBe(403);
    expect(rest.body.error).toContain('orders:write');
    const gql = await t.graphql('mutation($id: ID!) { payOrder(id: $id) { status } }', { id: o.id }, inTeam(reader.key));
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await t.json('GET', `/api/v1/orders/${o.id}`, undefined, as(member))).body.data.status).toBe('draft');

    const stranger = await signUp(t);
    const theirs = await createKey(t, stranger, { scopes: ['orders:write'] });
    expect((await t.json('POST', `/api/v1/orders/${o.id}/pay`, undefined, bearer(theirs.key))).status).toBe(404);

    const writer = await createKey(t, member, { scopes: ['orders:write'] });
    const paid = await t.json('POST', `/api/v1/orders/${o.id}/pay`, undefined, inTeam(writer.key));
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.data.status).toBe('paid');
  });

  it('is in the served OpenAPI document (typed answer, scope) and the served schema', async () => {
    const doc = (await t.json('GET', '/api/v1/openapi.json')).body;
    const op = doc.paths['/api/v1/orders/{id}/pay'].post;
    expect(op.operationId).toBe('payOrder');
    expect(op.description).toContain('orders:write');
    expect(op.responses['200'].content['application/json'].schema.$ref).toMatch(/Order/);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '404', '422']));
    const sdl = await t.graphql('{ __schema { mutationType { fields { name args { name } type { ofType { name } } } } } }');
    const field = sdl.body.data.__schema.mutationType.fields.find((f: Row) => f.name === 'payOrder');
    expect(field).toEqual({ name: 'payOrder', args: [{ name: 'id' }], type: { ofType: { name: 'Order' } } });
  });
});
