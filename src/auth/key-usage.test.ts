// Contract details of key usage and limits (issue 14): "lastUsedAt: updated on successful use", so a
// key's refused calls (403 for a foreign x-team-id, 403 for a missing scope, 429 over its limit) leave
// lastUsedAt and the counters alone; and the session limit is higher than every key limit, by
// default and at start-up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/env.js';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { bearer, createKey } from '../testkit/api-keys.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

describe('usage of a key', () => {
  let t: TestApp;
  let owner: SignedUpUser;
  let stranger: SignedUpUser;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_TIERS: 'free=2,pro=300,enterprise=1000', API_KEY_USAGE_FLUSH_MS: '60000' });
    owner = await signUp(t);
    stranger = await signUp(t);
  });
  afterAll(() => t.close());

  const usage = async (id: string) => (await t.json('GET', `/api/v1/api-keys/${id}`, undefined, { cookie: owner.cookie })).body.data;

  it('is not moved by refused calls (403, 429), only by successful ones', async () => {
    const minted = await createKey(t, owner, { scopes: ['teams:read'] });
    // Refused: a team the owner is not in; a write the key has no scope for.
    expect((await t.json('GET', '/api/auth/session', undefined, { ...bearer(minted.key), 'x-team-id': stranger.activeTeamId })).status).toBe(403);
    expect((await t.json('PATCH', `/api/v1/teams/${owner.activeTeamId}`, { name: 'Renamed' }, bearer(minted.key))).status).toBe(403);
    expect(await usage(minted.id)).toMatchObject({ lastUsedAt: null, totalRequests: 0 });

    expect((await t.json('GET', `/api/v1/teams/${owner.activeTeamId}`, undefined, bearer(minted.key))).status).toBe(200);
    const used = await usage(minted.id);
    expect(used.totalRequests).toBe(1);
    expect(used.lastUsedAt).not.toBeNull();

    // Over the tier's 2 a minute (the PATCH above took one point): 429s, which are not uses either.
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 3; i++) expect((await t.json('GET', `/api/v1/teams/${owner.activeTeamId}`, undefined, bearer(minted.key))).status).toBe(429);
    expect(await usage(minted.id)).toMatchObject({ lastUsedAt: used.lastUsedAt, totalRequests: 1 });
  });
});

describe('session rate limit', () => {
  it('defaults above the highest key limit', () => {
    const { rateLimit } = loadConfig({ NODE_ENV: 'test' });
    const keyLimits = [rateLimit.wildcard, ...Object.values(rateLimit.scopes), ...Object.values(rateLimit.tiers)];
    expect(rateLimit.session).toBeGreaterThan(Math.max(...keyLimits));
  });

  it('is refused at start-up below a key limit', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', RATE_LIMIT_SESSION: '5000' })).toThrow(/RATE_LIMIT_SESSION: must not be below the highest key limit \(10000 per minute\)/);
    expect(() => loadConfig({ NODE_ENV: 'test', RATE_LIMIT_SESSION: '500', RATE_LIMIT_WILDCARD: '400', RATE_LIMIT_TIERS: 'free=600' })).toThrow(/RATE_LIMIT_SESSION/);
    expect(loadConfig({ NODE_ENV: 'test', RATE_LIMIT_SESSION: '500', RATE_LIMIT_WILDCARD: '400', RATE_LIMIT_SCOPES: 'tasks:read=100', RATE_LIMIT_TIERS: 'free=60' }).rateLimit.session).toBe(500);
  });
});
