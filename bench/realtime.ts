// Realtime (issue 17): changes delivered live over REST Server-Sent Events (GET /api/v1/customers/events).
// 1,000 SSE subscribers to the customers of the bench user's team (shared in the team) on one
// instance, while the bench writes 50 changes a second through REST (create, update, update, delete
// of records it creates, with the bench user's session), paced open-loop (one every 20 ms whatever
// the answers' time). Every (event, subscriber) delivery is timed from the event's `occurredAt` (the
// trigger's clock_timestamp(), written in the change's transaction just before its commit, so the
// figure includes the commit) to its arrival at the client (same machine, same clock); a warm-up of
// the same load comes first and is not counted. Each subscriber must receive every event of the
// window exactly once: a lost or duplicated event fails the run (one arriving more than 15 s after the
// last write is still timed, and counted as late).
//
// Variants, each on a product instance started for it (fresh: its RSS is the subscriptions'):
// - `one-user`: 1,000 subscriptions of the bench user over 10 API keys (`customers:read`, 100 each:
//   the default REALTIME_MAX_SUBSCRIPTIONS), so one group: the hub reads each change once for all.
// - `team` (PostgreSQL only, where the team's members are seeded): 20 subscriptions for each of the
//   team's 50 members (one key each), so 50 groups: each change is read 50 times, as 50 users may see it.
// - cross-instance (PostgreSQL): a second instance (B) on the same database; one subscriber on B and
//   one on A, writes through A at the same rate: A → B is PostgreSQL's NOTIFY to B's LISTEN.
// - `alike` and `distinct` (issue 36): 500 subscriptions of the bench user over 5 keys, 10 changes a
//   second (at 50 this machine's two cores are busy delivering even to alike ones), each with a
//   filter every written record meets: the same one (`account[gte]=0`: one group) or each its own
//   (`account[gte]=<i>`: 500 distinct filters, which cost a read each per write before they were
//   decided in memory). What a write costs (server CPU per write, delivery latency) with distinct
//   filters against alike, and another tenant's GET /api/v1/customers p50 while the writes are
//   delivered against its p50 on the idle instance (tenant-probe.ts). With --against, these two also
//   run on the previous build, round by round beside this one.
// RSS per open subscription: the server's VmRSS (/proc/<pid>/status) with 1,000 open minus before
// opening them (after a small warm-up of the same paths), over 1,000.
// The client here is node:http, one socket per subscriber, each frame's id read by hand (the JSON of
// an event is parsed once, at its first arrival): it runs in the bench's process, on the same cores
// as the server and PostgreSQL, so its own event-loop delay is part of the latencies measured.
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mapLimited } from './concurrency.js';
import { cpuMs } from './cpu.js';
import type { BenchOptions } from './options.js';
import type { Goal } from './report.js';
import { readRss } from './rss.js';
import { obtainSessionCookie, type Account } from './session.js';
import { selected, type BenchOptions as Options } from './options.js';
import { median, percentile } from './stats.js';
import { type RunningServer } from './targets.js';
import { fanOutGoals, fanOutRate, fanOutSubscribers, renderFanOut } from './realtime-fan-out.js';
import { prepareTenant, probeFor, probeUntil } from './tenant-probe.js';

export const realtimeSubscribers = 1_000;
/** Changes written per second. */
export const realtimeRate = 50;
export const realtimeGoalP99Ms = 100;
/** Keys of the bench user in the one-user variant: 100 subscriptions each, the default limit per key. */
const oneUserKeys = 10;
const fanOutKeys = 5;
/** How long the other tenant's list is read on the idle instance, before the subscribers open. */
const tenantIdleMs = 3_000;
/** Subscriptions opened at once. */
const opensInFlight = 50;
/** How long the deliveries of a window's last writes may take before what is missing counts as lost. */
const drainTimeoutMs = 15_000;
const eventsPath = '/api/v1/customers/events';

export type RealtimeDatabase = 'postgres' | 'pglite';
export type RealtimeVariant = 'one-user' | 'team' | 'alike' | 'distinct';
/** This build, or the previous one (--against). */
export type RealtimeBuild = 'this' | 'previous';

