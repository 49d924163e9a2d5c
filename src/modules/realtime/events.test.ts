// REST realtime (GET /api/v1/{entity}/events, Server-Sent Events) over real HTTP: create, update and
// delete arrive in order with their records; a rolled-back change is never delivered; the visibility
// matrix (creator, teammate, viewer, another team, anonymous on public posts, a key without the
// scope, anonymous on a private entity); LIST's filters. A change a subscriber must not see is
// followed by one it must see (a marker): delivery is in commit order, so the next event being the
// marker proves nothing came before it. On PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { openEventStream, type SseClient } from '../../testkit/event-stream.js';
import { addMember } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
let alice: SignedUpUser; // owner of the team
let bob: SignedUpUser; // alice's teammate (member)
let vera: SignedUpUser; // viewer in alice's team
let eve: SignedUpUser; // another team
const as = (u: SignedUpUser) => ({ cookie: u.cookie });
let account = 5000;
const open: SseClient[] = [];

async function subscribe(path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const stream = await openEventStream(`${t.origin}${path}`, headers);
  expect(stream.status, JSON.stringify(stream.refusal)).toBe(200);
  open.push(stream);
  return stream;
}

async function write(u: SignedUpUser, method: string, path: string, body?: unknown): Promise<Row> {
  const res = await t.json(method, path, body, as(u));
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body?.data;
}

const customer = (u: SignedUpUser, body: Row = {}) => write(u, 'POST', '/api/v1/customers', { name: `Customer ${account}`, account: account++, office: 'Madrid', ...body });
const task = (u: SignedUpUser, title: string) => write(u, 'POST', '/api/v1/tasks', { title });

beforeAll(async () => {
  t = await createTestApp();
  alice = await signUp(t);
  bob = await signUp(t);
  vera = await signUp(t);
  eve = await signUp(t);
  await addMember(t, alice, alice.activeTeamId, bob, 'member');
  await addMember(t, alice, alice.activeTeamId, vera, 'viewer');
  for (const u of [bob, vera]) expect((await t.json('POST', '/api/v1/teams/switch', { teamId: alice.activeTeamId }, as(u))).status).toBe(200);
});
afterAll(async () => {
  for (const stream of open) stream.close();
  await t?.close();
});

