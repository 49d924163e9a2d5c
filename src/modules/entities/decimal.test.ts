// Decimal fields (the orders' `amount`, numeric(12,2)) as clients see them: exact strings in REST and
// GraphQL ("0.10" + "0.20" sums to "0.30", never 0.30000000000000004), inputs as strings or JSON
// numbers within the field's digits and bounds (else 422 for that field), filters, sorting and cursor
// pages compared as numbers (not text: "9.00" < "10.00"), realtime filters decided exactly, and the
// OpenAPI schema a string of that shape. On PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { openEventStream } from '../../testkit/event-stream.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
let alice: SignedUpUser;
let customerId: string;
const as = () => ({ cookie: alice.cookie });

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  alice = await signUp(t);
  customerId = (await t.json('POST', '/api/v1/customers', { name: 'Exact', account: 1, office: 'Madrid' }, as())).body.data.id;
});
afterAll(async () => {
  await t?.close();
});

async function order(amount: unknown): Promise<Row> {
  const res = await t.json('POST', '/api/v1/orders', { customerId, amount }, as());
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

describe('a decimal field', () => {
  it('stores exactly and answers strings with its scale; sums and averages are exact on both faces', async () => {
    expect((await order('0.1')).amount).toBe('0.10');
    expect((await order(0.2)).amount).toBe('0.20');
    const rest = await t.json('GET', '/api/v1/orders/aggregate?sum=amount&avg=amount&min=amount&max=amount', undefined, as());
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(rest.body.data[0]).toMatchObject({ count: 2, sum: { amount: '0.30' }, avg: { amount: '0.15' }, min: { amount: '0.10' }, max: { amount: '0.20' } });
    const gql = await t.graphql('{ ordersAggregate { groups { sum { amount } avg { amount } } } }', {}, as());
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.ordersAggregate.groups[0]).toEqual({ sum: { amount: '0.30' }, avg: { amount: '0.15' } });

    // GraphQL takes a Decimal as a string, a variable's number, or a literal written as a number (its text kept).
    const literal = await t.graphql(`mutation { createOrder(input: { customerId: "${customerId}", amount: 12.5 }) { amount } }`, {}, as());
    expect(literal.body).toEqual({ data: { createOrder: { amount: '12.50' } } });
    const variable = await t.graphql('mutation($input: CreateOrderInput!) { createOrder(input: $input) { amount } }', { input: { customerId, amount: '99999999.99' } }, as());
    expect(variable.body).toEqual({ data: { createOrder: { amount: '99999999.99' } } });
    const big = await t.graphql('mutation($input: CreateOrderInput!) { createOrder(input: $input) { amount } }', { input: { customerId, amount: '9999999999.99' } }, as());
    expect(big.body.data.createOrder.amount).toBe('9999999999.99');
  });

  it('refuses what the column cannot hold exactly, or the definition forbids, with 422 naming the field', async () => {
    const cases: [unknown, string][] = [
      ['1.234', 'at most 2 digits after'],
      ['12345678901.00', 'at most 10 digits before'],
      ['-1', 'at least 0'],
      ['abc', 'decimal number'],
      ['1e3', 'decimal number'],
      [true, 'decimal number'],
    ];
    for (const [amount, message] of cases) {
      const res = await t.json('POST', '/api/v1/orders', { customerId, amount }, as());
      expect(res.status, `${JSON.stringify(amount)}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.details.amount).toContain(message);
    }
    // Trailing zeros past the scale are not digits lost.
    expect((await order('3.1000')).amount).toBe('3.10');
    const gql = await t.graphql('mutation($input: CreateOrderInput!) { createOrder(input: $input) { amount } }', { input: { customerId, amount: 'twelve' } }, as());
    expect(gql.body.errors?.[0]?.message).toContain('Decimal');
  });

  it('filters, sorts and pages by value, not by text', async () => {
    const other = (await t.json('POST', '/api/v1/customers', { name: 'Sorted', account: 2, office: 'Paris' }, as())).body.data.id;
    for (const amount of ['9.00', '10.00', '100.50', '2.05']) expect((await t.json('POST', '/api/v1/orders', { customerId: other, amount }, as())).status).toBe(201);
    const sorted = await t.json('GET', `/api/v1/orders?customerId=${other}&sortBy=amount&sortOrder=asc&fields=amount`, undefined, as());
    expect(sorted.body.data.map((r: Row) => r.amount)).toEqual(['2.05', '9.00', '10.00', '100.50']);
    const ranged = await t.json('GET', `/api/v1/orders?customerId=${other}&amount_min=9&amount_max=10.001&fields=amount&sortBy=amount&sortOrder=asc`, undefined, as());
    expect(ranged.body.data.map((r: Row) => r.amount)).toEqual(['9.00', '10.00']);
    const op = await t.json('GET', `/api/v1/orders?customerId=${other}&amount[gt]=10&fields=amount`, undefined, as());
    expect(op.body.data).toEqual([{ amount: '100.50' }]);
    expect((await t.json('GET', `/api/v1/orders?amount[gt]=ten`, undefined, as())).status).toBe(400);
    const where = await t.graphql(`{ orders(where: { customerId: { eq: "${other}" }, amount: { in: ["9", "100.5"] } }, sortBy: amount) { items { amount } } }`, {}, as());
    expect(where.body.errors).toBeUndefined();
    expect(where.body.data.orders.items.map((r: Row) => r.amount).sort()).toEqual(['100.50', '9.00']);

    // Cursor pages in amount order.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Row = await t.json('GET', `/api/v1/orders?customerId=${other}&sortBy=amount&sortOrder=desc&limit=3${cursor ? `&cursor=${cursor}` : ''}`, undefined, as());
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      seen.push(...page.body.data.map((r: Row) => r.amount));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['100.50', '10.00', '9.00', '2.05']);
  });

  it('decides a realtime filter on it exactly', async () => {
    const stream = await openEventStream(`${t.origin}/api/v1/orders/events?amount[gte]=0.3`, as());
    expect(stream.status).toBe(200);
    try {
      await order('0.29');
      const match = await order('0.30');
      const event = await stream.next();
      expect(event.data).toMatchObject({ type: 'CREATED', id: match.id, record: { amount: '0.30' } });
      expect(await stream.drain(300)).toEqual([]);
    } finally {
      stream.close();
    }
  });

  it('is a string of its shape in OpenAPI, and Decimal in the schema', async () => {
    const doc = (await t.json('GET', '/api/v1/openapi.json')).body;
    expect(doc.components.schemas.Order.properties.amount).toMatchObject({ type: ['string', 'null'], format: 'decimal', pattern: '^-?\\d{1,10}(\\.\\d{1,2})?$' });
    const type = await t.graphql('{ __type(name: "Order") { fields { name type { name } } } }');
    expect(type.body.data.__type.fields.find((f: Row) => f.name === 'amount')).toEqual({ name: 'amount', type: { name: 'Decimal' } });
  });
});