export interface RealtimeRun {
  round: number;
  build: RealtimeBuild;
  database: RealtimeDatabase;
  variant: RealtimeVariant;
  /** Changes written per second (the writer's pace). */
  rate: number;
  subscribers: number;
  /** Distinct users subscribed (groups the hub resolves each change for). */
  users: number;
  /** API keys the subscriptions use (holders of REALTIME_MAX_SUBSCRIPTIONS). */
  keys: number;
  openSeconds: number;
  /** Changes written (answered 2xx) in the measured window, and their rate. */
  writes: number;
  writesPerSec: number;
  writeP50Ms: number;
  writeP99Ms: number;
  /** Distinct events of the window received by any subscriber. */
  events: number;
  deliveries: number;
  expectedDeliveries: number;
  /** Never received: not even 45 s after the last write answered. */
  lost: number;
  /** Received (and timed) only after the drain deadline, 15 s after the last write answered: the instance fell behind. */
  late: number;
  duplicates: number;
  /** Distinct events reaching the subscribers per second (first arrivals): below the write rate, the instance falls behind. */
  dispatchedPerSec: number;
  serverCpuPercent: number;
  /** The server's CPU over the window and its drain, per write answered in it. */
  serverCpuMsPerWrite: number;
  clientCpuPercent: number;
  /** The bench process's own event-loop delay over the window (p99): part of every latency measured, not the server's. */
  clientLoopDelayP99Ms: number;
  /** Another tenant's GET /api/v1/customers (alike and distinct only; NaN otherwise): p50 on the idle instance, p50 and p99 during the window. */
  tenantIdleP50Ms: number;
  tenantP50Ms: number;
  tenantP99Ms: number;
  /** Streams that ended before the bench closed them, by their END code. */
  ended: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  rssBeforeMb: number;
  rssOpenMb: number;
  rssAfterMb: number;
  kbPerSubscription: number;
}

export interface CrossInstanceRun {
  round: number;
  writes: number;
  events: number;
  lost: number;
  duplicates: number;
  /** The subscriber on instance B (writes through A). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The subscriber on instance A, in the same window. */
  sameP50Ms: number;
  sameP99Ms: number;
}

export interface RealtimeResults {
  runs: RealtimeRun[];
  cross: CrossInstanceRun[];
}

