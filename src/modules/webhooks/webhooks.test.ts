// Webhook endpoints through the front door (REST and GraphQL): CRUD, the secret shown once and stored
// sealed, validation, the SSRF guard when an endpoint is saved, roles (owners and admins only), team
// isolation, API-key scopes, and RLS as the backstop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAsUser } from '../../db/request-db.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { addMember } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { createEndpoint } from '../../testkit/webhooks.js';
import { maxEndpointsPerTeam } from './service.js';
import { openSecret } from './signing-secret.js';

const secretKey = 'a1'.repeat(32);
const publicUrl = 'https://93.184.215.14/hooks/platform';
let t: TestApp;
let alice: SignedUpUser; // owner
let adam: SignedUpUser; // admin in alice's team
let mia: SignedUpUser; // member in alice's team
let vic: SignedUpUser; // viewer in alice's team
let eve: SignedUpUser; // another team

beforeAll(async () => {
  t = await createTestApp({ WEBHOOKS_SECRET_KEY: secretKey });
  alice = await signUp(t);
  [adam, mia, vic, eve] = [await signUp(t), await signUp(t), await signUp(t), await signUp(t)];
  await addMember(t, alice, alice.activeTeamId, adam, 'admin');
  await addMember(t, alice, alice.activeTeamId, mia, 'member');
  await addMember(t, alice, alice.activeTeamId, vic, 'viewer');
  for (const user of [adam, mia, vic]) await t.json('POST', '/api/v1/teams/switch', { teamId: alice.activeTeamId }, { cookie: user.cookie });
});
afterAll(() => t.close());

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
const stored = (id: string) => t.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });

