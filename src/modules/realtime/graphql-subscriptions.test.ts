// GraphQL subscriptions to entity changes (`taskEvents`, `projectEvents`) over both transports, with
// real clients: GraphQL over SSE (yoga's protocol, POST /graphql with Accept: text/event-stream) and
// graphql-ws over WebSocket (the graphql-ws client on `ws`). Each transport receives creates, updates
// and deletes with the typed record and its relations (read per event, after the opening request's
// transaction is over); another user's private record never arrives; a key without tasks:read is
// refused; revoking the key ends an open subscription with a clear error; `after` replays what was
// missed; a client that leaves releases its subscription. Then what only the WebSocket has: refused
// connections, malformed frames, queries and mutations over it. On PGlite and, with TEST_DATABASE_URL,
// PostgreSQL.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { subscribeOverSse, subscribeOverWs, wsClient, type Result, type Subscription } from '../../testkit/graphql-subscriptions.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
/** Owner of a team; `mate` a member of it (tasks are private to their creator); `stranger` of another team. */
let owner: SignedUpUser;
let mate: SignedUpUser;
let stranger: SignedUpUser;
const maxSubscriptions = 3;
/** What closes after each test: subscriptions and WebSocket clients. */
const opened: Array<() => unknown> = [];

beforeAll(async () => {
  t = await createTestApp({ REALTIME_RECHECK_MS: '200', REALTIME_MAX_SUBSCRIPTIONS: String(maxSubscriptions) });
  owner = await signUp(t);
  mate = await signUp(t);
  stranger = await signUp(t);
  await joinTeam(t, owner, owner.activeTeamId, mate);
});
afterAll(async () => {
  for (const close of opened.splice(0)) await close();
  await t?.close();
});

type Credentials = { cookie: string } | { authorization: string };

/** Opens a subscription over `transport` with the caller's credentials (cookie, or a key as a header / connection param). */
async function open(transport: 'sse' | 'ws', query: string, variables: Row, as: Credentials): Promise<Subscription> {
  if (transport === 'sse') {
    const sub = await subscribeOverSse(t.origin, query, variables, as);
    opened.push(sub.close);
    return sub;
  }
  const client = 'cookie' in as ? wsClient(t.origin, { headers: as }) : wsClient(t.origin, { connectionParams: as });
  opened.push(() => client.dispose());
  const sub = subscribeOverWs(client, query, variables);
  opened.push(sub.close);
  return sub;
}

