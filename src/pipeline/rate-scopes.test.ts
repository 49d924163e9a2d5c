// Per-scope key rate limits (contract "Limits"; docs/api/api-keys.md, rate limits): a key's request pays into the
// bucket of each scope its operation's root fields require (RATE_LIMIT_SCOPES: tasks:read 1000,
// tasks:write 500, tasks:delete 100 by default), one bucket per key and scope, else the key's tier
// (free: 60). REST entity routes and GraphQL operations alike; never twice, never free.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { bearer, createKey } from '../testkit/api-keys.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

const times = async <T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> => {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await make(i));
  return out;
};

/** Creates `n` tasks in the owner's active team with their session (20000 a minute: not the key's budget). */
async function createTasks(t: TestApp, owner: SignedUpUser, n: number): Promise<string[]> {
  return times(n, async (i) => {
    const res = await t.json('POST', '/api/v1/tasks', { title: `Task ${i}` }, { cookie: owner.cookie });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  });
}

describe('per-scope key rate limits, contract defaults', () => {
  let t: TestApp;
  let owner: SignedUpUser;
  beforeAll(async () => {
    t = await createTestApp();
    owner = await signUp(t);
  });
  afterAll(() => t.close());

  it('a tasks:read key reads /api/v1/tasks 90 times a minute, beyond the free tier’s 60', async () => {
    const { key } = await createKey(t, owner, { scopes: ['tasks:read'] });
    const answers = await times(90, () => t.json('GET', '/api/v1/tasks', undefined, bearer(key)));
    expect(answers.map((r) => r.status)).toEqual(Array(90).fill(200));
    expect(answers[89]!.headers.get('ratelimit-limit')).toBe('1000');
    expect(answers[89]!.headers.get('ratelimit-remaining')).toBe('910');
  });

  it('a tasks:read and tasks:delete key deletes exactly 100 tasks a minute; its reads are counted apart', async () => {
    // The free plan holds 100 tasks: the 101st is made once the first hundred are gone.
    const ids = await createTasks(t, owner, 100);
    const { key } = await createKey(t, owner, { scopes: ['tasks:read', 'tasks:delete'] });
    const deletes = await times(100, (i) => t.json('DELETE', `/api/v1/tasks/${ids[i]}`, undefined, bearer(key)));
    expect(deletes.map((r) => r.status)).toEqual(Array(100).fill(200));
    const [last] = await createTasks(t, owner, 1);
    const refused = await t.json('DELETE', `/api/v1/tasks/${last}`, undefined, bearer(key));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, error: 'Rate limit exceeded', retryAfter: expect.any(Number) });
    expect(refused.body.retryAfter).toBeGreaterThan(0);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retryAfter));
    expect(refused.headers.get('ratelimit-limit')).toBe('100');
    // Nothing was deleted by the refused request.
    expect((await t.json('GET', `/api/v1/tasks/${last}`, undefined, { cookie: owner.cookie })).status).toBe(200);
    // Reads pay into tasks:read's bucket, untouched by the deletes.
    const read = await t.json('GET', '/api/v1/tasks', undefined, bearer(key));
    expect(read.status).toBe(200);
    expect(read.headers.get('ratelimit-limit')).toBe('1000');
    expect(read.headers.get('ratelimit-remaining')).toBe('999');
  });

  it('a key whose scope has no limit of its own (customers:read) is held to its tier: 60 on the free plan', async () => {
    const { key } = await createKey(t, owner, { scopes: ['customers:read'] });
    const answers = await times(61, () => t.json('GET', '/api/v1/customers', undefined, bearer(key)));
    expect(answers.slice(0, 60).map((r) => r.status)).toEqual(Array(60).fill(200));
    expect(answers[0]!.headers.get('ratelimit-limit')).toBe('60');
    expect(answers[60]!.status).toBe(429);
    expect(answers[60]!.body).toMatchObject({ success: false, error: 'Rate limit exceeded' });
  });

  it('GraphQL: a tasks:read key runs `tasks` 90 times a minute; a customers:read key runs `customers` 60 times', async () => {
    const reader = await createKey(t, owner, { scopes: ['tasks:read'] });
    const answers = await times(90, () => t.graphql('{ tasks { total } }', undefined, bearer(reader.key)));
    expect(answers.map((r) => r.status)).toEqual(Array(90).fill(200));
    expect(answers.every((r) => r.body.errors === undefined)).toBe(true);
    expect(answers[89]!.headers.get('ratelimit-limit')).toBe('1000');

    const other = await createKey(t, owner, { scopes: ['customers:read'] });
    const tiered = await times(61, () => t.graphql('{ customers { total } }', undefined, bearer(other.key)));
    expect(tiered.slice(0, 60).map((r) => r.status)).toEqual(Array(60).fill(200));
    expect(tiered[60]!.status).toBe(429);
    expect(tiered[60]!.body.errors[0]).toMatchObject({ message: 'Rate limit exceeded', extensions: { code: 'RATE_LIMITED' } });
  });
});

describe('per-scope key rate limits: each request pays once, and every request pays', () => {
  let t: TestApp;
  let owner: SignedUpUser;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_SCOPES: 'tasks:read=5,tasks:delete=2,customers:write=2', RATE_LIMIT_TIERS: 'free=3' });
    owner = await signUp(t);
  });
  afterAll(() => t.close());

  it('REST and GraphQL reads of one key share its tasks:read bucket, one point each', async () => {
    const { key } = await createKey(t, owner, { scopes: ['tasks:read'] });
    const statuses = [
      ...(await times(3, () => t.json('GET', '/api/v1/tasks', undefined, bearer(key)))).map((r) => r.status),
      ...(await times(3, () => t.graphql('{ tasks { total } }', undefined, bearer(key)))).map((r) => r.status),
    ];
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('an operation of two scopes pays into both buckets (tasks:read, and the tier for customers:read)', async () => {
    const { key } = await createKey(t, owner, { scopes: ['tasks:read', 'customers:read'] });
    const both = await times(4, () => t.graphql('{ tasks { total } customers { total } }', undefined, bearer(key)));
    expect(both.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    // tasks:read has paid 4 of its 5, the refused request included.
    const read = await t.json('GET', '/api/v1/tasks', undefined, bearer(key));
    expect(read.status).toBe(200);
    expect(read.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('an entity’s children count against the entity’s scope (customers:write for a customer’s notes)', async () => {
    const customer = await t.json('POST', '/api/v1/customers', { name: 'Acme', account: 1, office: 'North' }, { cookie: owner.cookie });
    expect(customer.status).toBe(201);
    const { key } = await createKey(t, owner, { scopes: ['customers:write'] });
    const notes = await times(3, (i) => t.json('POST', `/api/v1/customers/${customer.body.data.id}/child/notes`, { body: `Note ${i}` }, bearer(key)));
    expect(notes.map((r) => r.status)).toEqual([201, 201, 429]);
    expect(notes[0]!.headers.get('ratelimit-limit')).toBe('2');
  });

  it('a GraphQL request that never runs an operation still pays one point to the tier', async () => {
    const { key } = await createKey(t, owner, { scopes: ['teams:read'] });
    const broken = await times(3, () => t.graphql('{ me { ', undefined, bearer(key)));
    expect(broken.every((r) => r.status !== 429 && r.body.errors?.length === 1)).toBe(true);
    const after = await t.graphql('{ me { user { id } } }', undefined, bearer(key));
    expect(after.status).toBe(429);
  });

  it('a session is not held to its keys’ buckets', async () => {
    const answers = await times(8, () => t.json('GET', '/api/v1/tasks', undefined, { cookie: owner.cookie }));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
  });
});
