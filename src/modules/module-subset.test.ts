// createApp({ modules }) composes the list it is given: an app of accounts, teams and API keys alone
// signs up, makes teams and keys, and answers GraphQL and REST for those, while the media library,
// the entities and their routes are not there at all (404 on REST, unknown fields in GraphQL, absent
// from OpenAPI). The platform's own app, on the same database, serves everything, so composing a
// subset leaves the platform's composition as it was. A module's services and workers are the app's
// own too: a module of this test's (a counter service, a worker) is made, started and closed with the
// app that lists it, and requests of that app reach its service through their scope. Through HTTP, on
// PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceKey } from '../shared/services.js';
import { signUp } from '../testkit/accounts.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';
import { accountsModule } from './accounts/module.js';
import { apiKeysModule } from './api-keys/module.js';
import { createModuleRuntime } from './composition.js';
import { defineModule, defineService } from './module-description.js';
import { teamsModule } from './teams/module.js';

/** What the probe module's service and worker did, in order. */
const events: string[] = [];
const counterKey = serviceKey<{ calls: number; closed: boolean }>('probe counter');
const probeModule = defineModule({
  name: 'probe',
  services: [defineService({
    key: counterKey,
    create: () => (events.push('service made'), { calls: 0, closed: false }),
    close: async (counter) => void (counter.closed = true, events.push('service closed')),
  })],
  workers: [{
    name: 'probe worker',
    start: ({ services }) => {
      events.push('worker started');
      return { stop: async () => void events.push(`worker stopped after ${services.get(counterKey).calls} call(s), service open: ${!services.get(counterKey).closed}`) };
    },
  }],
  registerSchema: (b) => b.queryField('probeCalls', (t) => t.int({ authScopes: { authenticated: true }, resolve: (_root, _args, ctx) => ++ctx.services.get(counterKey).calls })),
});

let whole: TestApp;
let subset: TestApp;

beforeAll(async () => {
  whole = await createTestApp();
  subset = await createTestApp({}, whole, { modules: [accountsModule, teamsModule, apiKeysModule, probeModule] });
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

  it('makes the services and starts the workers of its own modules; requests reach the services; closing stops the workers, then closes the services', async () => {
    expect(events).toEqual(['service made', 'worker started']);
    const user = await signUp(subset);
    const calls = await Promise.all([1, 2, 3].map(() => subset.graphql('{ probeCalls }', {}, { cookie: user.cookie })));
    expect(calls.map((c) => c.body.data.probeCalls).sort()).toEqual([1, 2, 3]);
    // The platform's app does not list the probe: no field, and it made no service of it.
    expect((await whole.graphql('{ probeCalls }', {}, { cookie: user.cookie })).body.errors[0].message).toMatch(/Cannot query field "probeCalls"/);
    const other = await createTestApp({}, whole, { modules: [accountsModule, probeModule] });
    await other.close();
    expect(events).toEqual(['service made', 'worker started', 'service made', 'worker started', 'worker stopped after 0 call(s), service open: true', 'service closed']);
    const closing = subset;
    subset = undefined as unknown as TestApp; // closed here, not by afterAll
    await closing.close();
    expect(events.slice(-2)).toEqual(['worker stopped after 3 call(s), service open: true', 'service closed']);
  });

  it('refuses, at start-up, a list that declares one plan limit’s counter twice, naming it', () => {
    const twice = [teamsModule, defineModule({ name: 'again', usageCounters: teamsModule.usageCounters })];
    expect(() => createModuleRuntime(twice, { config: whole.config, database: whole.database, logger: pino({ level: 'silent' }), now: () => new Date() })).toThrow('Usage counters declared twice: team_members, api_keys');
  });
});
