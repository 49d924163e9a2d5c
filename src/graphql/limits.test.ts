// GraphQL operation limits over HTTP (depth, aliases, tokens, cost with variables), on the endpoint's
// fast path (JSON POST) and yoga's full path (GET), whatever introspection is; every REST document and
// GraphiQL's introspection query within the defaults; keyed requests charged by cost.
import { getIntrospectionQuery, parse, print, type DocumentNode, type GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/env.js';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { bearer, createKey } from '../testkit/api-keys.js';
import { createTestApp, type JsonResponse, type TestApp } from '../testkit/test-app.js';
import { defaultOperationLimits, operationCost } from './limits.js';
import { composition } from '../module-list.js';
import { createGraphQLServer } from './yoga.js';
import { compileDocument } from '../rest/execute.js';

const { schema } = composition;

let t: TestApp;
let user: SignedUpUser;
beforeAll(async () => {
  t = await createTestApp({ GRAPHQL_INTROSPECTION: 'true' });
  user = await signUp(t);
});
afterAll(() => t.close());

const aliases = (n: number, field: string) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
/** Inline fragments nest selections without needing a deep schema: `depth` levels, then a field. */
const nested = (depth: number) => `{ ${'... on Query { '.repeat(depth - 2)}me { activeTeamId }${' }'.repeat(depth - 2)} }`;

function expectTooComplex(res: JsonResponse, message: RegExp) {
  expect(res.status).toBe(400);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0].message).toMatch(message);
  expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
}