describe('endpoints', () => {
  it('creates (201) with a secret shown once, lists, reads, changes, rotates and deletes', async () => {
    const created = await t.json('POST', '/api/v1/webhooks', { url: publicUrl, eventTypes: ['tasks:created', 'tasks:*', 'tasks:created'], description: 'CRM sync' }, as(alice));
    expect(created.status).toBe(201);
    const endpoint = created.body.data;
    expect(endpoint).toEqual({
      id: expect.any(String), teamId: alice.activeTeamId, url: publicUrl, description: 'CRM sync', eventTypes: ['tasks:created', 'tasks:*'], active: true,
      createdAt: expect.any(String), updatedAt: expect.any(String), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(endpoint.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const { secret, ...shown } = endpoint;

    const list = await t.json('GET', '/api/v1/webhooks', undefined, as(alice));
    expect(list.body).toEqual({ success: true, data: [shown], pagination: { page: 1, limit: 20, total: 1, totalPages: 1 } });
    const read = await t.json('GET', `/api/v1/webhooks/${endpoint.id}`, undefined, as(alice));
    expect(read.body).toEqual({ success: true, data: shown });

    // Stored sealed under WEBHOOKS_SECRET_KEY: the database alone does not hold it.
    const row = await stored(endpoint.id);
    expect(row.secretSealed).toMatch(/^v1:/);
    expect(row.secretSealed).not.toContain(secret.slice(6, 20));
    expect(openSecret(row.secretSealed, Buffer.from(secretKey, 'hex'))).toBe(secret);

    const patched = await t.json('PATCH', `/api/v1/webhooks/${endpoint.id}`, { eventTypes: ['*'], active: false, description: null }, as(adam));
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id: endpoint.id, url: publicUrl, eventTypes: ['*'], active: false, description: null });
    expect(patched.body.data.secret).toBeUndefined();

    const rotated = await t.json('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, undefined, as(alice));
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(secret);
    expect(openSecret((await stored(endpoint.id)).secretSealed, Buffer.from(secretKey, 'hex'))).toBe(rotated.body.data.secret);
    expect((await t.json('GET', `/api/v1/webhooks/${endpoint.id}`, undefined, as(alice))).body.data.secret).toBeUndefined();

    const deleted = await t.json('DELETE', `/api/v1/webhooks/${endpoint.id}`, undefined, as(alice));
    expect(deleted.body).toEqual({ success: true, message: 'Webhook endpoint deleted', data: { id: endpoint.id } });
    for (const [method, path] of [['GET', ''], ['DELETE', ''], ['GET', '/deliveries'], ['POST', '/rotate-secret']] as const) {
      const res = await t.json(method, `/api/v1/webhooks/${endpoint.id}${path}`, undefined, as(alice));
      expect(res).toMatchObject({ status: 404, body: { success: false, error: 'Webhook endpoint not found', code: 'NOT_FOUND' } });
    }
    expect((await t.json('GET', '/api/v1/webhooks/not-a-uuid', undefined, as(alice))).status).toBe(404);
  });

  it('never lets the secret out through a request: app_user may not even select its column', async () => {
    const { id } = await createEndpoint(t, alice, { url: publicUrl });
    await expect(runAsUser(t.database, alice.id, (tx) => tx.$queryRaw`SELECT secret_sealed FROM webhook_endpoints`)).rejects.toThrow();
    expect(await runAsUser(t.database, alice.id, (tx) => tx.webhookEndpoint.count({ where: { id } }))).toBe(1);
    const gql = await t.graphql('{ webhookEndpoints { items { id secret } } }', {}, as(alice));
    expect(gql.body.data).toBeUndefined();
    expect(gql.body.errors[0].message).toMatch(/Cannot query field "secret"/);
  });

  it.each([
    [{ eventTypes: ['*'] }, /url: /],
    [{ url: publicUrl }, /eventTypes: /],
    [{ url: publicUrl, eventTypes: [] }, /at least one event type/],
    [{ url: publicUrl, eventTypes: ['Tasks:Created'] }, /eventTypes\.0: must be/],
    [{ url: publicUrl, eventTypes: ['tasks'] }, /eventTypes\.0: must be/],
    [{ url: 'not a url', eventTypes: ['*'] }, /url: must be an absolute/],
    [{ url: 'ftp://93.184.215.14/x', eventTypes: ['*'] }, /url: must be an http or https URL/],
    [{ url: 'https://user:pw@93.184.215.14/x', eventTypes: ['*'] }, /url: must not carry a user name or password/],
    [{ url: publicUrl, eventTypes: ['*'], secret: 'mine' }, /secret/],
    [{ url: publicUrl, eventTypes: ['*'], description: 'x'.repeat(501) }, /description: must be at most 500/],
  ])('refuses %j with 400 VALIDATION_ERROR', async (body, message) => {
    const before = await t.database.prisma.webhookEndpoint.count();
    const res = await t.json('POST', '/api/v1/webhooks', body, as(alice));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.error).toMatch(message);
    expect(await t.database.prisma.webhookEndpoint.count()).toBe(before);
  });

  it('refuses an empty PATCH and a PATCH to a refused destination, changing nothing', async () => {
    const { id } = await createEndpoint(t, alice, { url: publicUrl });
    expect((await t.json('PATCH', `/api/v1/webhooks/${id}`, {}, as(alice))).status).toBe(400);
    const res = await t.json('PATCH', `/api/v1/webhooks/${id}`, { url: 'http://169.254.169.254/latest/meta-data/' }, as(alice));
    expect(res).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR', details: { errors: [{ path: 'url', code: 'refused_destination' }] } } });
    expect((await stored(id)).url).toBe(publicUrl);
  });

  it(`keeps at most ${maxEndpointsPerTeam} endpoints per team`, async () => {
    const owner = await signUp(t);
    for (let i = 0; i < maxEndpointsPerTeam; i++) await createEndpoint(t, owner, { url: `${publicUrl}/${i}` });
    const res = await t.json('POST', '/api/v1/webhooks', { url: publicUrl, eventTypes: ['*'] }, as(owner));
    expect(res).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR', error: `A team has at most ${maxEndpointsPerTeam} webhook endpoints` } });
  });
});

describe('the SSRF guard when an endpoint is saved', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://10.0.0.1/hook', 'private'],
    ['http://192.168.0.10/hook', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://[::1]:3000/hook', 'loopback'],
    ['http://[fd00:ec2::254]/', 'unique-local'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://100.64.1.1/', 'carrier-grade NAT'],
    ['http://0.0.0.0:3000/', 'unspecified'],
    ['http://localhost:3000/hook', 'loopback'],
  ])('refuses %s (%s)', async (url, kind) => {
    const res = await t.json('POST', '/api/v1/webhooks', { url, eventTypes: ['*'] }, as(alice));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', details: { errors: [{ path: 'url', code: 'refused_destination', message: expect.stringContaining(kind) }] } });
  });

  it('refuses a name that resolves to a loopback address', async () => {
    const res = await t.json('POST', '/api/v1/webhooks', { url: `http://${loopbackName}:3000/hook`, eventTypes: ['*'] }, as(alice));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/resolves to 127\.\d+\.\d+\.\d+, a loopback address/);
  });

  it('allows them all with WEBHOOKS_ALLOW_PRIVATE=true', async () => {
    const lax = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE: 'true' }, t);
    const dev = await signUp(lax);
    try {
      for (const url of ['http://127.0.0.1:8080/hook', 'http://[::1]:3000/hook', 'http://localhost:3000/hook', 'http://169.254.169.254/']) {
        const res = await lax.json('POST', '/api/v1/webhooks', { url, eventTypes: ['*'] }, as(dev));
        expect(res.status).toBe(201);
      }
    } finally {
      await lax.close();
    }
  });
});