/** What one database offers the scenario: a server to start, the writer's session, the subscribers' keys. */
export interface RealtimeTarget {
  database: RealtimeDatabase;
  /** The previous build (--against) runs the alike and distinct variants only. */
  build: RealtimeBuild;
  start(): Promise<RunningServer>;
  /** The bench user's session cookie (its active team is the one written and followed). */
  cookie: string;
  teamId: string;
  /** The team's other members (PostgreSQL): the `team` variant and cross-instance run there only. */
  members?: Account[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// Keys

async function postJson(baseUrl: string, path: string, cookie: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  const parsed = JSON.parse(text) as { success?: boolean; data?: Record<string, unknown> };
  if (response.status !== 201 || parsed.success !== true || !parsed.data) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 500)}`);
  return parsed.data;
}

/** A `customers:read` key of the session's user (subscriptions name the team with x-team-id). */
async function readKey(baseUrl: string, cookie: string, name: string): Promise<string> {
  const key = (await postJson(baseUrl, '/api/v1/api-keys', cookie, { name, scopes: ['customers:read'] })).key;
  if (typeof key !== 'string') throw new Error(`POST /api/v1/api-keys (${name}): no key in the answer`);
  return key;
}

interface Keys {
  /** The bench user's keys. */
  own: string[];
  /** One key per other member of the team (PostgreSQL). */
  members: string[];
}

async function createKeys(baseUrl: string, target: RealtimeTarget): Promise<Keys> {
  const own = await mapLimited(Array.from({ length: oneUserKeys }, (_, i) => i), 4, (i) => readKey(baseUrl, target.cookie, `bench-realtime-${i + 1}`));
  // Members sign in (argon2: a few at once) and each makes its own key.
  const members = await mapLimited(target.members ?? [], 4, async (account) => readKey(baseUrl, await obtainSessionCookie(baseUrl, account), 'bench-realtime'));
  return { own, members };
}

// ---------------------------------------------------------------------------------------------
// Subscribers

interface EventInfo {
  occurredAtMs: number;
  /** When the first subscriber received it. */
  firstAt: number;
}

/** Events seen by any subscriber of a phase (parsed at their first arrival), and what was wrong with any. */
class Catalog {
  readonly events = new Map<number, EventInfo>();
  readonly problems: string[] = [];
  problem(text: string): void {
    if (this.problems.length < 10) this.problems.push(text);
  }
}

interface Subscriber {
  /** Event ids and arrival times (ms since the epoch, fractional), in arrival order. */
  ids: number[];
  times: number[];
  /** The END code when the server ended the stream, or `closed` when it ended without one. */
  ended: string | null;
  close(): void;
}

const changeTypes = new Set(['CREATED', 'UPDATED', 'DELETED']);

function parseFrame(block: string, at: number, sub: Subscriber, catalog: Catalog): void {
  if (block.startsWith(':') || block.startsWith('retry:')) return;
  if (block.startsWith('data: ')) {
    // The server's last word (END) has no id.
    let code = 'unknown';
    try {
      code = String((JSON.parse(block.slice(6)) as { code?: unknown }).code);
    } catch {
      catalog.problem(`unreadable frame ${block.slice(0, 200)}`);
    }
    sub.ended = code;
    return;
  }
  const newline = block.indexOf('\n');
  if (!block.startsWith('id: ') || newline === -1 || !block.startsWith('data: ', newline + 1)) return catalog.problem(`unexpected frame ${block.slice(0, 200)}`);
  const id = Number(block.slice(4, newline));
  sub.ids.push(id);
  sub.times.push(at);
  if (catalog.events.has(id)) return;
  try {
    const data = JSON.parse(block.slice(newline + 7)) as { eventId?: unknown; type?: unknown; id?: unknown; occurredAt?: unknown; record?: unknown };
    const occurredAtMs = Date.parse(String(data.occurredAt));
    const recordOk = data.type === 'DELETED' ? data.record === null : typeof data.record === 'object' && data.record !== null && (data.record as { id?: unknown }).id === data.id;
    if (data.eventId !== String(id) || !changeTypes.has(String(data.type)) || typeof data.id !== 'string' || !Number.isFinite(occurredAtMs) || !recordOk) {
      catalog.problem(`unexpected event ${block.slice(newline + 7, newline + 307)}`);
    }
    catalog.events.set(id, { occurredAtMs, firstAt: at });
  } catch {
    catalog.problem(`unreadable event ${block.slice(0, 200)}`);
  }
}

/** Opens one SSE stream (its own socket), with `query` (LIST's filters); resolves once the server answered 200. */
function openSubscriber(baseUrl: string, headers: Record<string, string>, catalog: Catalog, query = ''): Promise<Subscriber> {
  const url = new URL(`${eventsPath}${query ? `?${query}` : ''}`, baseUrl);
  return new Promise((resolve, reject) => {
    const sub: Subscriber = { ids: [], times: [], ended: null, close: () => request.destroy() };
    const request = http.get({ hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, agent: false, headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      response.setEncoding('utf8');
      if (response.statusCode !== 200) {
        let body = '';
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => reject(new Error(`GET ${eventsPath}: ${response.statusCode} ${body.slice(0, 500)}`)));
        return;
      }
      let buffer = '';
      response.on('data', (chunk: string) => {
        const at = now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          parseFrame(buffer.slice(0, end), at, sub, catalog);
          buffer = buffer.slice(end + 2);
        }
      });
      response.on('close', () => (sub.ended ??= 'closed'));
      resolve(sub);
    });
    request.on('error', (error) => {
      sub.ended ??= 'closed';
      reject(error);
    });
  });
}

/** Subscriptions as `holders` of them: each key of `keys` opens `perKey`, the i-th of all with `query(i)`. */
async function openAll(baseUrl: string, teamId: string, keys: readonly string[], perKey: number, catalog: Catalog, query: (i: number) => string = () => ''): Promise<Subscriber[]> {
  const plan = keys.flatMap((key) => Array.from({ length: perKey }, () => key)).map((key, i) => ({ key, query: query(i) }));
  return mapLimited(plan, opensInFlight, ({ key, query: q }) => openSubscriber(baseUrl, { authorization: `Bearer ${key}`, 'x-team-id': teamId }, catalog, q));
}

function closeAll(subs: readonly Subscriber[]): void {
  for (const sub of subs) sub.close();
}

// ---------------------------------------------------------------------------------------------
// Writer

interface WriteResult {
  writes: number;
  seconds: number;
  latencies: number[];
  failures: string[];
}

let accountNumber = 50_000_000;

/**
 * Changes to customers the writer created itself (never the seeded ones, which other scenarios read):
 * in turn create, update, update, delete, one every 1000/rate ms, open-loop (a slow answer does not
 * delay the next write). A record is never changed twice at once. Updates go to records created
 * while writing, deletes to records created beforehand (`prefill`, before any subscriber opens) that
 * are never updated: a subscriber is sent a change only if it may read the record at delivery, so a
 * record deleted before its earlier changes were delivered would rightly never show them (the product's
 * rule, not a loss); this way every change written is one every subscriber must receive.
 */
class Writer {
  private readonly live: string[] = [];
  /** Created beforehand, only ever deleted. */
  private readonly disposable: string[] = [];
  private readonly busy = new Set<string>();
  private slot = 0;
  constructor(
    private readonly baseUrl: string,
    private readonly cookie: string,
  ) {}

  private async send(method: string, path: string, body: unknown, expected: number[]): Promise<Record<string, unknown> | null> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: body === undefined ? { cookie: this.cookie } : { cookie: this.cookie, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!expected.includes(response.status)) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return text ? ((JSON.parse(text) as { data?: Record<string, unknown> }).data ?? null) : null;
  }

  private async create(into: string[]): Promise<void> {
    const n = accountNumber++;
    const created = await this.send('POST', '/api/v1/customers', { name: `Realtime customer ${n}`, account: n, office: 'Madrid', salesRep: 'Bench' }, [201]);
    const id = created?.id;
    if (typeof id !== 'string') throw new Error('POST /api/v1/customers: no id in the answer');
    into.push(id);
  }

  /** Creates the records the deletes of `seconds` of writing take (before subscribers open: not timed, not counted). */
  async prefill(seconds: number, rate: number): Promise<void> {
    const count = Math.ceil((seconds * rate) / 4) + 2;
    await mapLimited(Array.from({ length: count }, (_, i) => i), 4, () => this.create(this.disposable));
  }

  private async change(): Promise<void> {
    const kind = this.slot++ % 4;
    const target = kind === 0 ? undefined : kind === 3 ? this.disposable.shift() : this.live.filter((id) => !this.busy.has(id)).at(-1);
    if (!target) return this.create(this.live);
    this.busy.add(target);
    try {
      if (kind === 3) {
        await this.send('DELETE', `/api/v1/customers/${target}`, undefined, [200, 204]);
      } else {
        await this.send('PATCH', `/api/v1/customers/${target}`, { office: `Office ${this.slot}`, phone: `+34 600 ${String(this.slot % 1000).padStart(3, '0')}` }, [200]);
      }
    } finally {
      this.busy.delete(target);
    }
  }

  /** Writes at `rate` per second for `seconds`; resolves once every write answered. */
  async run(seconds: number, rate: number): Promise<WriteResult> {
    const count = Math.round(seconds * rate);
    const interval = 1000 / rate;
    const started = performance.now();
    const latencies: number[] = [];
    const failures: string[] = [];
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const wait = started + i * interval - performance.now();
      if (wait > 0) await sleep(wait);
      const sent = performance.now();
      inFlight.push(
        this.change().then(
          () => void latencies.push(performance.now() - sent),
          (error: Error) => void failures.push(error.message),
        ),
      );
    }
    await Promise.all(inFlight);
    return { writes: latencies.length, seconds: (performance.now() - started) / 1000, latencies, failures };
  }

  /** Deletes what the writer created and did not delete (after the subscribers left). */
  async cleanUp(): Promise<void> {
    await mapLimited([...this.live, ...this.disposable], 4, (id) => this.send('DELETE', `/api/v1/customers/${id}`, undefined, [200, 204]));
    this.live.length = 0;
    this.disposable.length = 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Measured window

interface Window {
  writes: WriteResult;
  /** Event ids above this one are the window's (every warm-up event arrived before the window started). */
  startId: number;
  /** 15 s after the last write answered: later arrivals are `late` (still delivered and timed); missing 30 s after it, `lost`. */
  deadline: number;
  /** CPU of the server (all its threads) and of the bench's process (the subscribers' client and the writer) over the window and its drain, in % of one core. */
  serverCpuPercent: number;
  serverCpuMs: number;
  clientCpuPercent: number;
  clientLoopDelayP99Ms: number;
}

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
  return true;
}

const maxId = (catalog: Catalog) => Math.max(0, ...catalog.events.keys());
const windowIds = (catalog: Catalog, startId: number) => [...catalog.events.keys()].filter((id) => id > startId);

/** Warm-up writes (not counted), then the measured window's, then waits for their deliveries. */
async function measureWindow(writer: Writer, subs: readonly Subscriber[], catalog: Catalog, options: BenchOptions, serverPid: number, rate = realtimeRate): Promise<Window> {
  const known = catalog.events.size;
  const warmup = await writer.run(options.warmupSeconds, rate);
  if (warmup.failures.length) throw new Error(`realtime warm-up writes failed: ${warmup.failures.slice(0, 3).join('; ')}`);
  // Each write is one event: the window starts once all of the warm-up's reached some subscriber.
  if (!(await waitUntil(() => catalog.events.size >= known + warmup.writes, 4 * drainTimeoutMs))) {
    throw new Error(`realtime warm-up: ${catalog.events.size - known} of ${warmup.writes} events arrived within ${4 * drainTimeoutMs} ms`);
  }
  const startId = maxId(catalog);
  const started = performance.now();
  const serverBefore = await cpuMs(serverPid);
  const clientBefore = process.cpuUsage();
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const writes = await writer.run(options.measureSeconds, rate);
  if (writes.failures.length) throw new Error(`realtime writes failed: ${writes.failures.slice(0, 3).join('; ')}`);
  const expected = () => windowIds(catalog, startId).length;
  const received = (sub: Subscriber) => {
    let n = 0;
    for (let i = sub.ids.length - 1; i >= 0 && n < writes.writes + 1; i--) if (sub.ids[i]! > startId) n++;
    return n;
  };
  const drained = () => expected() >= writes.writes && subs.every((sub) => sub.ended !== null || received(sub) >= writes.writes);
  const complete = await waitUntil(drained, drainTimeoutMs);
  const deadline = now();
  const elapsedMs = performance.now() - started;
  const client = process.cpuUsage(clientBefore);
  const serverCpuMs = (await cpuMs(serverPid)) - serverBefore;
  const serverCpuPercent = (serverCpuMs / elapsedMs) * 100;
  const clientCpuPercent = ((client.user + client.system) / 1000 / elapsedMs) * 100;
  loopDelay.disable();
  const clientLoopDelayP99Ms = loopDelay.percentile(99) / 1e6;
  // Missing at the deadline: given as long again, to tell late deliveries from events never sent.
  if (!complete) await waitUntil(drained, drainTimeoutMs * 2);
  return { writes, startId, deadline, serverCpuPercent, serverCpuMs, clientCpuPercent, clientLoopDelayP99Ms };
}

interface Deliveries {
  events: number;
  deliveries: number;
  /** Arrived after the drain deadline (delivered, and timed, but more than 15 s after the last write answered). */
  late: number;
  /** Events the instance handed out per second: the window's events over the time between the first's and the last's first arrival. */
  dispatchedPerSec: number;
  expectedDeliveries: number;
  lost: number;
  duplicates: number;
  latencies: Float64Array;
  ended: Record<string, number>;
}

/** Every subscriber's deliveries of the window's events: latencies, losses, duplicates. */
function deliveriesOf(subs: readonly Subscriber[], catalog: Catalog, window: Window): Deliveries {
  const ids = windowIds(catalog, window.startId);
  // An event no subscriber received is missing from `ids`: each write is one event.
  const events = Math.max(ids.length, window.writes.writes);
  const latencies: number[] = [];
  let lost = 0;
  let late = 0;
  let duplicates = 0;
  const ended: Record<string, number> = {};
  for (const sub of subs) {
    const seen = new Set<number>();
    for (let i = 0; i < sub.ids.length; i++) {
      const id = sub.ids[i]!;
      if (id <= window.startId) continue;
      if (seen.has(id)) {
        duplicates++;
        continue;
      }
      if (sub.times[i]! > window.deadline) late++;
      seen.add(id);
      latencies.push(sub.times[i]! - catalog.events.get(id)!.occurredAtMs);
    }
    lost += events - seen.size;
    if (sub.ended) ended[sub.ended] = (ended[sub.ended] ?? 0) + 1;
  }
  const firsts = ids.map((id) => catalog.events.get(id)!.firstAt);
  const dispatchedPerSec = firsts.length > 1 ? ((firsts.length - 1) * 1000) / (Math.max(...firsts) - Math.min(...firsts)) : Number.NaN;
  return { events: ids.length, deliveries: latencies.length, late, dispatchedPerSec, expectedDeliveries: events * subs.length, lost, duplicates, latencies: Float64Array.from(latencies).sort(), ended };
}

const percentiles = (sorted: Float64Array) => ({ p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted.length ? sorted[sorted.length - 1]! : Number.NaN });

async function steadyRssMb(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    readings.push((await readRss(pid)).rssMb);
    await sleep(100);
  }
  return median(readings);
}

// ---------------------------------------------------------------------------------------------
// Variants

interface VariantPlan {
  variant: RealtimeVariant;
  keys: string[];
  perKey: number;
  users: number;
  /** How many subscriptions the variant opens. */
  subscribers: number;
  /** Changes written per second. */
  rate: number;
  /** The query string of the i-th subscription (LIST's filters). */
  query?: (i: number) => string;
  /** Whether another tenant's list is timed (idle, then during the window). */
  tenant: boolean;
}

/** Whether `--only` asks for the realtime scenario, or some of its variants (`realtime-distinct`…). */
export const realtimeSelected = (options: Options) => !options.only || options.only.some((id) => id.startsWith('realtime') || 'realtime'.startsWith(id));
const variantSelected = (options: Options, id: string) => !options.only || options.only.includes('realtime') || selected(options, `realtime-${id}`);

function variantPlans(keys: Keys, target: RealtimeTarget, options: Options): VariantPlan[] {
  const plans: VariantPlan[] = [];
  if (target.build === 'this') {
    plans.push({ variant: 'one-user', keys: keys.own, perKey: realtimeSubscribers / keys.own.length, users: 1, subscribers: realtimeSubscribers, rate: realtimeRate, tenant: false });
    if (keys.members.length) {
      const teamKeys = [keys.own[0]!, ...keys.members];
      plans.push({ variant: 'team', keys: teamKeys, perKey: Math.ceil(realtimeSubscribers / teamKeys.length), users: teamKeys.length, subscribers: realtimeSubscribers, rate: realtimeRate, tenant: false });
    }
  }
  // Every record written has an account of 50,000,000 or more: every filter below keeps every change.
  const fanOut = { keys: keys.own.slice(0, fanOutKeys), perKey: fanOutSubscribers / fanOutKeys, users: 1, subscribers: fanOutSubscribers, rate: fanOutRate, tenant: true };
  plans.push({ variant: 'alike', ...fanOut, query: () => 'account[gte]=0' }, { variant: 'distinct', ...fanOut, query: (i) => `account[gte]=${i}` });
  return plans.filter((plan) => variantSelected(options, plan.variant));
}

async function measureVariant(server: RunningServer, target: RealtimeTarget, plan: VariantPlan, round: number, options: BenchOptions): Promise<RealtimeRun> {
  const writer = new Writer(server.baseUrl, target.cookie);
  await writer.prefill(1 + options.warmupSeconds + options.measureSeconds, plan.rate);
  const tenant = plan.tenant ? await prepareTenant(server.baseUrl) : null;
  // A small warm-up of the same paths (SSE routes, key checks, writes, deliveries) before RSS is read.
  const warmCatalog = new Catalog();
  const warm = await openAll(server.baseUrl, target.teamId, plan.keys.slice(0, 1), 10, warmCatalog, plan.query);
  const warmWrites = await writer.run(1, plan.rate);
  if (warmWrites.failures.length) throw new Error(`realtime warm-up writes failed: ${warmWrites.failures.slice(0, 3).join('; ')}`);
  await sleep(300);
  closeAll(warm);
  await sleep(1_000);
  const tenantIdle = tenant ? Float64Array.from(await probeFor(server.baseUrl, tenant, tenantIdleMs)).sort() : new Float64Array();

  const rssBeforeMb = await steadyRssMb(server.pid);
  const catalog = new Catalog();
  const opening = performance.now();
  const subs = (await openAll(server.baseUrl, target.teamId, plan.keys, plan.perKey, catalog, plan.query)).slice(0, plan.subscribers);
  const openSeconds = (performance.now() - opening) / 1000;
  await sleep(1_000);
  const rssOpenMb = await steadyRssMb(server.pid);
  let window: Window;
  let tenantDuring = new Float64Array();
  try {
    const measuring = measureWindow(writer, subs, catalog, options, server.pid, plan.rate);
    const probing = tenant ? probeUntil(server.baseUrl, tenant, measuring) : Promise.resolve([]);
    [window, tenantDuring] = await Promise.all([measuring, probing.then((l) => Float64Array.from(l).sort())]);
  } finally {
    closeAll(subs);
  }
  const rssAfterMb = (await readRss(server.pid)).rssMb;
  await sleep(300);
  await writer.cleanUp();
  if (catalog.problems.length) throw new Error(`realtime ${plan.variant}: unexpected frames: ${catalog.problems.join('; ')}`);
  const d = deliveriesOf(subs, catalog, window);
  const w = Float64Array.from(window.writes.latencies).sort();
  return {
    round,
    build: target.build,
    database: target.database,
    variant: plan.variant,
    rate: plan.rate,
    subscribers: subs.length,
    users: plan.users,
    keys: plan.keys.length,
    openSeconds,
    writes: window.writes.writes,
    writesPerSec: window.writes.writes / window.writes.seconds,
    writeP50Ms: percentile(w, 50),
    writeP99Ms: percentile(w, 99),
    events: d.events,
    deliveries: d.deliveries,
    expectedDeliveries: d.expectedDeliveries,
    lost: d.lost,
    late: d.late,
    duplicates: d.duplicates,
    dispatchedPerSec: d.dispatchedPerSec,
    serverCpuPercent: window.serverCpuPercent,
    serverCpuMsPerWrite: window.serverCpuMs / window.writes.writes,
    clientCpuPercent: window.clientCpuPercent,
    clientLoopDelayP99Ms: window.clientLoopDelayP99Ms,
    tenantIdleP50Ms: percentile(tenantIdle, 50),
    tenantP50Ms: percentile(tenantDuring, 50),
    tenantP99Ms: percentile(tenantDuring, 99),
    ended: d.ended,
    ...percentiles(d.latencies),
    rssBeforeMb,
    rssOpenMb,
    rssAfterMb,
    kbPerSubscription: ((rssOpenMb - rssBeforeMb) * 1024) / subs.length,
  };
}

/** One subscriber on a second instance (B) and one on A; writes through A. */
async function measureCrossInstance(a: RunningServer, b: RunningServer, target: RealtimeTarget, key: string, round: number, options: BenchOptions): Promise<CrossInstanceRun> {
  const writer = new Writer(a.baseUrl, target.cookie);
  await writer.prefill(options.warmupSeconds + options.measureSeconds, realtimeRate);
  const catalogB = new Catalog();
  const catalogA = new Catalog();
  const [onB] = await openAll(b.baseUrl, target.teamId, [key], 1, catalogB);
  const [onA] = await openAll(a.baseUrl, target.teamId, [key], 1, catalogA);
  let window: Window;
  let sameWindow: Window;
  try {
    // The window is B's; A's subscriber is read over the same events.
    window = await measureWindow(writer, [onB!], catalogB, options, b.pid);
    await waitUntil(() => windowIds(catalogA, window.startId).length >= window.writes.writes, drainTimeoutMs);
    sameWindow = { ...window, deadline: now() };
  } finally {
    onA!.close();
    onB!.close();
  }
  await writer.cleanUp();
  const problems = [...catalogA.problems, ...catalogB.problems];
  if (problems.length) throw new Error(`realtime cross-instance: unexpected frames: ${problems.join('; ')}`);
  const cross = deliveriesOf([onB!], catalogB, window);
  const same = deliveriesOf([onA!], catalogA, sameWindow);
  return {
    round,
    writes: window.writes.writes,
    events: cross.events,
    lost: cross.lost + same.lost,
    duplicates: cross.duplicates + same.duplicates,
    ...percentiles(cross.latencies),
    sameP50Ms: percentile(same.latencies, 50),
    sameP99Ms: percentile(same.latencies, 99),
  };
}

const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/** The scenario on every target, round after round, each variant on an instance started for it. */
export async function measureRealtime(targets: readonly RealtimeTarget[], options: BenchOptions, log: (message: string) => void): Promise<RealtimeResults> {
  const results: RealtimeResults = { runs: [], cross: [] };
  const keys = new Map<RealtimeTarget, Keys>();
  for (let round = 1; round <= options.rounds; round++) {
    // This build and the previous one of a database take turns going first, round by round.
    const order = (t: RealtimeTarget) => (t.build === 'this') === (round % 2 === 1) ? 0 : 1;
    for (const target of [...targets].sort((a, b) => a.database.localeCompare(b.database) || order(a) - order(b))) {
      let plans: VariantPlan[] | null = null;
      for (let v = 0; plans === null || v < plans.length; v++) {
        const server = await target.start();
        try {
          if (!keys.has(target)) keys.set(target, await createKeys(server.baseUrl, target));
          plans ??= variantPlans(keys.get(target)!, target, options);
          if (!plans.length) break;
          const run = await measureVariant(server, target, plans[v]!, round, options);
          results.runs.push(run);
          const ended = Object.entries(run.ended).map(([code, n]) => `${n} ${code}`).join(', ');
          log(
            `round ${round} realtime ${run.variant} on ${run.database}${run.build === 'previous' ? ' (previous build)' : ''}: ${run.subscribers} subscribers (${run.users} users, ${run.keys} keys) opened in ${fixed(run.openSeconds)} s; ${run.writes} writes answered at ${fixed(run.writesPerSec)}/s (p50 ${fixed(run.writeP50Ms)} ms), events reaching subscribers at ${fixed(run.dispatchedPerSec)}/s; ` +
              `${run.deliveries} of ${run.expectedDeliveries} deliveries, ${run.lost} lost, ${run.late} late (after the drain deadline), ${run.duplicates} duplicates${ended ? `, streams ended: ${ended}` : ''}; latency p50 ${fixed(run.p50Ms)} ms, p99 ${fixed(run.p99Ms)} ms, max ${fixed(run.maxMs)} ms; CPU server ${fixed(run.serverCpuPercent, 0)}% (${fixed(run.serverCpuMsPerWrite, 2)} ms per write), bench client ${fixed(run.clientCpuPercent, 0)}% (its event-loop delay p99 ${fixed(run.clientLoopDelayP99Ms)} ms); ` +
              `RSS ${fixed(run.rssBeforeMb)} MB before, ${fixed(run.rssOpenMb)} MB open (${fixed(run.kbPerSubscription)} KB per subscription), ${fixed(run.rssAfterMb)} MB after the window` +
              (Number.isFinite(run.tenantP50Ms) ? `; another tenant's GET /api/v1/customers p50 ${fixed(run.tenantIdleP50Ms)} ms idle, ${fixed(run.tenantP50Ms)} ms during the writes (p99 ${fixed(run.tenantP99Ms)} ms)` : ''),
          );
        } finally {
          await server.stop();
        }
      }
      if (target.database !== 'postgres' || target.build !== 'this' || !variantSelected(options, 'cross')) continue;
      const a = await target.start();
      try {
        const b = await target.start();
        try {
          const cross = await measureCrossInstance(a, b, target, keys.get(target)!.own[0]!, round, options);
          results.cross.push(cross);
          log(`round ${round} realtime cross-instance on postgres: ${cross.writes} writes through A; subscriber on B p50 ${fixed(cross.p50Ms)} ms, p99 ${fixed(cross.p99Ms)} ms, max ${fixed(cross.maxMs)} ms; on A p50 ${fixed(cross.sameP50Ms)} ms, p99 ${fixed(cross.sameP99Ms)} ms; ${cross.lost} lost, ${cross.duplicates} duplicates`);
        } finally {
          await b.stop();
        }
      } finally {
        await a.stop();
      }
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Report

