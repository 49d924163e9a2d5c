// Filters decided in memory deliver what SQL would: subscribers of one team with many different
// filters (equality, in, numeric ranges, LIKE's own characters in contains, startsWith, NOT and ne
// over empty fields, OR groups, multiselects, ids in any case) share one read of each change, and
// each receives exactly the changes its LIST with the same filter shows right after the change (a
// deletion: whatever its filters, but ids, when it could see the record); filters read with SQL
// (case-insensitive, search) alongside; a teammate's private records and another team's never. On
// PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { openEventStream, type SseClient } from '../../testkit/event-stream.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
let alice: SignedUpUser; // owner of the team
let bob: SignedUpUser; // alice's teammate
let eve: SignedUpUser; // another team
const as = (u: SignedUpUser) => ({ cookie: u.cookie });
const open: SseClient[] = [];

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  alice = await signUp(t);
  bob = await signUp(t);
  eve = await signUp(t);
  await joinTeam(t, alice, alice.activeTeamId, bob, 'member');
});
afterAll(async () => {
  for (const stream of open) stream.close();
  await t?.close();
});

async function write(u: SignedUpUser, method: string, path: string, body?: unknown): Promise<Row> {
  const res = await t.json(method, path, body, as(u));
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body?.data;
}

/** A subscriber: who, to which entity with which query string, and the event ids it must receive. */
interface Subscriber {
  user: SignedUpUser;
  slug: string;
  query: string;
  stream: SseClient;
  expected: string[];
}

async function subscriber(user: SignedUpUser, slug: string, query: string): Promise<Subscriber> {
  const stream = await openEventStream(`${t.origin}/api/v1/${slug}/events${query ? `?${query}` : ''}`, as(user));
  expect(stream.status, `${query}: ${JSON.stringify(stream.refusal)}`).toBe(200);
  open.push(stream);
  return { user, slug, query, stream, expected: [] };
}

const where = (w: Row) => `filter=${encodeURIComponent(JSON.stringify(w))}`;

/** Whether LIST with the subscriber's query, as its user, shows the record now. */
async function listed(s: Subscriber, id: string): Promise<boolean> {
  const res = await t.json('GET', `/api/v1/${s.slug}?${s.query ? `${s.query}&` : ''}limit=100`, undefined, as(s.user));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data as Row[]).some((r) => r.id === id);
}

/**
 * Makes a change, waits for it at `marker` (an unfiltered subscriber of the writer's team: every
 * subscriber of the instance is handed it in the same batch), then notes who must have received it:
 * a create or update those whose LIST shows the record now; a deletion those who saw it before.
 */
async function change(subs: Subscriber[], marker: Subscriber, make: () => Promise<{ id: string; deleted?: boolean }>, sawBefore?: Set<Subscriber>): Promise<void> {
  const { id, deleted } = await make();
  const event = await marker.stream.next();
  expect(event.data.id).toBe(id);
  for (const s of subs) {
    const receives = deleted ? sawBefore!.has(s) : await listed(s, id);
    if (receives) s.expected.push(event.data.eventId);
  }
}

/** Those whose unfiltered LIST (but `ids`) shows the record: who must receive its deletion. */
async function seeing(subs: Subscriber[], id: string): Promise<Set<Subscriber>> {
  const out = new Set<Subscriber>();
  for (const s of subs) {
    const ids = /(?:^|&)(ids=[^&]*)/.exec(s.query)?.[1];
    const res = await t.json('GET', `/api/v1/${s.slug}/${id}`, undefined, as(s.user));
    const inIds = !ids || decodeURIComponent(ids.slice(4)).toLowerCase().split(',').includes(id);
    if (res.status === 200 && inIds) out.add(s);
  }
  return out;
}