/** A name /etc/hosts maps to loopback besides localhost (the machine's own name on most hosts). */
const loopbackName = await (async () => {
  const { lookup } = await import('node:dns/promises');
  const { hostname } = await import('node:os');
  for (const name of [hostname(), 'vm', 'runsc', 'ip6-localhost']) {
    const found = await lookup(name, { all: true }).catch(() => []);
    if (found.length && found.every((a) => a.address.startsWith('127.'))) return name;
  }
  return 'localhost.';
})();

describe('who may manage endpoints', () => {
  it('owners and admins of the active team; members and viewers 403; another team sees nothing (404)', async () => {
    const endpoint = await createEndpoint(t, adam, { url: publicUrl, eventTypes: ['customers:*'] });
    expect((await t.json('GET', '/api/v1/webhooks', undefined, as(adam))).body.data.map((e: { id: string }) => e.id)).toContain(endpoint.id);
    for (const user of [mia, vic]) {
      for (const [method, path, body] of [['GET', '', undefined], ['POST', '', { url: publicUrl, eventTypes: ['*'] }], ['GET', `/${endpoint.id}`, undefined], ['PATCH', `/${endpoint.id}`, { active: false }], ['DELETE', `/${endpoint.id}`, undefined], ['GET', `/${endpoint.id}/deliveries`, undefined]] as const) {
        const res = await t.json(method, `/api/v1/webhooks${path}`, body, as(user));
        expect(res).toMatchObject({ status: 403, body: { success: false, code: 'FORBIDDEN', error: 'Only the team owner or an admin can manage webhooks' } });
      }
    }
    expect((await t.json('GET', '/api/v1/webhooks', undefined, as(eve))).body.data).toEqual([]);
    for (const [method, path, body] of [['GET', '', undefined], ['PATCH', '', { active: false }], ['DELETE', '', undefined], ['GET', '/deliveries', undefined], ['POST', '/rotate-secret', undefined]] as const) {
      expect((await t.json(method, `/api/v1/webhooks/${endpoint.id}${path}`, body, as(eve))).status).toBe(404);
    }
    expect(await stored(endpoint.id)).toMatchObject({ active: true });
  });

  it('RLS backs it: members and other teams read and write no endpoint, whatever the query', async () => {
    const endpoint = await createEndpoint(t, alice, { url: publicUrl });
    const count = (user: SignedUpUser) => runAsUser(t.database, user.id, (tx) => tx.webhookEndpoint.count());
    expect(await count(adam)).toBeGreaterThan(0);
    expect([await count(mia), await count(vic), await count(eve)]).toEqual([0, 0, 0]);
    expect(await runAsUser(t.database, mia.id, (tx) => tx.$executeRaw`UPDATE webhook_endpoints SET active = false`)).toBe(0);
    expect(await runAsUser(t.database, eve.id, (tx) => tx.$executeRaw`DELETE FROM webhook_endpoints`)).toBe(0);
    await expect(runAsUser(t.database, mia.id, (tx) => tx.$executeRaw`
      INSERT INTO webhook_endpoints (id, team_id, url, event_types, secret_sealed, created_by_id)
      VALUES (gen_random_uuid(), ${alice.activeTeamId}::uuid, 'https://93.184.215.14/', '{*}', 'plain:x', ${mia.id}::uuid)`)).rejects.toThrow();
    await expect(runAsUser(t.database, alice.id, (tx) => tx.$executeRaw`INSERT INTO webhook_deliveries (id, endpoint_id, team_id, action_id, message_id, event_type, attempt, succeeded, duration_ms)
      VALUES (gen_random_uuid(), ${endpoint.id}::uuid, ${alice.activeTeamId}::uuid, gen_random_uuid(), 'm', 'x', 1, true, 1)`)).rejects.toThrow();
    expect((await stored(endpoint.id)).active).toBe(true);
  });

  it('deleting a team deletes its endpoints and their delivery log', async () => {
    const owner = await signUp(t);
    const team = await t.json('POST', '/api/v1/teams', { name: 'Doomed', slug: 'doomed-webhooks' }, as(owner));
    await t.json('POST', '/api/v1/teams/switch', { teamId: team.body.data.id }, as(owner));
    const { id } = await createEndpoint(t, owner, { url: publicUrl });
    await t.database.prisma.webhookDelivery.create({ data: { endpointId: id, teamId: team.body.data.id, actionId: '00000000-0000-4000-8000-000000000001', messageId: 'm', eventType: 'x:y', attempt: 1, succeeded: true, durationMs: 1 } });
    expect((await t.json('DELETE', `/api/v1/teams/${team.body.data.id}`, undefined, as(owner))).status).toBe(204);
    expect(await t.database.prisma.webhookEndpoint.count({ where: { id } })).toBe(0);
    expect(await t.database.prisma.webhookDelivery.count({ where: { endpointId: id } })).toBe(0);
  });

  it('API keys need webhooks:read, webhooks:write or webhooks:delete', async () => {
    const reader = await createKey(t, alice, { scopes: ['webhooks:read'] });
    const writer = await createKey(t, alice, { scopes: ['webhooks:write'] });
    const other = await createKey(t, alice, { scopes: ['teams:read'] });
    expect((await t.json('GET', '/api/v1/webhooks', undefined, bearer(reader.key))).status).toBe(200);
    expect((await t.json('GET', '/api/v1/webhooks', undefined, bearer(other.key))).status).toBe(403);
    expect((await t.json('POST', '/api/v1/webhooks', { url: publicUrl, eventTypes: ['*'] }, bearer(reader.key))).status).toBe(403);
    const created = await t.json('POST', '/api/v1/webhooks', { url: publicUrl, eventTypes: ['*'] }, bearer(writer.key));
    expect(created.status).toBe(201);
    expect((await t.json('DELETE', `/api/v1/webhooks/${created.body.data.id}`, undefined, bearer(writer.key))).status).toBe(403);
  });
});