const groupKey = (r: RealtimeRun) => `${r.build} ${r.database} ${r.variant}`;
const groupsOf = (results: RealtimeResults) => {
  const keys = [...new Set(results.runs.map(groupKey))];
  return keys.map((key) => results.runs.filter((r) => groupKey(r) === key));
};
/** A group's name in goals and tables: its variant, and the previous build's mark. */
const variantName = (r: RealtimeRun) => `${r.variant}${r.build === 'previous' ? ', previous build' : ''}`;

/** The issue's goal (p99 ≤ 100 ms on PostgreSQL) per variant, 0 lost or duplicated everywhere, and the figures asked for with no threshold. */
export function realtimeGoals(results: RealtimeResults): Goal[] {
  const goals: Goal[] = [];
  for (const runs of groupsOf(results)) {
    const first = runs[0]!;
    if (first.database !== 'postgres' || first.build !== 'this') continue;
    const value = median(runs.map((r) => r.p99Ms));
    goals.push({
      text: `realtime (${first.variant}: ${first.subscribers} SSE subscribers of ${first.users} user(s), ${first.rate} changes/s, PostgreSQL): delivery p99 from commit ≤ ${realtimeGoalP99Ms} ms (median of rounds)`,
      threshold: realtimeGoalP99Ms,
      value,
      shown: `${fixed(value)} ms`,
      pass: value <= realtimeGoalP99Ms,
      kind: 'performance',
    });
  }
  // This build's: the previous build's losses are its figures (the distinct-filter table shows them).
  const own = [...results.runs.filter((r) => r.build === 'this'), ...results.cross];
  const measured = own.length;
  const lost = own.reduce((n, r) => n + r.lost, 0);
  const duplicates = own.reduce((n, r) => n + r.duplicates, 0);
  goals.push({
    text: 'realtime: every subscriber receives every event of the window exactly once (0 lost, 0 duplicates, every run of this build)',
    threshold: 0,
    value: measured ? lost + duplicates : Number.NaN,
    shown: measured ? `${lost} lost, ${duplicates} duplicates` : 'not measured',
    pass: lost + duplicates === 0,
    kind: 'correctness',
  });
  for (const runs of groupsOf(results)) {
    const first = runs[0]!;
    const kb = median(runs.map((r) => r.kbPerSubscription));
    goals.push({ text: `realtime RSS per open subscription (${variantName(first)}, ${first.database})`, threshold: Number.NaN, value: kb, shown: `${fixed(kb)} KB`, pass: true, kind: 'report' });
  }
  if (results.cross.length) {
    const p50 = median(results.cross.map((c) => c.p50Ms));
    const p99 = median(results.cross.map((c) => c.p99Ms));
    goals.push({ text: 'realtime cross-instance latency (write through A, subscriber on B, PostgreSQL NOTIFY)', threshold: Number.NaN, value: p99, shown: `p50 ${fixed(p50)} ms, p99 ${fixed(p99)} ms`, pass: true, kind: 'report' });
  }
  goals.push(...fanOutGoals(results.runs));
  return goals;
}

