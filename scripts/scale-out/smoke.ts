// The smoke flows of scripts/scale-out/run.sh, through the reverse proxy only (SCALE_OUT_URL): three
// instances behind nginx must behave as one server. nginx names the instance that answered in
// `X-Upstream`, so each flow shows where its requests went and asserts what must hold across them:
// REST and GraphQL (a session and a key made on one instance work on the others), a key revocation
// (refused at once everywhere: evictions over Redis), the rate limit (one budget for the three: Redis),
// cron called on every instance at once (each due action runs exactly once: the claim in PostgreSQL),
// and realtime (a change written through one instance reaches a subscriber on another: LISTEN/NOTIFY).
// Prints one line per flow; exits 1 with the reason on the first failure.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { openEventStream } from '../../src/testkit/event-stream.js';

const base = required('SCALE_OUT_URL');
const instances = required('SCALE_OUT_INSTANCES').split(',');
const cronSecret = required('SCALE_OUT_CRON_SECRET');
const rateLimit = Number(required('SCALE_OUT_RATE_LIMIT'));

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run scripts/scale-out/run.sh)`);
  return value;
}

class FlowFailure extends Error {}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new FlowFailure(message);
}

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of every route's shape, checked field by field
  body: any;
  headers: Headers;
  /** The instance that answered (nginx's $upstream_addr; the last one tried). */
  upstream: string;
}

/** Requests per instance, for the flow being run. */
let spread = new Map<string, number>();

async function call(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Answer.body
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: kept as text
  }
  const upstream = (res.headers.get('x-upstream') ?? '').split(',').pop()!.trim();
  check(instances.includes(upstream), `${method} ${path}: no known instance in X-Upstream (${res.headers.get('x-upstream')}); is the request going through nginx?`);
  spread.set(upstream, (spread.get(upstream) ?? 0) + 1);
  return { status: res.status, body, headers: res.headers, upstream };
}

function expectStatus(answer: Answer, status: number, what: string): Answer {
  check(answer.status === status, `${what}: expected ${status}, got ${answer.status} from ${answer.upstream}: ${JSON.stringify(answer.body).slice(0, 400)}`);
  return answer;
}

/** Calls until every instance has answered (round robin: three calls, unless something else interleaves); returns the answers. */
async function onEveryInstance(request: () => Promise<Answer>, atLeastPerInstance = 1): Promise<Answer[]> {
  const answers: Answer[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < 30 * atLeastPerInstance && !instances.every((x) => (seen.get(x) ?? 0) >= atLeastPerInstance); i++) {
    const answer = await request();
    answers.push(answer);
    seen.set(answer.upstream, (seen.get(answer.upstream) ?? 0) + 1);
  }
  check(instances.every((x) => (seen.get(x) ?? 0) >= atLeastPerInstance), `requests did not reach every instance: ${JSON.stringify(Object.fromEntries(seen))}`);
  return answers;
}

function spreadText(): string {
  return instances.map((x) => `${x.split(':')[1]}:${spread.get(x) ?? 0}`).join(' ');
}

/** Whether `done()` holds within `ms` (checked every 20 ms). */
async function waitFor(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return done();
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const graphql = (query: string, variables: Record<string, unknown>, headers: Record<string, string>) => call('POST', '/graphql', { body: { query, variables }, headers });

interface Account {
  email: string;
  cookie: string;
  teamId: string;
}

async function signUp(): Promise<Account> {
  const email = `scale-out-${randomBytes(5).toString('hex')}@example.com`;
  const res = expectStatus(await call('POST', '/api/auth/signup', { body: { email, password: 'a long password', firstName: 'Scale', lastName: 'Out' } }), 201, 'signup');
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  check(cookie.startsWith('sid='), `signup set no session cookie (${res.headers.get('set-cookie')})`);
  return { email, cookie, teamId: res.body.data.activeTeamId };
}

async function mintKey(account: Account, name: string, scopes: string[]): Promise<{ id: string; key: string }> {
  const res = expectStatus(await call('POST', '/api/v1/api-keys', { body: { name, scopes }, headers: { cookie: account.cookie } }), 201, `create key ${name}`);
  return { id: res.body.data.id, key: res.body.data.key };
}

async function createTask(key: string, title: string): Promise<Answer> {
  return expectStatus(await call('POST', '/api/v1/tasks', { body: { title, status: 'todo' }, headers: bearer(key) }), 201, `create task ${title}`);
}

// 1. REST: a session and a key made on one instance work on every instance; a write on one is read on the others.
async function restFlow(account: Account): Promise<string> {
  await onEveryInstance(async () => expectStatus(await call('GET', '/api/auth/session', { headers: { cookie: account.cookie } }), 200, 'session'));
  const { key } = await mintKey(account, 'rest', ['tasks:*']);
  const created = await createTask(key, 'written through one instance');
  const id = created.body.data.id as string;
  const listed = expectStatus(await call('GET', '/api/v1/tasks?limit=100', { headers: bearer(key) }), 200, 'list tasks');
  check(listed.body.data.some((t: { id: string }) => t.id === id), `the task created on ${created.upstream} is missing from the list answered by ${listed.upstream}`);
  const updated = expectStatus(await call('PATCH', `/api/v1/tasks/${id}`, { body: { status: 'done' }, headers: bearer(key) }), 200, 'update task');
  for (const read of await onEveryInstance(() => call('GET', `/api/v1/tasks/${id}`, { headers: bearer(key) }))) {
    expectStatus(read, 200, 'read task');
    check(read.body.data.status === 'done', `${read.upstream} reads status ${read.body.data.status} after the update on ${updated.upstream}`);
  }
  const deleted = expectStatus(await call('DELETE', `/api/v1/tasks/${id}`, { headers: bearer(key) }), 200, 'delete task');
  for (const read of await onEveryInstance(() => call('GET', `/api/v1/tasks/${id}`, { headers: bearer(key) }))) {
    expectStatus(read, 404, `read of the task deleted on ${deleted.upstream}`);
  }
  return `session, key, create on ${created.upstream.split(':')[1]}, list, update, read on all 3, delete, 404 on all 3`;
}

// 2. GraphQL: a query and a mutation, with the session cookie and with a key.
async function graphqlFlow(account: Account): Promise<string> {
  const { key } = await mintKey(account, 'graphql', ['tasks:*']);
  const create = 'mutation ($title: String!) { createTask(input: { title: $title }) { id title } }';
  const list = 'query { me { user { email } } tasks(limit: 100) { total items { id title } } }';
  const listByKey = 'query { tasks(limit: 100) { total items { id title } } }';
  const ids: string[] = [];
  for (const [who, headers, query] of [['session', { cookie: account.cookie }, list], ['key', bearer(key), listByKey]] as const) {
    const made = expectStatus(await graphql(create, { title: `graphql by ${who}` }, headers), 200, `createTask (${who})`);
    check(!made.body.errors && made.body.data?.createTask?.id, `createTask (${who}) on ${made.upstream}: ${JSON.stringify(made.body).slice(0, 400)}`);
    ids.push(made.body.data.createTask.id);
    for (const read of await onEveryInstance(() => graphql(query, {}, headers))) {
      expectStatus(read, 200, `tasks query (${who})`);
      check(!read.body.errors, `tasks query (${who}) on ${read.upstream}: ${JSON.stringify(read.body.errors)}`);
      const seen = (read.body.data.tasks.items as { id: string }[]).map((t) => t.id);
      check(ids.every((id) => seen.includes(id)), `${read.upstream} does not list the tasks created through GraphQL`);
      if (who === 'session') check(read.body.data.me.user.email === account.email, `me on ${read.upstream} is ${JSON.stringify(read.body.data.me)}`);
    }
  }
  const update = 'mutation ($id: ID!) { updateTask(id: $id, input: { title: "renamed" }) { id title } }';
  const renamed = expectStatus(await graphql(update, { id: ids[0] }, bearer(key)), 200, 'updateTask (key)');
  check(renamed.body.data?.updateTask?.title === 'renamed', `updateTask: ${JSON.stringify(renamed.body).slice(0, 400)}`);
  return 'createTask + tasks/me on all 3 with the cookie, the same with a key, updateTask with the key';
}

// 3. Key revocation: cached on every instance, revoked through one, refused by all from the next request.
async function revocationFlow(account: Account): Promise<string> {
  const { id, key } = await mintKey(account, 'revoked', ['tasks:read']);
  await onEveryInstance(async () => expectStatus(await call('GET', '/api/v1/tasks?limit=1', { headers: bearer(key) }), 200, 'key before revocation'), 2);
  const started = performance.now();
  const revoked = expectStatus(await call('DELETE', `/api/v1/api-keys/${id}`, { headers: { cookie: account.cookie } }), 200, 'revoke key');
  const revokeMs = Math.round(performance.now() - started);
  const after = await onEveryInstance(() => call('GET', '/api/v1/tasks?limit=1', { headers: bearer(key) }), 2);
  const accepted = after.filter((a) => a.status !== 401);
  check(!accepted.length, `the revoked key was still accepted: ${accepted.map((a) => `${a.status} from ${a.upstream}`).join(', ')}`);
  return `used twice on each instance (cached), revoked on ${revoked.upstream.split(':')[1]} in ${revokeMs} ms, then ${after.length}/${after.length} requests 401 on all 3`;
}

// 4. Rate limit: one budget per key and scope for the three instances, not one each.
async function rateLimitFlow(account: Account): Promise<string> {
  const { key } = await mintKey(account, 'rate-limited', ['tasks:read']);
  const total = rateLimit + 15;
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 6 }, async () => {
    while (next < total) {
      next++;
      answers.push(await call('GET', '/api/v1/tasks?limit=1', { headers: bearer(key) }));
    }
  }));
  const ok = answers.filter((a) => a.status === 200);
  const limited = answers.filter((a) => a.status === 429);
  check(ok.length + limited.length === total, `unexpected statuses: ${[...new Set(answers.map((a) => a.status))].join(', ')}`);
  check(ok.length === rateLimit, `${ok.length} requests passed instead of the limit ${rateLimit} (per instance limits would pass up to ${rateLimit * instances.length})`);
  const passedOn = new Set(ok.map((a) => a.upstream));
  check(passedOn.size === instances.length, `the passing requests were not spread over the three instances (${[...passedOn].join(', ')})`);
  check(ok.every((a) => a.headers.get('ratelimit-limit') === String(rateLimit)), 'RateLimit-Limit is not the configured limit');
  check(limited.every((a) => a.body?.error === 'Rate limit exceeded' && Number(a.headers.get('retry-after')) > 0), `a 429 without the contract's body or Retry-After: ${JSON.stringify(limited[0]?.body)}`);
  const per = (list: Answer[]) => instances.map((x) => list.filter((a) => a.upstream === x).length).join('+');
  return `limit ${rateLimit}/min for the key's tasks:read: ${total} requests (6 at a time) → ${ok.length} × 200 (${per(ok)} by instance) and ${limited.length} × 429 (${per(limited)})`;
}

