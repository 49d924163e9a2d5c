// One authorization rule on every face (DESIGN.md, docs/security.md "Where a rule lives"): a key
// holding only `projects:read` may list projects, but nothing that reaches customers through a
// relation (a filter, an expand, a nested selection), on any face: GraphQL fields, REST declarations,
// HTTP routes (the events stream, uploads, renditions), realtime opening (SSE and graphql-ws) and
// re-checks, and the scheduled-action runner. The refusal is the same everywhere: 403 naming the
// missing scope. Before, the events stream let such a filter through: an oracle on a field of an
// entity the key may not read (issue 36).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { bearer, createKey } from '../testkit/api-keys.js';
import { openEventStream } from '../testkit/event-stream.js';
import { subscribeOverSse, subscribeOverWs, wsClient } from '../testkit/graphql-subscriptions.js';
import { userWithRole } from '../testkit/scheduled-actions.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

let t: TestApp;
let owner: SignedUpUser;
/** Keys of the owner: projects:read only; projects and customers read; projects:* (no webhooks). */
let narrow: string;
let both: string;
const madrid = JSON.stringify({ customer: { office: { eq: 'Madrid' } } });
const missingCustomers = 'Insufficient permissions - customers:read scope required';

beforeAll(async () => {
  // Keys are read afresh on every use, so a role changed in the database shows at the next re-check.
  t = await createTestApp({ API_KEY_CACHE_TTL_SECONDS: '0' });
  owner = await signUp(t);
  narrow = (await createKey(t, owner, { scopes: ['projects:read'] })).key;
  both = (await createKey(t, owner, { scopes: ['projects:read', 'customers:read'] })).key;
  const cookie = { cookie: owner.cookie };
  for (const office of ['Madrid', 'Paris']) {
    const customer = await t.json('POST', '/api/v1/customers', { name: office, account: office.length, office }, cookie);
    expect(customer.status).toBe(201);
    expect((await t.json('POST', '/api/v1/projects', { name: `${office} project`, customerId: customer.body.data.id }, cookie)).status).toBe(201);
  }
});
afterAll(() => t?.close());

const forbidden = (body: any) => expect(body).toMatchObject({ success: false, error: missingCustomers });
const gqlForbidden = (body: any) => {
  expect(body.errors?.[0]).toMatchObject({ message: missingCustomers, extensions: { code: 'FORBIDDEN' } });
};

describe('GraphQL fields', () => {
  it('a where, an aggregate where and a nested selection reaching customers need customers:read', async () => {
    const where = { customer: { office: { eq: 'Madrid' } } };
    gqlForbidden((await t.graphql('query($w: ProjectWhere) { projects(where: $w) { total } }', { w: where }, bearer(narrow))).body);
    gqlForbidden((await t.graphql('query($w: ProjectWhere) { projectsAggregate(where: $w) { groups { count } } }', { w: where }, bearer(narrow))).body);
    gqlForbidden((await t.graphql('{ projects { items { name customer { office } } } }', {}, bearer(narrow))).body);
    const allowed = await t.graphql('query($w: ProjectWhere) { projects(where: $w) { items { name customer { office } } } }', { w: where }, bearer(both));
    expect(allowed.body.errors).toBeUndefined();
    expect(allowed.body.data.projects.items).toEqual([{ name: 'Madrid project', customer: { office: 'Madrid' } }]);
    // The narrow key still lists projects.
    expect((await t.graphql('{ projects { total } }', {}, bearer(narrow))).body.data.projects.total).toBe(2);
  });
});

describe('REST declarations', () => {
  it('LIST and aggregate with a filter, and expand or fields, reaching customers are 403; without them 200', async () => {
    forbidden((await t.json('GET', `/api/v1/projects?filter=${encodeURIComponent(madrid)}`, undefined, bearer(narrow))).body);
    forbidden((await t.json('GET', `/api/v1/projects/aggregate?count=true&filter=${encodeURIComponent(madrid)}`, undefined, bearer(narrow))).body);
    for (const query of ['expand=customer', 'fields=name,customer.office']) {
      const expanded = await t.json('GET', `/api/v1/projects?${query}`, undefined, bearer(narrow));
      expect(expanded.status, query).toBe(403);
      forbidden(expanded.body);
    }
    // The project's own column naming its customer is the project's: no customers:read needed.
    expect((await t.json('GET', '/api/v1/projects?fields=name,customerId', undefined, bearer(narrow))).status).toBe(200);
    const plain = await t.json('GET', '/api/v1/projects', undefined, bearer(narrow));
    expect(plain.status).toBe(200);
    expect(plain.body.pagination.total).toBe(2);
    const filtered = await t.json('GET', `/api/v1/projects?filter=${encodeURIComponent(madrid)}`, undefined, bearer(both));
    expect(filtered.body.data.map((p: any) => p.name)).toEqual(['Madrid project']);
  });
});