async function createTask(as: Credentials, title: string, body: Row = {}): Promise<Row> {
  const res = await t.json('POST', '/api/v1/tasks', { title, ...body }, as);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/**
 * Waits until `sub` is live: the subscription opens asynchronously (a WebSocket says nothing when it
 * does), so `poke` (a change the subscriber sees) is repeated until an event arrives; the events that
 * poking caused are then drained. Returns the last of them.
 */
async function live(sub: Subscription, poke: () => Promise<unknown>): Promise<Result> {
  for (let attempt = 0; attempt < 40; attempt++) {
    await poke();
    try {
      const first = await sub.next(500);
      return (await sub.drain(500)).at(-1) ?? first;
    } catch (error) {
      if ((error as Error).message === 'the subscription ended') throw error;
    }
  }
  throw new Error('the subscription never received an event');
}

const taskEvents = 'subscription($where: TaskWhere, $after: ID) { taskEvents(where: $where, after: $after) { eventId type id occurredAt record { id title status } } }';

describe.each(['sse', 'ws'] as const)('over %s', (transport) => {
  it('receives the creates, updates and deletes of tasks, with the typed record (null for a deletion)', async () => {
    const sub = await open(transport, taskEvents, {}, { cookie: owner.cookie });
    await live(sub, () => createTask({ cookie: owner.cookie }, 'probe'));

    const task = await createTask({ cookie: owner.cookie }, 'Write the report');
    const created = (await sub.next()).data.taskEvents;
    expect(created).toMatchObject({ type: 'CREATED', id: task.id, record: { id: task.id, title: 'Write the report', status: 'TODO' } });
    expect(created.eventId).toMatch(/^[0-9]+$/);
    expect(new Date(created.occurredAt).getTime()).not.toBeNaN();

    expect((await t.json('PATCH', `/api/v1/tasks/${task.id}`, { status: 'in-progress' }, { cookie: owner.cookie })).status).toBe(200);
    const updated = (await sub.next()).data.taskEvents;
    expect(updated).toMatchObject({ type: 'UPDATED', id: task.id, record: { status: 'IN_PROGRESS' } });
    expect(BigInt(updated.eventId)).toBeGreaterThan(BigInt(created.eventId));

    expect((await t.json('DELETE', `/api/v1/tasks/${task.id}`, undefined, { cookie: owner.cookie })).status).toBe(200);
    expect((await sub.next()).data.taskEvents).toMatchObject({ type: 'DELETED', id: task.id, record: null });
    sub.close();
  });

  it('filters with the where LIST takes', async () => {
    const sub = await open(transport, taskEvents, { where: { status: { eq: 'DONE' } } }, { cookie: owner.cookie });
    await live(sub, () => createTask({ cookie: owner.cookie }, 'probe', { status: 'done' }));
    await createTask({ cookie: owner.cookie }, 'Not done');
    const done = await createTask({ cookie: owner.cookie }, 'Done', { status: 'done' });
    expect((await sub.next()).data.taskEvents).toMatchObject({ type: 'CREATED', id: done.id });
    sub.close();
  });

  it('reads the record’s relations per event, after the request that opened it is over', async () => {
    const sub = await open(transport, 'subscription { projectEvents { type record { name customer { name } } } }', {}, { cookie: owner.cookie });
    const customer = await t.json('POST', '/api/v1/customers', { name: `Acme ${transport}`, account: transport === 'sse' ? 71 : 72, office: 'Madrid' }, { cookie: owner.cookie });
    expect(customer.status).toBe(201);
    let n = 0;
    const last = await live(sub, () => t.json('POST', '/api/v1/projects', { name: `Project ${n++}`, customerId: customer.body.data.id }, { cookie: owner.cookie }));
    expect(last.errors).toBeUndefined();
    expect(last.data.projectEvents).toMatchObject({ type: 'CREATED', record: { customer: { name: `Acme ${transport}` } } });
    sub.close();
  });

  it('never sends another user’s private record, not even its id: a teammate’s task, another team’s', async () => {
    const sub = await open(transport, taskEvents, {}, { cookie: mate.cookie });
    await live(sub, () => createTask({ cookie: mate.cookie }, 'mine'));
    const hidden = await createTask({ cookie: owner.cookie }, 'Private to the owner');
    await createTask({ cookie: stranger.cookie }, 'Another team');
    // Committed after the others: had they been sent, they would have come first.
    const mine = await createTask({ cookie: mate.cookie }, 'Mine again');
    const received = [await sub.next(), ...(await sub.drain(500))];
    expect(received.map((r) => r.data.taskEvents.id)).toEqual([mine.id]);
    expect(JSON.stringify(received)).not.toContain(hidden.id);
    sub.close();
  });

  it('refuses a key without tasks:read when it subscribes (FORBIDDEN), and anonymous callers (tasks are not public)', async () => {
    const key = await createKey(t, owner, { name: `no read ${transport}`, scopes: ['teams:read'] });
    const sub = await open(transport, taskEvents, {}, bearer(key.key));
    const refused = await sub.next();
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
    expect(refused.errors?.[0]?.message).toContain('tasks:read');
    expect(await sub.ended).toBe('complete');

    const anonymous = transport === 'sse' ? await subscribeOverSse(t.origin, taskEvents) : subscribeOverWs(wsClient(t.origin), taskEvents);
    opened.push(anonymous.close);
    expect((await anonymous.next()).errors?.[0]?.extensions).toMatchObject({ code: 'AUTHENTICATION_FAILED' });
  });

  it('ends an open subscription within seconds when its key is revoked, saying why', async () => {
    const key = await createKey(t, owner, { name: `revoked ${transport}`, scopes: ['tasks:read', 'tasks:write'] });
    const sub = await open(transport, taskEvents, {}, bearer(key.key));
    await live(sub, () => createTask(bearer(key.key), 'probe'));
    const revokedAt = Date.now();
    expect((await t.json('DELETE', `/api/v1/api-keys/${key.id}`, undefined, { cookie: owner.cookie })).status).toBe(200);
    const last = await sub.next(5_000);
    expect(last.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(last.errors?.[0]?.message).toMatch(/revoked|no longer valid/);
    expect(await sub.ended).toBe('complete');
    expect(Date.now() - revokedAt).toBeLessThan(3_000);
  });

  it('replays what came after `after`, in order, then goes on live', async () => {
    const first = await open(transport, taskEvents, {}, { cookie: owner.cookie });
    const seen = await live(first, () => createTask({ cookie: owner.cookie }, 'probe'));
    first.close();
    const missedA = await createTask({ cookie: owner.cookie }, 'Missed A');
    const missedB = await createTask({ cookie: owner.cookie }, 'Missed B');
    const again = await open(transport, taskEvents, { after: seen.data.taskEvents.eventId }, { cookie: owner.cookie });
    const replayed = [await again.next(), await again.next()].map((r) => r.data.taskEvents);
    expect(replayed.map((c) => [c.type, c.id])).toEqual([
      ['CREATED', missedA.id],
      ['CREATED', missedB.id],
    ]);
    const liveTask = await createTask({ cookie: owner.cookie }, 'Live');
    expect((await again.next()).data.taskEvents).toMatchObject({ type: 'CREATED', id: liveTask.id });
    again.close();
  });

  it('releases a subscription its client leaves (REALTIME_MAX_SUBSCRIPTIONS would refuse leaked ones)', async () => {
    const user = await signUp(t);
    for (let round = 0; round < 3; round++) {
      // Each round opens the most one user may hold; the previous round's must have been released.
      const subs: Subscription[] = [];
      for (let i = 0; i < maxSubscriptions; i++) {
        let sub: Subscription | null = null;
        for (let attempt = 0; attempt < 50 && !sub; attempt++) {
          const candidate = await open(transport, taskEvents, {}, { cookie: user.cookie });
          const refused = await candidate.next(300).then((r) => r.errors?.[0]?.extensions?.code, () => null);
          if (refused === 'RATE_LIMITED') await new Promise((resolve) => setTimeout(resolve, 100));
          else sub = candidate;
        }
        expect(sub, `round ${round}: subscription ${i} was refused for long`).not.toBeNull();
        subs.push(sub!);
      }
      const ended = await Promise.race([subs[0]!.ended, new Promise((resolve) => setTimeout(resolve, 50, 'open'))]);
      expect(ended, `round ${round}`).toBe('open');
      await live(subs[0]!, () => createTask({ cookie: user.cookie }, `round ${round}`));
      for (const sub of subs) sub.close();
    }
  });
});

describe('over WebSocket only', () => {
  /** A raw socket speaking graphql-transport-ws, and the code and reason it was closed with. */
  function rawSocket(headers: Record<string, string> = {}) {
    const socket = new WebSocket(`${t.origin.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    const messages: Row[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    socket.on('error', () => {});
    const opened = new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
      socket.once('error', reject);
    });
    return { socket, closed, messages, opened };
  }

  it('runs queries and mutations too, in the same pipeline (a mutation’s changes are committed)', async () => {
    const client = wsClient(t.origin, { headers: { cookie: owner.cookie } });
    opened.push(() => client.dispose());
    const me = await subscribeOverWs(client, '{ me { user { id } } }').next();
    expect(me.errors).toBeUndefined();
    expect(me.data.me.user.id).toBe(owner.id);
    const made = await subscribeOverWs(client, 'mutation { createTask(input: { title: "Over a socket" }) { id title } }').next();
    expect(made.errors).toBeUndefined();
    const read = await t.json('GET', `/api/v1/tasks/${made.data.createTask.id}`, undefined, { cookie: owner.cookie });
    expect(read.body.data.title).toBe('Over a socket');
    const invalid = subscribeOverWs(client, '{ nope }');
    expect(await invalid.ended).toMatchObject({ error: [{ message: expect.stringContaining('nope'), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
  });

  it('refuses unknown credentials at connection_init (4401), and a cross-site page riding on the cookie at the upgrade (403)', async () => {
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      const client = wsClient(t.origin, { connectionParams: { authorization: 'Bearer sk_live_nope' }, onClosed: (event: any) => resolve({ code: event.code, reason: event.reason }) });
      opened.push(() => client.dispose());
      subscribeOverWs(client, taskEvents);
    });
    expect(await closed).toMatchObject({ code: 4401 });

    const crossSite = rawSocket({ cookie: owner.cookie, origin: 'https://evil.example' });
    await expect(crossSite.opened).rejects.toThrow('refused: 403');
    // The same page without a cookie is no forgery: it opens (and is anonymous).
    const anonymous = rawSocket({ origin: 'https://evil.example' });
    await anonymous.opened;
    anonymous.socket.close();
  });

  it('closes what the protocol forbids with its codes, not 4500: a message only a server sends (4400), a duplicate id too long to quote in 123 bytes (4409) (found by the fuzzer)', async () => {
    /** A socket past connection_init: its ack received. */
    const acknowledged = async () => {
      const raw = rawSocket({ cookie: owner.cookie });
      await raw.opened;
      raw.socket.send(JSON.stringify({ type: 'connection_init' }));
      await vi.waitFor(() => expect(raw.messages).toContainEqual({ type: 'connection_ack' }), { timeout: 10_000 });
      return raw;
    };
    for (const message of [{ type: 'connection_ack' }, { type: 'next', id: '1', payload: { data: null } }, { type: 'error', id: '1', payload: [{ message: 'x' }] }]) {
      const raw = await acknowledged();
      raw.socket.send(JSON.stringify(message));
      expect(await raw.closed).toEqual({ code: 4400, reason: `Unexpected message of type ${message.type} received` });
    }

    // graphql-ws names the id in its reason: cut to 123 bytes between characters, not refused by ws (which made it a 4500).
    for (const id of ['x'.repeat(200), '😀'.repeat(70)]) {
      const raw = await acknowledged();
      raw.socket.send(JSON.stringify({ type: 'subscribe', id, payload: { query: taskEvents } }));
      raw.socket.send(JSON.stringify({ type: 'subscribe', id, payload: { query: taskEvents } }));
      const closed = await raw.closed;
      expect(closed.code).toBe(4409);
      expect(closed.reason).toMatch(/^Subscriber for .+…$/u);
      expect(Buffer.byteLength(closed.reason)).toBeLessThanOrEqual(123);
    }
  });

  it('survives malformed and oversized messages and vanished clients: that socket is closed, the server goes on', async () => {
    const raw = rawSocket({ cookie: owner.cookie });
    await raw.opened;
    raw.socket.send('{ this is not json');
    expect(await raw.closed).toMatchObject({ code: 4400 });

    const typeless = rawSocket();
    await typeless.opened;
    typeless.socket.send(JSON.stringify({ type: 'connection_init' }));
    typeless.socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: 42 } }));
    expect((await typeless.closed).code).toBe(4400);

    // A message over BODY_LIMIT_BYTES: ws refuses it (1009) and reports an error, which ends that socket only.
    const huge = rawSocket({ cookie: owner.cookie });
    await huge.opened;
    huge.socket.send('x'.repeat(t.config.bodyLimitBytes + 1));
    expect((await huge.closed).code).toBe(1009);

    // A subscription closed mid-stream by a vanished client, then a fresh client: still served.
    const gone = rawSocket({ cookie: owner.cookie });
    await gone.opened;
    gone.socket.send(JSON.stringify({ type: 'connection_init' }));
    gone.socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: taskEvents } }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    gone.socket.terminate();
    await createTask({ cookie: owner.cookie }, 'after a vanished client');

    const client = wsClient(t.origin, { headers: { cookie: owner.cookie } });
    opened.push(() => client.dispose());
    expect((await subscribeOverWs(client, '{ me { user { id } } }').next()).data.me.user.id).toBe(owner.id);
  });
});
