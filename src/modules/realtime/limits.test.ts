// Bounded resources of REST event streams: at most REALTIME_MAX_SUBSCRIPTIONS open per API key, and
// per user with its keys (429 past it, in the error envelope; more in holders.test.ts); a client that
// goes away frees its subscription (a new one opens); a client that stops reading is ended as a slow
// consumer (END SLOW_CONSUMER) once more than REALTIME_BUFFER_EVENTS changes wait for it, instead of
// the server buffering without bound.
// Two instances on one database, each with its own limits (a hub per instance). On PGlite and, with
// TEST_DATABASE_URL, PostgreSQL.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { openEventStream, type SseClient } from '../../testkit/event-stream.js';

type Opened = SseClient & { refusal: any };
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let two: TestApp; // REALTIME_MAX_SUBSCRIPTIONS=2
let one: TestApp; // REALTIME_MAX_SUBSCRIPTIONS=1, REALTIME_BUFFER_EVENTS=5, on the same database
const open: SseClient[] = [];
const sockets: Socket[] = [];
const as = (u: SignedUpUser) => ({ cookie: u.cookie });

async function subscribe(t: TestApp, path: string, headers: Record<string, string>): Promise<Opened> {
  const stream = await openEventStream(`${t.origin}${path}`, headers);
  open.push(stream);
  return stream;
}

/** Opens a subscription until it is no longer refused with 429 (the server frees a closed one when it notices), up to 10 s. */
async function reopened(t: TestApp, path: string, headers: Record<string, string>): Promise<Opened> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stream = await subscribe(t, path, headers);
    if (stream.status !== 429 || Date.now() > deadline) return stream;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  two = await createTestApp({ REALTIME_MAX_SUBSCRIPTIONS: '2', RATE_LIMIT_ENABLED: 'false' });
  one = await createTestApp({ REALTIME_MAX_SUBSCRIPTIONS: '1', REALTIME_BUFFER_EVENTS: '5', RATE_LIMIT_ENABLED: 'false' }, two);
});
afterAll(async () => {
  for (const stream of open) stream.close();
  for (const socket of sockets) socket.destroy();
  await one?.close();
  await two?.close();
});

describe('open subscriptions per holder', () => {
  it('refuses a third with 429 in the error envelope; other holders are counted apart', async () => {
    const user = await signUp(two);
    const first = await subscribe(two, '/api/v1/customers/events', as(user));
    const second = await subscribe(two, '/api/v1/tasks/events', as(user));
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await subscribe(two, '/api/v1/customers/events', as(user));
    expect(third.status).toBe(429);
    expect(third.refusal).toMatchObject({ success: false, code: 'RATE_LIMITED', error: expect.any(String) });

    // The user's API key counts against its user too (REALTIME_MAX_SUBSCRIPTIONS_PER_USER, by default the
    // same 2): refused while the sessions hold both places. Another user is counted apart.
    const key = await createKey(two, user, { scopes: ['customers:read'] });
    const keyed = await subscribe(two, '/api/v1/customers/events', bearer(key.key));
    expect(keyed.status).toBe(429);
    expect(keyed.refusal).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('one user') });
    const other = await signUp(two);
    expect((await subscribe(two, '/api/v1/customers/events', as(other))).status).toBe(200);

    // The two open ones still work.
    const created = await two.json('POST', '/api/v1/customers', { name: 'Limited', account: 1, office: 'Madrid' }, as(user));
    expect((await first.next()).data).toMatchObject({ type: 'CREATED', id: created.body.data.id });

    // Closing one frees its place.
    second.close();
    const again = await reopened(two, '/api/v1/tasks/events', as(user));
    expect(again.status).toBe(200);
  });

  it('closing the client frees the subscription: with a limit of 1, close and reopen, again and again', async () => {
    const user = await signUp(one);
    for (let round = 0; round < 3; round++) {
      const stream = await reopened(one, '/api/v1/customers/events', as(user));
      expect(stream.status, `round ${round}`).toBe(200);
      expect((await subscribe(one, '/api/v1/customers/events', as(user))).status).toBe(429);
      stream.close();
      await stream.closed;
    }
    // And the last one opened still receives.
    const last = await reopened(one, '/api/v1/customers/events', as(user));
    expect(last.status).toBe(200);
    const created = await one.json('POST', '/api/v1/customers', { name: 'Freed', account: 2, office: 'Madrid' }, as(user));
    expect((await last.next()).data).toMatchObject({ type: 'CREATED', id: created.body.data.id });
    last.close();
  });
});

describe('slow consumers', () => {
  it('ends a stream whose client stops reading (END SLOW_CONSUMER) instead of buffering without bound', async () => {
    const user = await signUp(one);
    // A big record (its metas, sent with every change of it: ~800 kB), so that a few changes fill any buffer.
    const metas = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`key${i}`, 'm'.repeat(10_000)]));
    const task = (await one.json('POST', '/api/v1/tasks', { title: 'Big', metas }, as(user))).body.data;
    expect(task.metas).toEqual(metas);
    // A client that sends its request, reads the answer's head, then reads nothing more: its socket is paused.
    const url = new URL(one.origin);
    const socket = connect(Number(url.port), url.hostname);
    sockets.push(socket);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const head = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
    socket.write(`GET /api/v1/tasks/events HTTP/1.1\r\nhost: localhost\r\naccept: text/event-stream\r\ncookie: ${user.cookie}\r\n\r\n`);
    const first = await head;
    socket.pause();
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    // Its subscription holds the user's only place (REALTIME_MAX_SUBSCRIPTIONS=1) while it is open.
    expect((await subscribe(one, '/api/v1/tasks/events', as(user))).status).toBe(429);

    // Changes of that record fill the socket's buffers, then more than 5 wait in the stream: it ends,
    // which frees the place. Bounded: 200 changes (160 MB) would be far beyond what a socket holds.
    let ended = false;
    for (let i = 0; i < 200 && !ended; i++) {
      const res = await one.json('PATCH', `/api/v1/tasks/${task.id}`, { description: `change ${i}` }, as(user));
      expect(res.status).toBe(200);
      const probe = await subscribe(one, '/api/v1/tasks/events', as(user));
      ended = probe.status === 200;
      probe.close();
    }
    expect(ended).toBe(true);

    // Reading now: what was already sent, then the END that says why.
    const text = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('end', () => socket.end());
      socket.resume();
    });
    expect(first + text).toMatch(/^HTTP\/1\.1 200/);
    const ends = [...text.matchAll(/data: (\{"type":"END".*\})\n/g)].map((m) => JSON.parse(m[1]!));
    expect(ends).toEqual([expect.objectContaining({ type: 'END', code: 'SLOW_CONSUMER' })]);
  }, 120_000);
});