describe('HTTP routes', () => {
  it('the events stream: a filter reaching customers is 403 for a key without customers:read', async () => {
    const refused = await openEventStream(`${t.origin}/api/v1/projects/events?filter=${encodeURIComponent(madrid)}`, bearer(narrow));
    expect(refused.status).toBe(403);
    forbidden(refused.refusal);
    const unfiltered = await openEventStream(`${t.origin}/api/v1/projects/events`, bearer(narrow));
    expect(unfiltered.status).toBe(200);
    unfiltered.close();
    const allowed = await openEventStream(`${t.origin}/api/v1/projects/events?filter=${encodeURIComponent(madrid)}`, bearer(both));
    expect(allowed.status).toBe(200);
    allowed.close();
  });

  it('uploads and renditions take the rules of uploadMedia and media (403 naming the scope; 401 anonymous)', async () => {
    const form = new FormData();
    form.append('files', new Blob([Buffer.from('hello')], { type: 'text/plain' }), 'a.txt');
    const upload = await t.fetch('/api/v1/media/upload', { method: 'POST', body: form, headers: bearer(narrow) });
    expect(upload.status).toBe(403);
    expect(await upload.json()).toEqual({ success: false, error: 'Insufficient permissions - media:write scope required' });
    const render = await t.fetch('/api/v1/media/00000000-0000-4000-8000-000000000000/render?w=10', { headers: bearer(narrow) });
    expect(render.status).toBe(403);
    expect(await render.json()).toEqual({ success: false, error: 'Insufficient permissions - media:read scope required' });
    expect((await t.fetch('/api/v1/media/00000000-0000-4000-8000-000000000000/render?w=10')).status).toBe(401);
  });
});

describe('realtime', () => {
  const subscription = 'subscription($w: ProjectWhere) { projectEvents(where: $w) { type id } }';
  const where = { customer: { office: { eq: 'Madrid' } } };

  it('opening over SSE and graphql-ws: a where reaching customers is refused without customers:read', async () => {
    const sse = await subscribeOverSse(t.origin, subscription, { w: where }, bearer(narrow));
    gqlForbidden(await sse.next(10_000));
    sse.close();
    const client = wsClient(t.origin, { connectionParams: { authorization: `Bearer ${narrow}` } });
    try {
      const ws = subscribeOverWs(client, subscription, { w: where });
      gqlForbidden(await ws.next(10_000));
    } finally {
      await client.dispose();
    }
  });

  it('events: a nested selection reaching customers is refused in each event, the rest delivered', async () => {
    const client = wsClient(t.origin, { connectionParams: { authorization: `Bearer ${narrow}` } });
    try {
      const ws = subscribeOverWs(client, 'subscription { projectEvents { type record { name customer { office } } } }');
      // The subscription is open once a change reaches it: write until one does.
      let event: any;
      for (let attempt = 0; !event && attempt < 20; attempt++) {
        await t.json('POST', '/api/v1/projects', { name: `Nested ${attempt}` }, { cookie: owner.cookie });
        event = await ws.next(2_000).catch(() => undefined);
      }
      expect(event.data.projectEvents).toMatchObject({ type: 'CREATED', record: { name: expect.stringMatching(/^Nested/), customer: null } });
      gqlForbidden(event);
    } finally {
      await client.dispose();
    }
  });

  it('re-checks: a subscription ends when its caller no longer passes its rule, with the filters it reaches', async () => {
    // A superadmin's key with `*` and `projects:read`: demoted, the key keeps projects:read only
    // (`*` is for superadmins), which still lists projects but no longer reads customers.
    const admin = await userWithRole(t, 'superadmin', ['*', 'projects:read']);
    const stream = await openEventStream(`${t.origin}/api/v1/projects/events?filter=${encodeURIComponent(madrid)}`, bearer(admin.key.key));
    expect(stream.status).toBe(200);
    try {
      await t.database.prisma.user.update({ where: { id: admin.id }, data: { role: 'member' } });
      const end = await stream.next(30_000); // REALTIME_RECHECK_MS (500 ms) on a loaded machine
      expect(end.data).toMatchObject({ type: 'END', code: 'FORBIDDEN', message: missingCustomers });
    } finally {
      stream.close();
    }
    // Unfiltered, the demoted key still follows projects.
    const unfiltered = await openEventStream(`${t.origin}/api/v1/projects/events`, bearer(admin.key.key));
    expect(unfiltered.status).toBe(200);
    unfiltered.close();
  });
});

describe('the scheduled-action runner', () => {
  it('judges an action creator by the rule of the operation it will run (content:publish: the entity’s update rule)', async () => {
    const developer = await userWithRole(t, 'developer', ['scheduled-actions:*', 'projects:read']);
    const body = { actionType: 'content:publish', payload: { entityType: 'projects', entityId: '00000000-0000-4000-8000-000000000000' }, teamId: developer.activeTeamId };
    const refused = await t.json('POST', '/api/v1/devtools/scheduled-actions', body, { 'x-api-key': developer.key.key });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, error: 'Insufficient permissions - projects:write scope required' });
    const writer = await userWithRole(t, 'developer', ['scheduled-actions:*', 'projects:write']);
    const created = await t.json('POST', '/api/v1/devtools/scheduled-actions', { ...body, teamId: writer.activeTeamId }, { 'x-api-key': writer.key.key });
    expect(created.status).toBe(201);
  });
});