export function renderRealtime(results: RealtimeResults): string {
  if (!results.runs.length && !results.cross.length) return '';
  const lines = [
    '',
    `Realtime (issue 17): ${realtimeSubscribers} SSE subscribers (GET ${eventsPath}, the customers of one team) on one instance while ${realtimeRate} changes/s are written through REST (create, update, update, delete); latency = arrival at the client − the event's occurredAt (written in the change's transaction, before its commit). Medians over rounds; each variant on an instance started for it.`,
    '',
    '| Database | Variant | subscribers | users / keys | writes/s answered | events/s delivered | deliveries | lost | late | dup | p50 ms | p99 ms | max ms | per round p99 ms | server CPU % | bench CPU % | bench loop delay p99 ms | RSS before MB | RSS open MB | KB per subscription |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const runs of groupsOf(results)) {
    const r = runs[0]!;
    const m = (pick: (run: RealtimeRun) => number) => median(runs.map(pick));
    const total = (pick: (run: RealtimeRun) => number) => runs.reduce((n, run) => n + pick(run), 0);
    lines.push(
      `| ${r.database} | ${variantName(r)} | ${r.subscribers} | ${r.users} / ${r.keys} | ${fixed(m((x) => x.writesPerSec))} | ${fixed(m((x) => x.dispatchedPerSec))} | ${total((x) => x.deliveries)} of ${total((x) => x.expectedDeliveries)} | ${total((x) => x.lost)} | ${total((x) => x.late)} | ${total((x) => x.duplicates)} | ${fixed(m((x) => x.p50Ms))} | ${fixed(m((x) => x.p99Ms))} | ${fixed(Math.max(...runs.map((x) => x.maxMs)))} | ${runs.map((x) => fixed(x.p99Ms)).join(', ')} | ${fixed(m((x) => x.serverCpuPercent), 0)} | ${fixed(m((x) => x.clientCpuPercent), 0)} | ${fixed(m((x) => x.clientLoopDelayP99Ms))} | ${fixed(m((x) => x.rssBeforeMb), 0)} | ${fixed(m((x) => x.rssOpenMb), 0)} | ${fixed(m((x) => x.kbPerSubscription))} |`,
    );
  }
  if (results.cross.length) {
    const m = (pick: (run: CrossInstanceRun) => number) => median(results.cross.map(pick));
    lines.push('', `Cross-instance (PostgreSQL): a second instance B on the same database; one subscriber on B and one on A, ${realtimeRate} changes/s written through A.`, '');
    lines.push('| Subscriber | events | lost | dup | p50 ms | p99 ms | max ms | per round p99 ms |', '|---|---:|---:|---:|---:|---:|---:|---:|');
    const lost = results.cross.reduce((n, c) => n + c.lost, 0);
    const dup = results.cross.reduce((n, c) => n + c.duplicates, 0);
    lines.push(`| on B (written through A) | ${results.cross.reduce((n, c) => n + c.events, 0)} | ${lost} | ${dup} | ${fixed(m((c) => c.p50Ms))} | ${fixed(m((c) => c.p99Ms))} | ${fixed(Math.max(...results.cross.map((c) => c.maxMs)))} | ${results.cross.map((c) => fixed(c.p99Ms)).join(', ')} |`);
    lines.push(`| on A (same instance) | ${results.cross.reduce((n, c) => n + c.events, 0)} | | | ${fixed(m((c) => c.sameP50Ms))} | ${fixed(m((c) => c.sameP99Ms))} | | ${results.cross.map((c) => fixed(c.sameP99Ms)).join(', ')} |`);
  }
  lines.push(renderFanOut(results.runs));
  return lines.join('\n');
}
