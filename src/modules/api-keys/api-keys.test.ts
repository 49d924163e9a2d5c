// API keys through the front door (REST and GraphQL), on the test database (PGlite, or PostgreSQL with
// TEST_DATABASE_URL): minting, hash-only storage, authentication, revocation, expiry, scopes, rate
// limits, usage counters and audit records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
let alice: SignedUpUser;
let bob: SignedUpUser;
beforeAll(async () => {
  t = await createTestApp({ API_KEY_USAGE_FLUSH_MS: '60000' });
  alice = await signUp(t);
  bob = await signUp(t);
});
afterAll(() => t.close());

const session = (key: string, headers: Record<string, string> = {}) => t.json('GET', '/api/auth/session', undefined, { ...bearer(key), ...headers });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('minting', () => {
  it('shows the full key once, stores only its hash and 12-character prefix', async () => {
    const res = await t.json('POST', '/api/v1/api-keys', { name: 'ci', scopes: ['teams:read', 'teams:*'] }, { cookie: alice.cookie });
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created.key).toMatch(/^sk_test_[A-Za-z0-9_-]{40}$/);
    expect(created).toMatchObject({ name: 'ci', scopes: ['teams:read', 'teams:*'], status: 'active', expiresAt: null, keyPrefix: created.key.slice(0, 12) });

    const rows = await t.database.prisma.apiKey.findMany({ where: { id: created.id } });
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0], (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
    expect(stored).not.toContain(created.key);
    expect(rows[0]!.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.keyPrefix).toBe(created.key.slice(0, 12));

    const listed = await t.json('GET', '/api/v1/api-keys', undefined, { cookie: alice.cookie });
    expect(JSON.stringify(listed.body)).not.toContain(created.key);
    const one = await t.json('GET', `/api/v1/api-keys/${created.id}`, undefined, { cookie: alice.cookie });
    expect(one.body.data).not.toHaveProperty('key');
    expect(JSON.stringify(one.body)).not.toContain(rows[0]!.keyHash);
  });

  it('lists only the caller’s keys, newest first; someone else’s key is 404 like a missing one', async () => {
    const first = await createKey(t, bob, { name: 'first' });
    const second = await createKey(t, bob, { name: 'second' });
    const listed = await t.json('GET', '/api/v1/api-keys', undefined, { cookie: bob.cookie });
    expect(listed.body.data.map((k: { name: string }) => k.name)).toEqual(['second', 'first']);
    const foreign = await t.json('GET', `/api/v1/api-keys/${first.id}`, undefined, { cookie: alice.cookie });
    const missing = await t.json('GET', '/api/v1/api-keys/00000000-0000-4000-8000-000000000000', undefined, { cookie: alice.cookie });
    expect(foreign).toMatchObject({ status: 404, body: { success: false, error: 'API key not found' } });
    expect(missing.body).toEqual(foreign.body);
    expect(foreign.body).not.toHaveProperty('code');
    expect((await t.json('DELETE', `/api/v1/api-keys/${second.id}`, undefined, { cookie: alice.cookie })).status).toBe(404);
  });

  it.each([
    [{ name: '', scopes: ['teams:read'] }, /name/],
    [{ name: 'x'.repeat(101), scopes: ['teams:read'] }, /name/],
    [{ name: 'k', scopes: [] }, /scope/],
    [{ name: 'k', scopes: ['teams'] }, /entity:action/],
    [{ name: 'k', scopes: ['teams:admin'] }, /entity:action/],
    [{ name: 'k', scopes: ['nope:read'] }, /unknown entity/],
    [{ name: 'k', scopes: ['*'] }, /superadmins/],
    [{ name: 'k', scopes: ['teams:read'], expiresAt: '2001-01-01T00:00:00Z' }, /future/],
    [{ name: 'k', scopes: ['teams:read'], expiresAt: 'tomorrow' }, /ISO 8601/],
    [{ name: 'k', scopes: ['teams:read'], extra: true }, /extra/],
  ])('refuses %j with a clear 400', async (body, message) => {
    const res = await t.json('POST', '/api/v1/api-keys', body, { cookie: alice.cookie });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatch(message);
    expect(res.body).not.toHaveProperty('code');
  });

  it('lets a superadmin grant `*`, and refuses to mint keys with a key', async () => {
    const admin = await signUp(t);
    await t.database.prisma.user.update({ where: { id: admin.id }, data: { role: 'superadmin' } });
    const wildcard = await createKey(t, admin, { scopes: ['*'] });
    expect(wildcard.key).toMatch(/^sk_test_/);
    const withKey = await t.json('POST', '/api/v1/api-keys', { name: 'k', scopes: ['teams:read'] }, bearer(wildcard.key));
    expect(withKey.status).toBe(403);
    const viaGraphql = await t.graphql('mutation { createApiKey(input: { name: "k", scopes: ["teams:read"] }) { key } }', undefined, bearer(wildcard.key));
    expect(viaGraphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('authenticating with a key', () => {
  it('acts as the key’s owner with Authorization: Bearer or X-API-Key', async () => {
    const { key } = await createKey(t, alice);
    for (const headers of [bearer(key), { 'x-api-key': key }]) {
      const res = await t.json('GET', '/api/auth/session', undefined, headers);
      expect(res).toMatchObject({ status: 200, body: { data: { user: { id: alice.id }, activeTeamId: alice.activeTeamId } } });
    }
    const gql = await t.graphql('{ me { user { email } } }', undefined, bearer(key));
    expect(gql.body.data.me.user.email).toBe(alice.email);
  });

  it('refuses bad, unknown, revoked and expired keys alike, after at least 100 ms', async () => {
    const revoked = await createKey(t, alice);
    expect((await session(revoked.key)).status).toBe(200); // now cached
    const del = await t.json('DELETE', `/api/v1/api-keys/${revoked.id}`, undefined, { cookie: alice.cookie });
    expect(del).toMatchObject({ status: 200, body: { success: true, data: { status: 'inactive' } } });

    const soon = await createKey(t, alice, { expiresAt: new Date(Date.now() + 1500).toISOString() });
    expect((await session(soon.key)).status).toBe(200);
    await sleep(1600);

    const bodies: unknown[] = [];
    for (const presented of ['not-a-key', `sk_test_${'A'.repeat(40)}`, revoked.key, soon.key]) {
      const started = performance.now();
      const res = await session(presented);
      expect(performance.now() - started).toBeGreaterThanOrEqual(99);
      expect(res.status).toBe(401);
      bodies.push(res.body);
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toMatchObject({ success: false, error: 'Unauthorized' });

    const expired = await t.json('GET', `/api/v1/api-keys/${soon.id}`, undefined, { cookie: alice.cookie });
    expect(expired.body.data.status).toBe('expired');
    const audit = await t.json('GET', `/api/v1/api-keys/${soon.id}/audit`, undefined, { cookie: alice.cookie });
    expect(audit.body.data.map((a: { action: string }) => a.action)).toEqual(expect.arrayContaining(['created', 'expired', 'auth_failed']));
    const revokedAudit = await t.json('GET', `/api/v1/api-keys/${revoked.id}/audit`, undefined, { cookie: alice.cookie });
    expect(revokedAudit.body.data[0]).toMatchObject({ action: 'auth_failed', reason: 'revoked', keyId: revoked.id });
    expect(revokedAudit.body.data.map((a: { action: string }) => a.action)).toEqual(['auth_failed', 'revoked', 'created']);

    // A revoked key stays revoked: deleting again changes nothing, and nothing re-activates it.
    await t.json('DELETE', `/api/v1/api-keys/${revoked.id}`, undefined, { cookie: alice.cookie });
    expect((await t.database.prisma.apiKey.findUnique({ where: { id: revoked.id } }))!.status).toBe('inactive');
  });

  it('session first: a valid cookie wins over a bad key', async () => {
    const res = await t.json('GET', '/api/auth/session', undefined, { cookie: alice.cookie, authorization: 'Bearer nonsense' });
    expect(res.status).toBe(200);
  });

  it('acts in the team named by x-team-id only when the owner is a member', async () => {
    const { key } = await createKey(t, alice);
    const own = await session(key, { 'x-team-id': alice.activeTeamId });
    expect(own.body.data.activeTeamId).toBe(alice.activeTeamId);
    const foreign = await session(key, { 'x-team-id': bob.activeTeamId });
    expect(foreign.status).toBe(403);
  });

  it('counts usage and lastUsedAt without a write per request', async () => {
    const minted = await createKey(t, alice);
    for (let i = 0; i < 5; i++) expect((await session(minted.key)).status).toBe(200);
    const stored = await t.database.prisma.apiKey.findUnique({ where: { id: minted.id } });
    expect(Number(stored!.totalRequests)).toBe(0); // not written yet: batched (flush every 60 s here)
    const res = await t.json('GET', `/api/v1/api-keys/${minted.id}`, undefined, { cookie: alice.cookie });
    expect(res.body.data).toMatchObject({ totalRequests: 5, requestsLast24h: 5 });
    expect(Date.parse(res.body.data.lastUsedAt)).toBeGreaterThan(Date.now() - 10_000);
    const gql = await t.graphql(`{ apiKey(id: "${minted.id}") { totalRequests requestsLast24h lastUsedAt audit { action } } }`, undefined, { cookie: alice.cookie });
    expect(gql.body.data.apiKey).toMatchObject({ totalRequests: 5, requestsLast24h: 5, audit: [{ action: 'created' }] });
  });
});

describe('usage flush', () => {
  it('writes the counters in batches', async () => {
    const fast = await createTestApp({ API_KEY_USAGE_FLUSH_MS: '50' });
    try {
      const owner = await signUp(fast);
      const minted = await createKey(fast, owner);
      for (let i = 0; i < 3; i++) await fast.json('GET', '/api/auth/session', undefined, bearer(minted.key));
      await sleep(300);
      const stored = await fast.database.prisma.apiKey.findUnique({ where: { id: minted.id } });
      expect(Number(stored!.totalRequests)).toBe(3);
      expect(stored!.lastUsedAt).not.toBeNull();
      const buckets = await fast.database.prisma.apiKeyUsage.findMany({ where: { keyId: minted.id } });
      expect(buckets.reduce((n, b) => n + b.requests, 0)).toBe(3);
      const res = await fast.json('GET', `/api/v1/api-keys/${minted.id}`, undefined, { cookie: owner.cookie });
      expect(res.body.data).toMatchObject({ totalRequests: 3, requestsLast24h: 3 });
    } finally {
      await fast.close();
    }
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After and RateLimit headers past the tier limit, and audits it', async () => {
    const limited = await createTestApp({ RATE_LIMIT_TIERS: 'free=3,pro=300,enterprise=1000' });
    try {
      const owner = await signUp(limited);
      const minted = await createKey(limited, owner);
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 5; i++) {
        last = await limited.json('GET', '/api/auth/session', undefined, bearer(minted.key));
        statuses.push(last.status);
        if (i === 0) expect(last.headers.get('ratelimit-limit')).toBe('3');
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(last!.body).toMatchObject({ success: false, error: 'Rate limit exceeded' });
      expect(last!.body.retryAfter).toBeGreaterThan(0);
      expect(last!.headers.get('retry-after')).toBe(String(last!.body.retryAfter));
      expect(last!.headers.get('ratelimit-remaining')).toBe('0');
      // The session is not limited by the key's budget.
      expect((await limited.json('GET', '/api/auth/session', undefined, { cookie: owner.cookie })).status).toBe(200);
      await sleep(100);
      const audit = await limited.json('GET', `/api/v1/api-keys/${minted.id}/audit`, undefined, { cookie: owner.cookie });
      expect(audit.body.data.filter((a: { action: string }) => a.action === 'rate_limited')).toHaveLength(1);
    } finally {
      await limited.close();
    }
  });
});

describe('two instances', () => {
  it('refuses a revoked key on the next request on the other instance (Redis)', async () => {
    const redis = { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };
    const a = await createTestApp(redis);
    const b = await createTestApp(redis, a);
    try {
      const owner = await signUp(a);
      const minted = await createKey(a, owner);
      expect((await b.json('GET', '/api/auth/session', undefined, bearer(minted.key))).status).toBe(200); // cached on b
      expect((await a.json('DELETE', `/api/v1/api-keys/${minted.id}`, undefined, { cookie: owner.cookie })).status).toBe(200);
      expect((await b.json('GET', '/api/auth/session', undefined, bearer(minted.key))).status).toBe(401);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