/** The same query by GET: yoga's full path rather than the endpoint's fast path. */
async function viaGet(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const url = `/graphql?query=${encodeURIComponent(query)}${variables ? `&variables=${encodeURIComponent(JSON.stringify(variables))}` : ''}`;
  const res = await t.fetch(url, { headers: { accept: 'application/json', ...headers } });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe('refused before execution', () => {
  it('300 aliases of tasks(limit: 100): refused at once, and the server stays responsive', async () => {
    const bomb = aliases(300, 'tasks(limit: 100) { items { id title } }');
    const started = performance.now();
    // 3,600 tokens: refused while parsing, before its aliases are even counted.
    expectTooComplex(await t.graphql(bomb, undefined, { cookie: user.cookie }), /^Token limit of 2000 exceeded\.$/);
    expect(performance.now() - started).toBeLessThan(5_000); // generous; executing it took 1.5–8.5 s
    expect((await t.fetch('/healthz')).status).toBe(200);
  });

  it('refuses more aliases than GRAPHQL_MAX_ALIASES on both paths', async () => {
    const sixteen = aliases(16, 'tasks(limit: 1) { items { id } }');
    expectTooComplex(await t.graphql(sixteen, undefined, { cookie: user.cookie }), /^Aliases limit of 15 exceeded, found 16\.$/);
    expectTooComplex(await viaGet(sixteen, undefined, { cookie: user.cookie }), /^Aliases limit of 15 exceeded, found 16\.$/);
    const fifteen = await t.graphql(aliases(15, 'tasks(limit: 1) { items { id } }'), undefined, { cookie: user.cookie });
    expect(fifteen.status).toBe(200);
    expect(Object.keys(fifteen.body.data)).toHaveLength(15);
  });

  it('refuses depth beyond GRAPHQL_MAX_DEPTH and accepts it at the limit', async () => {
    expectTooComplex(await t.graphql(nested(11), undefined, { cookie: user.cookie }), /^Query depth limit of 10 exceeded, found 11\.$/);
    expectTooComplex(await viaGet(nested(11), undefined, { cookie: user.cookie }), /depth limit of 10/);
    const atLimit = await t.graphql(nested(10), undefined, { cookie: user.cookie });
    expect(atLimit.status).toBe(200);
    expect(atLimit.body).toEqual({ data: { me: { activeTeamId: user.activeTeamId } } });
  });

  it('refuses a document over the token limit', async () => {
    const long = `{ me { user { ${'id '.repeat(2100)}} } }`;
    expectTooComplex(await t.graphql(long, undefined, { cookie: user.cookie }), /^Token limit of 2000 exceeded\.$/);
    expectTooComplex(await viaGet(long, undefined, { cookie: user.cookie }), /Token limit of 2000/);
  });

  it('weighs lists by their limit, with the request’s variables (the same document passes or not)', async () => {
    // customers(limit: n) { items { notes } }: 1 page + n customers + n × 20 notes (notes take no limit).
    const query = 'query($n: Int) { a: customers(limit: $n) { items { id notes { id } } } b: customers(limit: $n) { items { id } } }';
    expect(operationCost(schema, parse(query), undefined, { n: 100 })).toBe(1 + 100 * 21 + 1 + 100);
    const heavy = await t.graphql(query, { n: 100 }, { cookie: user.cookie });
    expect(heavy.status).toBe(200); // 2202: within 5000
    const tooHeavy = aliases(3, 'customers(limit: 100) { items { id notes { id } } }'); // 3 × 2101
    expectTooComplex(await t.graphql(tooHeavy, undefined, { cookie: user.cookie }), /^Query cost limit of 5000 exceeded, found 6303\.$/);
    const withVariables = 'query($n: Int) { a: customers(limit: $n) { items { notes { id } } } b: customers(limit: $n) { items { notes { id } } } c: customers(limit: $n) { items { notes { id } } } }';
    expectTooComplex(await t.graphql(withVariables, { n: 100 }, { cookie: user.cookie }), /found 6303/);
    expectTooComplex(await viaGet(withVariables, { n: 100 }, { cookie: user.cookie }), /found 6303/);
    // The same document, cached as valid, with small pages runs.
    const small = await t.graphql(withVariables, { n: 5 }, { cookie: user.cookie });
    expect(small.status).toBe(200);
    expect(small.body.errors).toBeUndefined();
    expectTooComplex(await t.graphql(withVariables, { n: 100 }, { cookie: user.cookie }), /found 6303/);
  });

  it('runs nothing of a refused mutation', async () => {
    const create = (i: number) => `t${i}: createTask(input: { title: "bomb ${i}", status: TODO }) { id }`;
    const res = await t.graphql(`mutation { ${Array.from({ length: 16 }, (_, i) => create(i)).join(' ')} }`, undefined, { cookie: user.cookie });
    expectTooComplex(res, /Aliases limit of 15 exceeded, found 16/);
    expect(await t.database.prisma.task.count({ where: { title: { startsWith: 'bomb ' } } })).toBe(0);
  });
});

describe('what must pass', () => {
  it('every REST route’s document, at its largest page, and GraphiQL’s introspection query fit the defaults', () => {
    const yoga = createGraphQLServer(schema);
    const check = (document: DocumentNode, variables: Record<string, unknown>) => {
      const enveloped = yoga.getEnveloped({ request: { method: 'POST' }, params: { query: print(document) } } as never);
      const parsed = enveloped.parse(print(document));
      expect(enveloped.validate(enveloped.schema, parsed).map((e: GraphQLError) => e.message)).toEqual([]);
      expect(operationCost(schema, parsed, undefined, variables)).toBeLessThanOrEqual(defaultOperationLimits.maxCost);
    };
    for (const route of composition.routes) {
      const document = route.operation as DocumentNode;
      const variables: Record<string, unknown> = {};
      for (const definition of document.definitions) {
        if (definition.kind !== 'OperationDefinition') continue;
        for (const v of definition.variableDefinitions ?? []) variables[v.variable.name.value] = 100;
      }
      check(document, variables);
    }
    check(parse(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true })), {});
  });

  it('every REST route’s document compiles as its route runs it (graphql-jit, when the route is first asked for)', () => {
    for (const route of composition.routes) {
      expect(() => compileDocument(schema, route.operation as DocumentNode, `${route.method} ${route.path}`, route.storedValues ?? false)).not.toThrow();
    }
  });

  it('counts what is computed in memory as free: a page of 100 media with their rendition links costs the page and its items', () => {
    expect(operationCost(schema, parse('{ mediaList(limit: 100) { items { id renditions { width url } } } }'))).toBe(101);
    expect(operationCost(schema, parse('{ mediaList(limit: 100) { items { id tags { id } } } }'))).toBe(101 + 100 * 20);
  });

  it('answers GraphiQL’s introspection query over HTTP', async () => {
    const res = await t.graphql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
    expect(res.status).toBe(200);
    expect(res.body.data.__schema.queryType.name).toBe('Query');
  });

  it('documents defaults that are the configuration’s', () => {
    const { costPerRatePoint: _unit, ...limits } = loadConfig({}).graphqlLimits;
    expect(limits).toEqual(defaultOperationLimits);
  });
});