// 5. Cron: due actions, the cron route called concurrently on every instance: each action runs once.
async function cronFlow(account: Account): Promise<string> {
  const deliveries: string[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      deliveries.push(String(req.headers['webhook-id']));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const endpoint = expectStatus(await call('POST', '/api/v1/webhooks', { body: { url, eventTypes: ['tasks:created'] }, headers: { cookie: account.cookie } }), 201, 'create webhook endpoint');
    const { key } = await mintKey(account, 'cron', ['tasks:*']);
    // Each create schedules one webhook:send action, due now, in the create's transaction.
    const due = 24;
    for (let i = 0; i < due; i++) await createTask(key, `event ${i}`);
    expectStatus(await call('GET', '/api/v1/cron/process', { headers: { 'x-cron-secret': 'not the secret' } }), 401, 'cron with a wrong secret');
    const reports: Answer[] = [];
    const deadline = Date.now() + 30_000;
    while (deliveries.length < due && Date.now() < deadline) {
      const round = await Promise.all(Array.from({ length: 3 * instances.length }, () => call('GET', '/api/v1/cron/process', { headers: { 'x-cron-secret': cronSecret } })));
      for (const report of round) expectStatus(report, 200, 'cron');
      reports.push(...round);
    }
    const sum = (field: 'processed' | 'succeeded' | 'failed') => reports.reduce((n, r) => n + (r.body[field] as number), 0);
    check(new Set(reports.map((r) => r.upstream)).size === instances.length, 'the cron calls did not reach every instance');
    check(sum('succeeded') === due && sum('failed') === 0 && sum('processed') === due, `the cron answers add up to ${sum('processed')} processed, ${sum('succeeded')} succeeded, ${sum('failed')} failed, for ${due} due actions`);
    check(deliveries.length === due && new Set(deliveries).size === due, `the receiver got ${deliveries.length} deliveries (${new Set(deliveries).size} distinct) for ${due} actions`);
    const log = expectStatus(await call('GET', `/api/v1/webhooks/${endpoint.body.data.id}/deliveries?limit=100`, { headers: { cookie: account.cookie } }), 200, 'delivery log');
    const entries = log.body.data as { attempt: number; status: string }[];
    check(entries.length === due && entries.every((d) => d.attempt === 1 && d.status === 'succeeded'), `the delivery log has ${entries.length} entries: ${JSON.stringify(entries.map((d) => [d.attempt, d.status]))}`);
    const after = await Promise.all(instances.map(() => call('GET', '/api/v1/cron/process', { headers: { 'x-cron-secret': cronSecret } })));
    check(after.every((r) => r.status === 200 && r.body.processed === 0), `cron still found work afterwards: ${JSON.stringify(after.map((r) => r.body))}`);
    const byInstance = instances.map((x) => reports.filter((r) => r.upstream === x).reduce((n, r) => n + (r.body.processed as number), 0)).join('+');
    const byCall = reports.map((r) => r.body.processed as number).filter((n) => n > 0).join(',');
    return `${due} due webhook:send actions, ${reports.length} concurrent cron calls on all 3 → ${sum('succeeded')} runs (${byInstance} by instance; calls that ran any: ${byCall}), ${deliveries.length} deliveries, each once; a wrong secret 401`;
  } finally {
    receiver.close();
  }
}