describe('filters the database refuses', () => {
  it('are refused when the subscription opens (400), as LIST refuses them, not at every change', async () => {
    for (const query of ['estimatedHours[gt]=1.7976931348623157e308', where({ estimatedHours: { lte: -1.7976931348623157e308 } })]) {
      const listed = await t.json('GET', `/api/v1/tasks?${query}`, undefined, as(alice));
      expect(listed.status, query).toBe(400);
      const refused = await openEventStream(`${t.origin}/api/v1/tasks/events?${query}`, as(alice));
      open.push(refused);
      expect(refused.status, query).toBe(400);
      expect(refused.refusal).toMatchObject({ success: false, code: listed.body.code, error: listed.body.error });
    }
  });
});

describe('many filters, one read', () => {
  it('customers: each subscriber receives exactly what its LIST with the same filter shows', async () => {
    const before = [await write(alice, 'POST', '/api/v1/customers', { name: 'Old one', account: 1001, office: 'Bilbao' }), await write(alice, 'POST', '/api/v1/customers', { name: 'Old two', account: 1002, office: 'Bilbao' })];
    const marker = await subscriber(alice, 'customers', '');
    const eveMarker = await subscriber(eve, 'customers', '');
    const subs = [
      await subscriber(alice, 'customers', 'office=Madrid'),
      await subscriber(alice, 'customers', 'office[in]=Madrid,Lisboa'),
      await subscriber(alice, 'customers', 'account[gte]=100&account[lt]=200'),
      await subscriber(alice, 'customers', where({ office: { contains: 'a%_' } })),
      await subscriber(alice, 'customers', where({ salesRep: { startsWith: 'An' } })),
      await subscriber(alice, 'customers', where({ visitDays: { has: 'lun' } })),
      await subscriber(alice, 'customers', where({ contactDays: { isEmpty: false } })),
      await subscriber(alice, 'customers', where({ NOT: { salesRep: { eq: 'Ana' } } })),
      await subscriber(alice, 'customers', where({ salesRep: { ne: 'Ana' } })),
      await subscriber(alice, 'customers', where({ OR: [{ office: { eq: 'Porto' } }, { account: { lt: 10 } }] })),
      await subscriber(alice, 'customers', where({ AND: [{ account: { notIn: [5, 150] } }, { NOT: { office: { endsWith: 'sa' } } }] })),
      await subscriber(alice, 'customers', `ids=${before[0]!.id},${before[1]!.id.toUpperCase()}`),
      // Read with SQL: case-insensitive text, search.
      await subscriber(alice, 'customers', where({ office: { eq: 'madrid', mode: 'INSENSITIVE' } })),
      await subscriber(alice, 'customers', 'search=acme'),
      await subscriber(bob, 'customers', 'office=Madrid'),
      await subscriber(bob, 'customers', where({ account: { gt: 100 } })),
      await subscriber(eve, 'customers', where({ account: { gt: 0 } })),
    ];
    const all = [...subs, marker, eveMarker];
    const create = (u: SignedUpUser, body: Row) => () => write(u, 'POST', '/api/v1/customers', { name: 'Customer', ...body });
    const update = (u: SignedUpUser, id: string, body: Row) => async () => ({ id: (await write(u, 'PATCH', `/api/v1/customers/${id}`, body)).id as string });
    const remove = (u: SignedUpUser, id: string) => async () => (await write(u, 'DELETE', `/api/v1/customers/${id}`), { id, deleted: true });

    // Changes, each delivered before the next is made.
    const ids: Record<string, string> = {};
    const track = (name: string, make: () => Promise<Row>) => async () => {
      const made = await make();
      ids[name] ??= made.id;
      return { id: made.id as string };
    };
    await change(all, marker, track('a', create(alice, { name: 'A', account: 150, office: 'Madrid', salesRep: 'Ana', visitDays: ['lun'] })));
    await change(all, marker, update(alice, ids.a!, { phone: '1' }));
    await change(all, marker, track('b', create(alice, { name: 'Acme Lisboa', account: 5, office: 'Lisboa' })));
    await change(all, marker, track('c', create(alice, { account: 300, office: 'Ca%_sa', salesRep: 'Andrés', visitDays: ['mar'], contactDays: ['lun'] })));
    await change(all, marker, track('d', create(alice, { name: 'ACME', account: 120, office: 'Caxxsa' })));
    await change(all, marker, update(alice, ids.a!, { office: 'MADRID' }));
    await change(all, marker, update(alice, ids.b!, { salesRep: 'Ana' }));
    await change(all, marker, update(alice, ids.d!, { account: 250 }));
    await change(all, marker, track('e', create(bob, { account: 7, office: 'Porto' })));
    await change(all, marker, update(bob, ids.c!, { office: 'Madrid', salesRep: null }));
    await change(all, marker, update(alice, before[1]!.id, { office: 'Madrid' }));
    await change(all, eveMarker, track('x', create(eve, { account: 150, office: 'Madrid' })));
    await change(all, marker, track('f', create(alice, { name: 'acme too', account: 199, office: 'madrid', salesRep: 'Bob', visitDays: ['lun', 'vie'] })));
    for (const name of ['b', 'f']) await change(all, marker, remove(alice, ids[name]!), await seeing(all, ids[name]!));
    await change(all, marker, remove(alice, before[1]!.id), await seeing(all, before[1]!.id));

    // Every subscriber got exactly its share, in order.
    for (const s of all) {
      const got = (await s.stream.drain(300)).map((e) => e.data.eventId);
      if (s === marker || s === eveMarker) continue;
      expect(got, `${s.user === alice ? 'alice' : s.user === bob ? 'bob' : 'eve'} ${decodeURIComponent(s.query)}`).toEqual(s.expected);
    }
    // The filters did pick: some received little, some much, eve nothing of alice's team.
    const counts = subs.map((s) => s.expected.length);
    expect(Math.min(...counts)).toBeLessThan(Math.max(...counts));
    expect(subs.at(-1)!.expected).toHaveLength(1);
  }, 180_000);

  it('tasks: a teammate with the same filters never receives the creator’s private records', async () => {
    const aliceAll = await subscriber(alice, 'tasks', '');
    const bobAll = await subscriber(bob, 'tasks', '');
    const subs = [
      await subscriber(alice, 'tasks', where({ status: { eq: 'TODO' } })),
      await subscriber(alice, 'tasks', where({ estimatedHours: { gte: 2 } })),
      await subscriber(bob, 'tasks', where({ status: { eq: 'TODO' } })),
      await subscriber(bob, 'tasks', where({ estimatedHours: { gte: 2 } })),
    ];
    const all = [...subs, aliceAll, bobAll];
    const mine = await write(alice, 'POST', '/api/v1/tasks', { title: 'Alice’s', estimatedHours: 3 });
    const mineEvent = await aliceAll.stream.next();
    for (const s of all) if (s.user === alice && (await listed(s, mine.id))) s.expected.push(mineEvent.data.eventId);
    const bobs = await write(bob, 'POST', '/api/v1/tasks', { title: 'Bob’s', estimatedHours: 1 });
    const bobsEvent = await bobAll.stream.next();
    for (const s of all) if (s.user === bob && (await listed(s, bobs.id))) s.expected.push(bobsEvent.data.eventId);
    await write(alice, 'DELETE', `/api/v1/tasks/${mine.id}`);
    const deleted = await aliceAll.stream.next();
    for (const s of all) if (s.user === alice) s.expected.push(deleted.data.eventId);
    for (const s of subs) {
      const got = await s.stream.drain(300);
      expect(got.map((e) => e.data.eventId)).toEqual(s.expected);
      if (s.user === bob) expect(JSON.stringify(got)).not.toContain(mine.id);
    }
    expect(subs.map((s) => s.expected.length)).toEqual([2, 2, 1, 0]);
  });
});