describe('delivery', () => {
  it('streams a customer’s create, update and delete in order, with the record (null when deleted)', async () => {
    const stream = await subscribe('/api/v1/customers/events', as(alice));
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Written as it comes, without chunked framing: the body ends with the connection.
    expect(stream.headers.get('transfer-encoding')).toBeNull();
    expect(stream.headers.get('connection')).toBe('close');
    // Each change read before the next is written: a change is sent with the record as it is at
    // delivery, so an update of a record deleted before its delivery would (rightly) not be sent.
    const c = await customer(alice, { name: 'Acme' });
    const created = await stream.next();
    await write(alice, 'PATCH', `/api/v1/customers/${c.id}`, { phone: '555' });
    const updated = await stream.next();
    await write(alice, 'DELETE', `/api/v1/customers/${c.id}`);
    const deleted = await stream.next();
    expect(created.data).toMatchObject({ type: 'CREATED', id: c.id, record: { id: c.id, name: 'Acme', account: c.account, office: 'Madrid' } });
    expect(updated.data).toMatchObject({ type: 'UPDATED', id: c.id, record: { id: c.id, name: 'Acme', phone: '555' } });
    expect(deleted.data).toMatchObject({ type: 'DELETED', id: c.id, record: null });
    for (const e of [created, updated, deleted]) {
      expect(e.id).toBe(e.data.eventId);
      expect(new Date(e.data.occurredAt).toISOString()).toBe(e.data.occurredAt);
    }
    expect(BigInt(created.id!) < BigInt(updated.id!) && BigInt(updated.id!) < BigInt(deleted.id!)).toBe(true);
  });

  it('never delivers a refused write, nor a change written and then rolled back with its request', async () => {
    const stream = await subscribe('/api/v1/customers/events', as(alice));
    const taken = await customer(alice);
    const takenEvent = await stream.next();
    expect(takenEvent.data).toMatchObject({ type: 'CREATED', id: taken.id });

    // A unique violation (409) and invalid input (422): refused before anything commits.
    const duplicate = await t.json('POST', '/api/v1/customers', { name: 'Dup', account: taken.account, office: 'Madrid' }, as(alice));
    expect(duplicate.status).toBe(409);
    const invalid = await t.json('POST', '/api/v1/customers', { name: '', account: -1, office: 'Madrid' }, as(alice));
    expect(invalid.status).toBe(422);
    // Two mutations in one request: the first row is written (its trigger runs), the second
    // violates the unique account, and the request's transaction rolls both back.
    const rolledBack = account++;
    const both = await t.graphql(
      'mutation($a: Int!, $b: Int!) { first: createCustomer(input: { name: "Rolled back", account: $a, office: "Madrid" }) { id } second: createCustomer(input: { name: "Dup", account: $b, office: "Madrid" }) { id } }',
      { a: rolledBack, b: taken.account },
      as(alice),
    );
    expect(both.body.errors?.[0]?.extensions?.code).toBeDefined();
    const writtenId = both.body.data?.first?.id;
    expect((await t.json('GET', `/api/v1/customers?account=${rolledBack}`, undefined, as(alice))).body.data).toEqual([]);
    // A rolled-back delete too: the record stays, and no DELETED is sent.
    const kept = await customer(alice);
    const keptEvent = await stream.next();
    expect(keptEvent.data).toMatchObject({ type: 'CREATED', id: kept.id });
    // The rolled-back insert did run its trigger: it took an event id (sequences do not roll back).
    expect(BigInt(keptEvent.id!) - BigInt(takenEvent.id!)).toBeGreaterThanOrEqual(2n);
    const deleteThenFail = await t.graphql(
      'mutation($id: ID!, $b: Int!) { deleteCustomer(id: $id) { __typename } second: createCustomer(input: { name: "Dup", account: $b, office: "Madrid" }) { id } }',
      { id: kept.id, b: taken.account },
      as(alice),
    );
    expect(deleteThenFail.body.errors?.length).toBeGreaterThan(0);
    expect((await t.json('GET', `/api/v1/customers/${kept.id}`, undefined, as(alice))).status).toBe(200);

    const good = await customer(alice);
    const next = await stream.next();
    expect(next.data).toMatchObject({ type: 'CREATED', id: good.id });
    if (writtenId) expect(next.data.id).not.toBe(writtenId);
    expect(BigInt(next.id!) - BigInt(keptEvent.id!)).toBeGreaterThanOrEqual(2n); // the rolled-back DELETED took one
    expect(await stream.drain(300)).toEqual([]);
  });

  it('sends heartbeats as comments and begins with a retry interval', async () => {
    const res = await fetch(`${t.origin}/api/v1/customers/events`, { headers: { ...as(alice), accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^retry: \d+\n\n/);
    await reader.cancel();
  });
});

describe('visibility', () => {
  it('a shared entity: creator, teammate and viewer see the change; another team sees nothing', async () => {
    const streams = { alice: await subscribe('/api/v1/customers/events', as(alice)), bob: await subscribe('/api/v1/customers/events', as(bob)), vera: await subscribe('/api/v1/customers/events', as(vera)) };
    const eveStream = await subscribe('/api/v1/customers/events', as(eve));
    const got: Record<string, unknown[][]> = { alice: [], bob: [], vera: [] };
    const receive = async () => {
      for (const [who, stream] of Object.entries(streams)) {
        const e = await stream.next();
        got[who]!.push([e.data.type, e.data.id, e.data.record?.salesRep ?? null]);
      }
    };
    const c = await customer(alice, { name: 'Shared' });
    await receive();
    await write(bob, 'PATCH', `/api/v1/customers/${c.id}`, { salesRep: 'Bob' });
    await receive();
    await write(alice, 'DELETE', `/api/v1/customers/${c.id}`);
    await receive();
    for (const who of Object.keys(streams)) {
      expect(got[who], who).toEqual([
        ['CREATED', c.id, null],
        ['UPDATED', c.id, 'Bob'],
        ['DELETED', c.id, null],
      ]);
    }
    const marker = await customer(eve);
    expect((await eveStream.next()).data).toMatchObject({ type: 'CREATED', id: marker.id, record: { teamId: eve.activeTeamId } });
  });

  it('a private entity: only the creator sees a task, and a teammate not even the id of its deletion', async () => {
    const mine = await subscribe('/api/v1/tasks/events', as(alice));
    const mate = await subscribe('/api/v1/tasks/events', as(bob));
    const viewer = await subscribe('/api/v1/tasks/events', as(vera));
    const secret = await task(alice, 'Secret');
    const created = await mine.next();
    await write(alice, 'PATCH', `/api/v1/tasks/${secret.id}`, { status: 'done' });
    const updated = await mine.next();
    await write(alice, 'DELETE', `/api/v1/tasks/${secret.id}`);
    expect([created, updated, await mine.next()].map((e) => [e.data.type, e.data.id])).toEqual([
      ['CREATED', secret.id],
      ['UPDATED', secret.id],
      ['DELETED', secret.id],
    ]);
    const bobs = await task(bob, 'Bob’s own');
    const next = await mate.next();
    expect(next.data).toMatchObject({ type: 'CREATED', id: bobs.id });
    expect(JSON.stringify(next)).not.toContain(secret.id);
    // The viewer has created no task: nothing at all arrives (the creator's own stream is the clock).
    const last = await task(alice, 'Later');
    expect((await mine.next()).data).toMatchObject({ type: 'CREATED', id: last.id });
    expect(await viewer.drain(500)).toEqual([]);
  });

  it('a key without customers:read is refused (403) at subscribe; one with it subscribes', async () => {
    const without = await createKey(t, alice, { scopes: ['tasks:read'] });
    const refused = await openEventStream(`${t.origin}/api/v1/customers/events`, bearer(without.key));
    expect(refused.status).toBe(403);
    expect(refused.refusal).toMatchObject({ success: false, code: expect.any(String) });
    const withScope = await createKey(t, alice, { scopes: ['customers:read'] });
    const stream = await subscribe('/api/v1/customers/events', bearer(withScope.key));
    const c = await customer(alice);
    expect((await stream.next()).data).toMatchObject({ type: 'CREATED', id: c.id });
  });

  it('anonymous: 401 on a private entity', async () => {
    for (const slug of ['customers', 'tasks', 'projects']) {
      const refused = await openEventStream(`${t.origin}/api/v1/${slug}/events`);
      expect(refused.status, slug).toBe(401);
      expect(refused.refusal).toMatchObject({ success: false });
    }
  });

  it('anonymous on public posts: published only, never a draft; a soft-deleted published post arrives as DELETED', async () => {
    const anonymous = await subscribe('/api/v1/posts/events');
    const draft = await write(alice, 'POST', '/api/v1/posts', { title: 'Draft', slug: 'draft-post' });
    await write(alice, 'PATCH', `/api/v1/posts/${draft.id}`, { title: 'Still a draft' });
    await write(alice, 'DELETE', `/api/v1/posts/${draft.id}`);
    const published = await write(alice, 'POST', '/api/v1/posts', { title: 'Hello', slug: 'hello', status: 'published' });
    const first = await anonymous.next();
    expect(first.data).toMatchObject({ type: 'CREATED', id: published.id, record: { title: 'Hello', status: 'published' } });
    const later = await write(alice, 'POST', '/api/v1/posts', { title: 'Later', slug: 'later' });
    // Events arrive in commit order: once this one is here, the draft's creation was passed over (a
    // change goes out with the record as it is at delivery: published in the same batch, it would come as CREATED).
    const marker = await write(alice, 'POST', '/api/v1/posts', { title: 'Marker', slug: 'marker', status: 'published' });
    expect((await anonymous.next()).data).toMatchObject({ type: 'CREATED', id: marker.id });
    await write(alice, 'PATCH', `/api/v1/posts/${later.id}`, { status: 'published' });
    expect((await anonymous.next()).data).toMatchObject({ type: 'UPDATED', id: later.id, record: { status: 'published' } });
    await write(alice, 'DELETE', `/api/v1/posts/${published.id}`);
    expect((await anonymous.next()).data).toMatchObject({ type: 'DELETED', id: published.id, record: null });
    const all = [first, ...(await anonymous.drain(300))];
    expect(JSON.stringify(all)).not.toContain(draft.id);
  });
});

describe('filters', () => {
  it('?office= and a filter JSON deliver only matching records', async () => {
    const madrid = await subscribe('/api/v1/customers/events?office=Madrid', as(alice));
    const json = await subscribe(`/api/v1/customers/events?filter=${encodeURIComponent(JSON.stringify({ office: { eq: 'Lisboa' } }))}`, as(alice));
    const lisboa = await customer(alice, { office: 'Lisboa' });
    const inMadrid = await customer(alice, { office: 'Madrid' });
    expect((await madrid.next()).data).toMatchObject({ type: 'CREATED', id: inMadrid.id, record: { office: 'Madrid' } });
    expect((await json.next()).data).toMatchObject({ type: 'CREATED', id: lisboa.id, record: { office: 'Lisboa' } });
    // Moving a record into the filter delivers it from then on.
    await write(alice, 'PATCH', `/api/v1/customers/${lisboa.id}`, { office: 'Madrid' });
    expect((await madrid.next()).data).toMatchObject({ type: 'UPDATED', id: lisboa.id, record: { office: 'Madrid' } });
    expect(await json.drain(300)).toEqual([]);
  });

  it('takes select values (stored or GraphQL names), operators, tags and instants as LIST does', async () => {
    const since = new Date().toISOString();
    const high = await subscribe('/api/v1/tasks/events?priority=high', as(alice));
    const inList = await subscribe('/api/v1/tasks/events?status[in]=in-progress,review', as(alice));
    const json = await subscribe(`/api/v1/tasks/events?filter=${encodeURIComponent(JSON.stringify({ OR: [{ priority: { eq: 'URGENT' } }, { tags: { has: 'mixed' } }] }))}`, as(alice));
    const recent = await subscribe(`/api/v1/tasks/events?createdAt[gte]=${encodeURIComponent(since)}&priority=low`, as(alice));
    const [h, p, u, m, l] = [
      await task(alice, 'High'),
      await write(alice, 'POST', '/api/v1/tasks', { title: 'Busy', status: 'in-progress', priority: 'high' }),
      await write(alice, 'POST', '/api/v1/tasks', { title: 'Urgent', priority: 'urgent' }),
      await write(alice, 'POST', '/api/v1/tasks', { title: 'Tagged', priority: 'low', tags: ['mixed'] }),
      await write(alice, 'POST', '/api/v1/tasks', { title: 'Low', priority: 'low' }),
    ];
    await write(alice, 'PATCH', `/api/v1/tasks/${h.id}`, { priority: 'high' }); // into the filter: an UPDATED
    expect(h.priority).toBe('medium');
    const take = async (stream: SseClient, n: number) => {
      const got: string[] = [];
      for (let i = 0; i < n; i++) got.push((await stream.next()).data.id);
      return got;
    };
    expect(await take(high, 2)).toEqual([p.id, h.id]);
    expect(await take(inList, 1)).toEqual([p.id]);
    expect(await take(json, 2)).toEqual([u.id, m.id]);
    expect(await take(recent, 2)).toEqual([m.id, l.id]);
    for (const stream of [high, inList, json, recent]) expect(await stream.drain(300)).toEqual([]);
  });

  it('compares text ignoring case with [mode]=insensitive', async () => {
    const stream = await subscribe('/api/v1/customers/events?office[eq]=PORTO&office[mode]=insensitive', as(alice));
    await customer(alice, { office: 'Madrid' });
    const porto = await customer(alice, { office: 'Porto' });
    expect((await stream.next()).data).toMatchObject({ type: 'CREATED', id: porto.id });
  });

  it('refuses an unknown filter field with 400', async () => {
    const refused = await openEventStream(`${t.origin}/api/v1/customers/events?nope=1`, as(alice));
    expect(refused.status).toBe(400);
    expect(refused.refusal).toMatchObject({ success: false });
  });

  it('refuses a value its field does not take with 400, naming it, as LIST does', async () => {
    const cases = { 'priority=someday': 'priority', 'createdAt[gte]=yesterday': 'createdAt', [`filter=${encodeURIComponent(JSON.stringify({ priority: { eq: 'SOMEDAY' } }))}`]: 'priority' };
    for (const [query, named] of Object.entries(cases)) {
      const refused = await openEventStream(`${t.origin}/api/v1/tasks/events?${query}`, as(alice));
      expect(refused.status, query).toBe(400);
      expect((await t.json('GET', `/api/v1/tasks?${query}`, undefined, as(alice))).status, query).toBe(400);
      expect(refused.refusal, query).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(JSON.stringify(refused.refusal), query).toContain(named);
    }
  });
});
