// webhook:send through the queue (GET /api/v1/cron/process) to a local receiver: Standard Webhooks
// signatures verified with the `standardwebhooks` package, subscriptions, the delivery log, partial
// failure and the retry that sends only to endpoints not yet delivered to (with the queue's backoff on
// a controllable clock), timeouts, redirects, network errors, and the SSRF guard at delivery time.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { testClock } from '../../testkit/clock.js';
import { cronSecret, queueScope, runCron, storedAction } from '../../testkit/scheduled-actions.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { createEndpoint, startReceiver, type Receiver } from '../../testkit/webhooks.js';
import { scheduleAction } from '../scheduled-actions/service.js';

// The receiver checks signatures against the real time, so the clock starts now and moves by minutes.
const clock = testClock();
const retryBaseMs = 60_000;
let t: TestApp;
let receiver: Receiver;
let owner: SignedUpUser;

beforeAll(async () => {
  t = await createTestApp({ CRON_SECRET: cronSecret, WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_TIMEOUT_MS: '500', SCHEDULED_ACTIONS_RETRY_BASE_SECONDS: String(retryBaseMs / 1000) }, undefined, { now: clock.now });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(async () => {
  clock.set(new Date());
  owner = await signUp(t); // a team of its own per test
});

const event = { eventType: 'tasks:created', entityType: 'tasks', entityId: 'task-1', data: { title: 'Ship it', done: false } };
const send = (payload = event, options: { maxRetries?: number } = {}) => scheduleAction(queueScope(t, clock), 'webhook:send', payload, { teamId: owner.activeTeamId, ...options });
const cron = async () => (await runCron(t)).body as { processed: number; succeeded: number; failed: number; errors: { error: string }[] };
const deliveries = async (endpointId: string, query = '') => {
  const res = await t.json('GET', `/api/v1/webhooks/${endpointId}/deliveries${query}`, undefined, { cookie: owner.cookie });
  expect(res.status).toBe(200);
  return res.body as { data: any[]; pagination: { total: number } };
};
const headersOf = (r: { headers: Record<string, unknown> }) => r.headers as Record<string, string>;

describe('delivery', () => {
  it('signs each request per Standard Webhooks for every active endpoint subscribed to the event, and logs it', async () => {
    const exact = await createEndpoint(t, owner, { url: receiver.url('/1/exact'), eventTypes: ['tasks:created'] });
    const entity = await createEndpoint(t, owner, { url: receiver.url('/1/entity'), eventTypes: ['tasks:*'] });
    await createEndpoint(t, owner, { url: receiver.url('/1/inactive'), eventTypes: ['*'], active: false });
    await createEndpoint(t, owner, { url: receiver.url('/1/other'), eventTypes: ['posts:*', 'tasks:deleted'] });
    const id = await send();

    expect(await cron()).toEqual({ processed: 1, succeeded: 1, failed: 0, errors: [] });
    expect([receiver.on('/1/exact').length, receiver.on('/1/entity').length, receiver.on('/1/inactive').length, receiver.on('/1/other').length]).toEqual([1, 1, 0, 0]);

    const [request] = receiver.on('/1/exact');
    const headers = headersOf(request!);
    expect(headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': `msg_${id}`, 'webhook-timestamp': String(Math.floor(clock.now().getTime() / 1000)) });
    const verified = new Webhook(exact.secret).verify(request!.body, headers);
    expect(verified).toEqual({ type: 'tasks:created', timestamp: clock.now().toISOString(), data: { entityType: 'tasks', entityId: 'task-1', record: event.data } });
    // Each endpoint has its own secret: another's does not verify.
    expect(() => new Webhook(entity.secret).verify(request!.body, headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(exact.secret).verify(request!.body.replace('Ship it', 'Ship that'), headers)).toThrow();
    expect(new Webhook(entity.secret).verify(receiver.on('/1/entity')[0]!.body, headersOf(receiver.on('/1/entity')[0]!))).toEqual(verified);

    expect(await storedAction(t, id)).toMatchObject({ status: 'completed', result: { eventType: 'tasks:created', messageId: `msg_${id}`, delivered: expect.arrayContaining([{ endpointId: exact.id, statusCode: 200 }, { endpointId: entity.id, statusCode: 200 }]), alreadyDelivered: [] } });
    const log = await deliveries(exact.id);
    expect(log.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(log.data).toEqual([{
      id: expect.any(String), endpointId: exact.id, actionId: id, messageId: `msg_${id}`, eventType: 'tasks:created', attempt: 1, status: 'succeeded',
      statusCode: 200, durationMs: expect.any(Number), error: null, responseBody: 'ok', createdAt: clock.now().toISOString(),
    }]);
  });

  it('fails the attempt when one endpoint fails; the retry, after the queue’s backoff, goes only to the endpoints not yet delivered to', async () => {
    const good = await createEndpoint(t, owner, { url: receiver.url('/2/good') });
    const flaky = await createEndpoint(t, owner, { url: receiver.url('/2/flaky') });
    receiver.script('/2/flaky', { status: 500, body: 'database is down'.padEnd(3000, '!') }, { status: 204 });
    const id = await send();
    const started = clock.now();

    const first = await cron();
    expect(first).toMatchObject({ processed: 1, succeeded: 0, failed: 1 });
    expect(first.errors[0]!.error).toBe(`Delivery failed for 1 of 2 endpoint(s): ${flaky.id}: HTTP 500`);
    expect(await storedAction(t, id)).toMatchObject({ status: 'pending', attempts: 1, scheduledAt: new Date(started.getTime() + retryBaseMs) });
    const failed = (await deliveries(flaky.id)).data[0];
    expect(failed).toMatchObject({ attempt: 1, status: 'failed', statusCode: 500, error: 'HTTP 500' });
    expect(failed.responseBody).toHaveLength(1024);
    expect(failed.responseBody).toMatch(/^database is down!!!/);

    clock.advance(retryBaseMs - 1);
    expect(await cron()).toMatchObject({ processed: 0 });
    clock.advance(1);
    expect(await cron()).toMatchObject({ processed: 1, succeeded: 1 });
    expect(receiver.on('/2/good')).toHaveLength(1);
    const sent = receiver.on('/2/flaky');
    expect(sent).toHaveLength(2);
    // The same message each time (receivers deduplicate on webhook-id), signed at each attempt's time.
    expect(sent.map((r) => headersOf(r)['webhook-id'])).toEqual([`msg_${id}`, `msg_${id}`]);
    expect(new Webhook(flaky.secret).verify(sent[1]!.body, headersOf(sent[1]!))).toMatchObject({ type: 'tasks:created', timestamp: clock.now().toISOString() });
    expect(await storedAction(t, id)).toMatchObject({ status: 'completed', attempts: 2, result: { delivered: [{ endpointId: flaky.id, statusCode: 204 }], alreadyDelivered: [good.id] } });

    const log = await deliveries(flaky.id);
    expect(log.data.map((d) => [d.attempt, d.status, d.statusCode])).toEqual([[2, 'succeeded', 204], [1, 'failed', 500]]);
    expect((await deliveries(flaky.id, '?status=failed&limit=1')).data.map((d) => d.attempt)).toEqual([1]);
    expect((await deliveries(good.id)).pagination.total).toBe(1);
  });

  it('fails on timeouts, redirects (never followed) and network errors, with the reason logged; after maxRetries the action is failed', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    receiver.script('/3/hang', 'hang');
    receiver.script('/3/redirect', { status: 302, headers: { location: receiver.url('/3/target') } });
    const hang = await createEndpoint(t, owner, { url: receiver.url('/3/hang') });
    const redirect = await createEndpoint(t, owner, { url: receiver.url('/3/redirect') });
    const refused = await createEndpoint(t, owner, { url: `http://127.0.0.1:${closedPort}/nobody` });
    const id = await send(event, { maxRetries: 1 });

    expect(await cron()).toMatchObject({ processed: 1, failed: 1 });
    expect(await storedAction(t, id)).toMatchObject({ status: 'failed', attempts: 1, errorMessage: expect.stringMatching(/^Delivery failed for 3 of 3 endpoint\(s\)/) });
    expect((await deliveries(hang.id)).data[0]).toMatchObject({ status: 'failed', statusCode: null, error: 'Timed out after 500ms', responseBody: null });
    expect((await deliveries(redirect.id)).data[0]).toMatchObject({ status: 'failed', statusCode: 302, error: 'HTTP 302 (redirects are not followed)' });
    expect(receiver.on('/3/target')).toHaveLength(0);
    expect((await deliveries(refused.id)).data[0]).toMatchObject({ status: 'failed', statusCode: null, error: expect.stringMatching(/^ECONNREFUSED: /) });
  });

  it('stops deliveries in flight when the action’s handler timeout passes', async () => {
    const hurried = await createTestApp({ CRON_SECRET: cronSecret, WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_TIMEOUT_MS: '10000', SCHEDULED_ACTIONS_TIMEOUTS: 'webhook:send=300' }, t, { now: clock.now });
    try {
      receiver.script('/4/hang', 'hang');
      const hang = await createEndpoint(t, owner, { url: receiver.url('/4/hang') });
      const id = await send(event, { maxRetries: 1 });
      expect((await runCron(hurried)).body).toMatchObject({ processed: 1, failed: 1, errors: [{ error: 'Handler timeout after 300ms' }] });
      expect(await storedAction(t, id)).toMatchObject({ status: 'failed', errorMessage: 'Handler timeout after 300ms' });
      let log: any[] = [];
      for (let i = 0; i < 50 && !log.length; i++, await new Promise((r) => setTimeout(r, 20))) log = (await deliveries(hang.id)).data;
      expect(log[0]).toMatchObject({ status: 'failed', error: 'Aborted: the action’s handler timeout passed' });
    } finally {
      await hurried.close();
    }
  });
});

describe('the SSRF guard at delivery', () => {
  it('refuses, without sending anything, destinations that became refused: a loopback address, and a name that resolves to one', async () => {
    const strict = await createTestApp({ CRON_SECRET: cronSecret }, t, { now: clock.now });
    try {
      const literal = await createEndpoint(t, owner, { url: receiver.url('/5/literal') });
      const named = await createEndpoint(t, owner, { url: receiver.url('/5/named').replace('127.0.0.1', loopbackName) });
      const id = await send(event, { maxRetries: 1 });
      expect((await runCron(strict)).body).toMatchObject({ processed: 1, failed: 1 });
      expect(receiver.on('/5/literal')).toHaveLength(0);
      expect(receiver.on('/5/named')).toHaveLength(0);
      expect((await deliveries(literal.id)).data[0]).toMatchObject({ status: 'failed', statusCode: null, error: 'Refused: 127.0.0.1 is a loopback address' });
      expect((await deliveries(named.id)).data[0].error).toMatch(/^Refused: .*(loopback)/);
      expect((await storedAction(t, id)).status).toBe('failed');

      // The same endpoints are delivered to where private addresses are allowed (this suite's app).
      const again = await send({ ...event, entityId: 'task-2' });
      expect(await cron()).toMatchObject({ processed: 1, succeeded: 1 });
      expect(receiver.on('/5/named')).toHaveLength(1);
      expect((await storedAction(t, again)).status).toBe('completed');
    } finally {
      await strict.close();
    }
  });
});

/** A name /etc/hosts maps to loopback besides localhost (the machine's own name on most hosts). */
const loopbackName = await (async () => {
  const { lookup } = await import('node:dns/promises');
  const { hostname } = await import('node:os');
  for (const name of [hostname(), 'vm', 'runsc', 'localhost']) {
    const found = await lookup(name, { all: true, family: 4 }).catch(() => []);
    if (found.length && found.every((a) => a.address.startsWith('127.'))) return name;
  }
  return 'localhost';
})();