// 6. Realtime: a subscriber on one instance (SSE, and GraphQL over WebSocket) receives a change written through another.
async function realtimeFlow(account: Account): Promise<string> {
  const { key } = await mintKey(account, 'realtime', ['tasks:*']);
  const stream = await openEventStream(`${base}/api/v1/tasks/events`, bearer(key));
  const sseOn = (stream.headers.get('x-upstream') ?? '').split(',').pop()!.trim();
  check(stream.status === 200, `SSE subscription: ${stream.status} ${JSON.stringify(stream.refusal)}`);
  spread.set(sseOn, (spread.get(sseOn) ?? 0) + 1);

  let wsOn = '';
  class RecordingSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      this.on('upgrade', (res) => {
        wsOn = String(res.headers['x-upstream'] ?? '').split(',').pop()!.trim();
        spread.set(wsOn, (spread.get(wsOn) ?? 0) + 1);
      });
    }
  }
  const wsEvents: { id: string; type: string }[] = [];
  const client = createClient({ url: `${base.replace(/^http/, 'ws')}/graphql`, webSocketImpl: RecordingSocket, connectionParams: { authorization: `Bearer ${key}` }, retryAttempts: 0, lazy: false });
  const wsReady = new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('error', reject);
  });
  const wsDone = new Promise<void>((resolve, reject) => {
    client.subscribe<{ taskEvents: { id: string; type: string } }>(
      { query: 'subscription { taskEvents { eventId type id } }' },
      { next: ({ data }) => data && wsEvents.push(data.taskEvents), error: reject, complete: resolve },
    );
  });
  wsDone.catch(() => {});
  try {
    await wsReady;
    check(instances.includes(wsOn), `the WebSocket upgrade named no known instance (X-Upstream ${wsOn})`);
    // A WebSocket subscription opens after `connected` with no acknowledgement of its own: it is live once
    // a first change reaches it, so warm-up writes (anywhere) go first.
    for (let i = 0; !wsEvents.length; i++) {
      check(i < 20, `the WebSocket subscriber on ${wsOn} received none of 20 changes`);
      await createTask(key, `warm-up ${i}`);
      await waitFor(() => wsEvents.length > 0, 500);
    }
    // Writes through nginx until one lands on an instance other than both subscribers'.
    let written: Answer | undefined;
    for (let i = 0; i < 10 && !written; i++) {
      const answer = await createTask(key, `realtime ${i}`);
      if (answer.upstream !== sseOn && answer.upstream !== wsOn) written = answer;
    }
    check(written, `no write landed on an instance other than the subscribers' (SSE ${sseOn}, WebSocket ${wsOn})`);
    const id = written.body.data.id as string;
    const started = performance.now();
    let sseMs = -1;
    while (sseMs < 0) {
      const event = await stream.next(10_000);
      if (event.data?.id === id) sseMs = Math.round(performance.now() - started);
    }
    await waitFor(() => wsEvents.some((e) => e.id === id), 10_000);
    check(wsEvents.some((e) => e.id === id && e.type === 'CREATED'), `the WebSocket subscriber on ${wsOn} did not receive the change written on ${written.upstream}`);
    return `created on ${written.upstream.split(':')[1]}, received by SSE on ${sseOn.split(':')[1]} (${sseMs} ms after the answer) and GraphQL over WebSocket on ${wsOn.split(':')[1] || '?'}`;
  } finally {
    stream.close();
    await client.dispose();
  }
}

const flows: [string, (account: Account) => Promise<string>][] = [
  ['REST', restFlow],
  ['GraphQL', graphqlFlow],
  ['key revocation', revocationFlow],
  ['rate limit', rateLimitFlow],
  ['cron', cronFlow],
  ['realtime', realtimeFlow],
];

async function main(): Promise<void> {
  const total = new Map<string, number>();
  spread = new Map();
  const account = await signUp();
  for (const [name, flow] of flows) {
    spread = new Map();
    const started = performance.now();
    let summary: string;
    try {
      summary = await flow(account);
    } catch (error) {
      console.error(`FAIL  ${name}: ${error instanceof Error ? error.message : String(error)}`);
      if (!(error instanceof FlowFailure) && error instanceof Error) console.error(error.stack);
      process.exit(1);
    }
    console.log(`ok    ${name.padEnd(15)} ${summary} [${Math.round(performance.now() - started)} ms; requests by instance port ${spreadText()}]`);
    for (const [x, n] of spread) total.set(x, (total.get(x) ?? 0) + n);
  }
  spread = total;
  console.log(`all flows passed; requests by instance port: ${spreadText()}`);
}

await main();