describe('configured limits', () => {
  it('apply as set, with introspection off too', async () => {
    const strict = await createTestApp({ GRAPHQL_MAX_DEPTH: '4', GRAPHQL_MAX_ALIASES: '2', GRAPHQL_MAX_COST: '50', GRAPHQL_MAX_TOKENS: '100', GRAPHQL_INTROSPECTION: 'false', GRAPHIQL: 'false' });
    try {
      const owner = await signUp(strict);
      const as = { cookie: owner.cookie };
      expectTooComplex(await strict.graphql(nested(5), undefined, as), /depth limit of 4 exceeded, found 5/);
      expect((await strict.graphql(nested(4), undefined, as)).status).toBe(200);
      expectTooComplex(await strict.graphql(aliases(3, 'me { activeTeamId }'), undefined, as), /Aliases limit of 2 exceeded, found 3/);
      expectTooComplex(await strict.graphql('{ tasks(limit: 50) { items { id } } }', undefined, as), /Query cost limit of 50 exceeded, found 51/);
      expect((await strict.graphql('{ tasks(limit: 49) { items { id } } }', undefined, as)).status).toBe(200);
      expectTooComplex(await strict.graphql(`{ me { user { ${'id '.repeat(100)}} } }`, undefined, as), /Token limit of 100 exceeded/);
    } finally {
      await strict.close();
    }
  });
});

describe('keyed requests pay their cost from the rate limit', () => {
  it('a key is refused after fewer expensive requests than cheap ones', async () => {
    // tasks:read (the scope `tasks` requires): 10 points a minute; a cost of up to 50 takes 1 point, 101 (a page of 100) takes 3.
    const limited = await createTestApp({ RATE_LIMIT_SCOPES: 'tasks:read=10', GRAPHQL_COST_PER_RATE_POINT: '50' });
    try {
      const owner = await signUp(limited);
      const statuses = async (key: string, query: string) => {
        const seen: JsonResponse[] = [];
        for (let i = 0; i < 12; i++) seen.push(await limited.graphql(query, undefined, bearer(key)));
        return seen;
      };
      const cheapKey = await createKey(limited, owner, { scopes: ['tasks:read'] });
      const cheap = await statuses(cheapKey.key, '{ tasks(limit: 5) { items { id } } }');
      expect(cheap.map((r) => r.status)).toEqual([...Array(10).fill(200), 429, 429]);

      const costlyKey = await createKey(limited, owner, { scopes: ['tasks:read'] });
      const costly = await statuses(costlyKey.key, '{ tasks(limit: 100) { items { id } } }');
      expect(costly.map((r) => r.status)).toEqual([200, 200, 200, ...Array(9).fill(429)]);
      // Refused by cost: a GraphQL error with Retry-After and the key's RateLimit headers.
      const byCost = costly[3]!;
      expect(byCost.body.errors[0]).toMatchObject({ message: 'Rate limit exceeded', extensions: { code: 'RATE_LIMITED', details: { retryAfter: expect.any(Number) } } });
      expect(Number(byCost.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(byCost.headers.get('ratelimit-limit')).toBe('10');
      expect(byCost.headers.get('ratelimit-remaining')).toBe('0');
      expect(costly[2]!.headers.get('ratelimit-remaining')).toBe('1');
    } finally {
      await limited.close();
    }
  });
});