describe('GraphQL', () => {
  it('creates with the secret, lists, updates, rotates and deletes, with the same rules', async () => {
    const created = await t.graphql('mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id url eventTypes active secret } }', { input: { url: publicUrl, eventTypes: ['posts:*'] } }, as(alice));
    expect(created.body.errors).toBeUndefined();
    const { id, secret } = created.body.data.createWebhookEndpoint;
    expect(secret).toMatch(/^whsec_/);
    const listed = await t.graphql('{ webhookEndpoints(limit: 100) { total items { id eventTypes deliveries { total items { id } } } } }', {}, as(alice));
    expect(listed.body.data.webhookEndpoints.items).toContainEqual({ id, eventTypes: ['posts:*'], deliveries: { total: 0, items: [] } });
    const updated = await t.graphql('mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { active: false }) { active } }', { id }, as(alice));
    expect(updated.body.data.updateWebhookEndpoint).toEqual({ active: false });
    const refused = await t.graphql('mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { url: "http://10.0.0.1/" }) { active } }', { id }, as(alice));
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
    const rotated = await t.graphql('mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { secret } }', { id }, as(alice));
    expect(rotated.body.data.rotateWebhookEndpointSecret.secret).not.toBe(secret);
    const forbidden = await t.graphql('{ webhookEndpoints { total } }', {}, as(mia));
    expect(forbidden.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN' });
    const deleted = await t.graphql('mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id } }', { id }, as(alice));
    expect(deleted.body.data.deleteWebhookEndpoint).toEqual({ id });
  });
});
