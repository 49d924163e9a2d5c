// createApp({ modules }) composes the list it is given: an app of accounts, teams and API keys alone
// signs up, makes teams and keys, and answers GraphQL and REST for those, while the media library,
// the entities and their routes are not there at all (404 on REST, unknown fields in GraphQL, absent
// from OpenAPI). The platform's own app, on the same database, serves everything, so composing a
// subset leaves the platform's composition as it was. Through HTTP, on PGlite and, with
// TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../testkit/accounts.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';
import { accountsModule } from './accounts/module.js';
import { apiKeysModule } from './api-keys/module.js';
import { teamsModule } from './teams/module.js';

let whole: TestApp;
let subset: TestApp;

beforeAll(async () => {
  whole = await createTestApp();
  subset = await createTestApp({}, whole, { modules: [accountsModule, teamsModule, apiKeysModule] });
});
afterAll(async () => {
  await subset?.close();
  await whole?.close();
});

describe('an app of some modules', () => {
  it('serves those modules on both faces', async () => {
    const user = await signUp(subset);
    const as = { cookie: user.cookie };
    const team = await subset.json('POST', '/api/v1/teams', { name: 'Subset', slug: 'subset-team' }, as);
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    const key = await subset.json('POST', '/api/v1/api-keys', { name: 'k', scopes: ['teams:read'] }, as);
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const teams = await subset.json('GET', '/api/v1/teams', undefined, { authorization: `Bearer ${key.body.data.key}` });
    expect(teams.status).toBe(200);
    expect(teams.body.data.map((t: { slug: string }) => t.slug)).toContain('subset-team');
    const gql = await subset.graphql('{ me { user { email } } apiKeys { name } }', {}, as);
    expect(gql.body).toEqual({ data: { me: { user: { email: user.email } }, apiKeys: [{ name: 'k' }] } });
  });

  it('has nothing of the others: no routes, no fields, not in OpenAPI; the whole app still has them', async () => {
    const user = await signUp(subset);
    const as = { cookie: user.cookie };
    for (const path of ['/api/v1/media', '/api/v1/tasks', '/api/v1/orders', '/api/v1/webhooks/endpoints', '/api/v1/scheduled-actions']) {
      expect((await subset.json('GET', path, undefined, as)).status, path).toBe(404);
    }
    const gql = await subset.graphql('{ mediaList { total } }', {}, as);
    expect(gql.body.errors[0].message).toMatch(/Cannot query field "mediaList" on type "Query"/);
    const paths = Object.keys((await subset.json('GET', '/api/v1/openapi.json')).body.paths);
    expect(paths).toContain('/api/v1/api-keys');
    expect(paths.some((p) => p.startsWith('/api/v1/media') || p.startsWith('/api/v1/tasks'))).toBe(false);

    // The same user, the same database, through the platform's app: everything is there.
    expect((await whole.json('GET', '/api/v1/media', undefined, as)).status).toBe(200);
    expect((await whole.graphql('{ mediaList { total } }', {}, as)).body).toEqual({ data: { mediaList: { total: 0 } } });
  });
});
