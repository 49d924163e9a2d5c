// `npm run bench [-- --quick]`: seeds the databases (bench user, its API keys and, on PostgreSQL, its
// 20 teams of 50 members and one uploaded JPEG, then in SQL its 100k tasks, its customers with notes
// and projects, and its 50k media records, and 1k tasks of a second account), then measures every
// target in interleaved rounds (raw, product on PostgreSQL, product on PGlite, the rate-limit check
// and the large uploads' memory each on its own product instance; again...), counts SQL statements
// per request once, measures realtime delivery (1,000 SSE subscribers, bench/realtime.ts), and prints
// medians, ratios and goals. Uploaded files go to a temporary directory.
// See /work/shared/BENCHMARKS.md for the method. Progress goes to stderr, the table to stdout.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBenchKeys } from './api-keys.js';
import { mapLimited } from './concurrency.js';
import { cpuMs } from './cpu.js';
import { idleGoals, idleMemory, type IdleMemory } from './idle-memory.js';
import { expectedCustomerPages, seedCustomers } from './customers.js';
import { expectedRelationAnswers, seedProjects } from './projects.js';
import { uploadLargeVideos, type LargeUploadCheck } from './large-uploads.js';
import {
  expectedMediaSearch,
  makeUploadFiles,
  mediaTeams,
  removeUploads,
  renditionPath,
  seedMedia,
  uploadRenditionSource,
  type MediaTeams,
  type UploadFiles,
} from './media.js';
import { measureVerification } from './verification.js';
import { measureUploadDrift, type UploadDriftCheck } from './upload-drift.js';
import { datasetSizes, recreateDatabase, serverVersion, vacuumAnalyze, waitForIdleDatabase, type DatasetSizes } from './database.js';
import { describeEnvironment } from './environment.js';
import { runLoad, startLoad } from './load.js';
import { parseOptions, selected, type BenchOptions } from './options.js';
import { measureQueue, queueCallers, queueEnv, type QueueCheck } from './queue.js';
import { preparePglite } from './pglite.js';
import { readRss } from './rss.js';
import { burstAboveLimit, rateLimit, type RateLimitCheck } from './rate-limit.js';
import { renderMarkdown, summarize, type NotMeasured, type Sample } from './report.js';
import {
  checkOnce,
  measurementsFor,
  statementCountMeasurements,
  type Credentials,
  type KeyedCredentials,
  type Measurement,
  type PostgresSeed,
  type ServerKind,
} from './scenarios.js';
import type { GraphqlTasks } from './tasks.js';
import { benchUser, fetchSessionData, obtainSessionCookie, type Account, type SessionData } from './session.js';
import { startStatementCounter, statementsPerRequest, type StatementCount } from './statements.js';
import { dataSafetyAlone, dataSafetyGoals, dataSafetySelected, measureDataSafety, noDataSafety, renderDataSafety, reportDataSafetyAlone } from './data-safety.js';
import { hookCostGoal, limitedPlanGoal, limitedPlanTasks, measureTaskCreates, renderTaskCreates, reportTaskCreatesAlone, taskCreatesGoal, type CreateRun } from './task-creates.js';
import { killAllServers, repoRoot, startServer, type RunningServer, type ServerSpec } from './targets.js';
import { cursorPage, deepCursorOf, expectedTaskAnswers, seedTasks, smallTasksUser, taskCounts, type RecordOwner, type TaskDataset, type TaskSize } from './tasks.js';
import { memberAccount, membersPerTeam, seedTeams, type BenchTeams } from './teams.js';
import { measureRealtime, realtimeGoals, realtimeSelected, renderRealtime, type RealtimeResults } from './realtime.js';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/**
 * Rate limiting and sign-in throttling stay on, as in production, with limits no run reaches: measured is
 * their cost, not their refusals (seeding signs up a thousand members from one address).
 */
const unreachableLimits = {
  RATE_LIMIT_TIERS: 'free=100000000,pro=100000000,enterprise=100000000',
  RATE_LIMIT_SESSION: '100000000',
  RATE_LIMIT_ANONYMOUS: '100000000',
  // Per key the default (100) stays: the realtime scenario's one user holds 1,000 over 10 keys.
  REALTIME_MAX_SUBSCRIPTIONS_PER_USER: '100000',
  SIGNUP_MAX_PER_IP: '100000000',
  SIGNIN_MAX_FAILURES_PER_IP: '100000000',
  RATE_LIMIT_SCOPES: 'tasks:read=100000000,tasks:write=100000000,tasks:delete=100000000',
};
/**
 * A free plan allowing any number of team members and API keys, and `tasks` tasks (null: unlimited).
 * The bench's servers have it unlimited, so the bench user's teams can hold 50 and its team 100k
 * tasks (seeded in SQL, but a plan over its limit is still one); S14's limited instance, a finite number.
 */
const freePlan = (tasks: number | null) => ({ PLANS_JSON: JSON.stringify({ free: { limits: { team_members: null, api_keys: null, tasks } } }) });
const unlimitedPlan = freePlan(null);
/** Uploads under the defaults (local storage, images ≤ 10 MB, videos ≤ 100 MB), whatever the bench's environment says. */
const mediaDefaults = { MEDIA_CONFIG: undefined, MEDIA_STORAGE: undefined, BLOB_READ_WRITE_TOKEN: undefined };
/** What `npm start` sets besides: glibc's malloc arenas capped, V8's old generation at 512 MB and its young one at 16 MB (docs/deployment.md "Memory"). */
const startEnv = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '32768', NODE_OPTIONS: '--max-old-space-size=512 --max-semi-space-size=16' };
const productEnv = { ...startEnv, ...unreachableLimits, ...unlimitedPlan, ...mediaDefaults };

/** Where uploads go: the product's local storage (UPLOAD_DIR) and the raw baseline's, both temporary. */
interface UploadDirs {
  product: string;
  raw: string;
}

/** The product as production runs it: compiled by `npm run build` (main() builds it first). */
const productEntry = 'dist/main.js';

function serverSpecs(databaseUrl: string, pgliteDir: string, uploads: UploadDirs, against: string | null = null): Record<ServerKind, ServerSpec> {
  const product = {
    raw: { name: 'raw', entry: 'bench/raw-server.ts', env: { DATABASE_URL: databaseUrl, UPLOAD_DIR: uploads.raw } },
    // Pool of 8 like the raw baseline, so the comparison is about the code, not the pool.
    'product-pg': { name: 'product (PostgreSQL)', entry: productEntry, env: { DATABASE_URL: databaseUrl, DB_POOL_SIZE: '8', UPLOAD_DIR: uploads.product, ...productEnv } },
    'product-pglite': { name: 'product (PGlite)', entry: productEntry, env: { DATABASE_URL: undefined, DATA_DIR: pgliteDir, UPLOAD_DIR: uploads.product, ...productEnv } },
  } satisfies Record<string, ServerSpec>;
  // The previous build as the same servers: same databases, same environment, its own checkout. Each
  // pair runs side by side (see the rounds), so on PGlite, which one process owns, the previous build
  // opens a copy of the data directory (previousPgliteDir).
  const previous = (spec: ServerSpec, env: Record<string, string | undefined> = {}): ServerSpec => ({ ...spec, name: `previous build ${spec.name} (${against})`, root: against ?? undefined, env: { ...spec.env, ...env } });
  return { ...product, 'previous-pg': previous(product['product-pg']), 'previous-pglite': previous(product['product-pglite'], { DATA_DIR: previousPgliteDir(pgliteDir) }) };
}

/** Builds the checkout `--against` names and tells how its GraphQL speaks of tasks (enums since the typed schema). */
function prepareAgainst(against: string): GraphqlTasks {
  log(`building the previous build (npm run build in ${against})`);
  execFileSync('npm', ['run', '-s', 'build'], { cwd: against, stdio: ['ignore', 'ignore', 'inherit'] });
  return /^enum TaskStatus /m.test(readFileSync(path.join(against, 'schema', 'schema.graphql'), 'utf8')) ? 'typed' : 'strings';
}

/** The product on PostgreSQL with a free tier low enough for the rate-limit check to exceed it. */
function rateLimitedSpec(databaseUrl: string): ServerSpec {
  const env = { ...startEnv, DATABASE_URL: databaseUrl, DB_POOL_SIZE: '8', RATE_LIMIT_TIERS: `free=${rateLimit.perMinute}` };
  return { name: `product (PostgreSQL, free tier ${rateLimit.perMinute}/min)`, entry: productEntry, env };
}

/** S9: the product on PostgreSQL with the cron route enabled (CRON_SECRET) and batches of 100. */
function queueSpec(databaseUrl: string, pgliteDir: string, uploads: UploadDirs): ServerSpec {
  const spec = serverSpecs(databaseUrl, pgliteDir, uploads)['product-pg'];
  return { ...spec, name: 'product (PostgreSQL, cron route)', env: { ...spec.env, ...queueEnv } };
}

/** The previous build's copy of the seeded PGlite data directory. */
const previousPgliteDir = (pgliteDir: string) => `${pgliteDir}-previous`;

/** Runs `work` with every server of `specs` up at once (started in turn, stopped together). */
async function withServers<T>(specs: readonly ServerSpec[], work: (servers: RunningServer[]) => Promise<T>): Promise<T> {
  const [first, ...rest] = specs;
  if (!first) return work([]);
  return withServer(first, (server) => withServers(rest, (others) => work([server, ...others])));
}

async function withServer<T>(spec: ServerSpec, work: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(spec);
  try {
    return await work(server);
  } finally {
    await server.stop();
  }
}

/** An account (the bench user by default), created (or signed in) through the product's own API, and its session answer. */
async function signIn(baseUrl: string, account: Account = benchUser): Promise<Credentials> {
  const cookie = await obtainSessionCookie(baseUrl, account);
  return { cookie, session: await fetchSessionData(baseUrl, cookie, account.email) };
}

/** What the product itself seeds on PostgreSQL: the bench user's keys and teams, the small tasks dataset's owner, and S10's teams and rendition source. */
interface ProductSeed extends KeyedCredentials {
  teams: BenchTeams;
  smallTasksOwner: Credentials;
  mediaTeams: MediaTeams;
  /** The JPEG the rendition scenario renders, uploaded through the product. */
  renditionSourceId: string;
}

/**
 * Starts the product once to apply its migrations and create the bench user, its API keys and its
 * teams, the small tasks dataset's owner, and the rendition's source, through its own API.
 */
function seedWithKeysAndTeams(spec: ServerSpec, rounds: number, files: UploadFiles): Promise<ProductSeed> {
  return withServer(spec, async (server) => {
    const credentials = await signIn(server.baseUrl);
    const keys = await createBenchKeys(server.baseUrl, credentials.cookie, rounds);
    const teams = await seedTeams(server.baseUrl, credentials, log);
    const smallTasksOwner = await signIn(server.baseUrl, smallTasksUser);
    // Read again: the session answer is the reference of the session scenarios, whatever the teams changed.
    const session = await fetchSessionData(server.baseUrl, credentials.cookie);
    const media = mediaTeams(teams.teamIds, ownerOf(session).teamId);
    const renditionSourceId = await uploadRenditionSource(server.baseUrl, credentials.cookie, media.rendition, files['2mb']);
    return { cookie: credentials.cookie, session, keys, teams, smallTasksOwner, mediaTeams: media, renditionSourceId };
  });
}

/** Records are created by the user in their active team. */
function ownerOf(session: SessionData): RecordOwner {
  if (!session.activeTeamId) throw new Error(`${session.user.email} has no active team`);
  return { userId: session.user.id, teamId: session.activeTeamId };
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/**
 * Seeds the records straight in SQL (tasks of both datasets, the bench user's customers with notes
 * and projects, and media records), vacuums, and reads the answers the records' scenarios must give.
 */
async function seedRecords(url: string, seed: ProductSeed, files: UploadFiles, uploads: UploadDirs): Promise<PostgresSeed> {
  const started = performance.now();
  const owners: Record<TaskSize, Credentials> = { '1k': seed.smallTasksOwner, '100k': seed };
  const sizes = Object.keys(owners) as TaskSize[];
  for (const size of sizes) await seedTasks(url, size, ownerOf(owners[size].session));
  await seedCustomers(url, ownerOf(seed.session));
  await seedProjects(url, ownerOf(seed.session));
  await seedMedia(url, ownerOf(seed.session));
  await vacuumAnalyze(url);
  log(`records: ${sizes.map((size) => `${taskCounts[size]} tasks`).join(' and ')}, customers with notes and projects, media seeded and vacuumed in ${seconds(started)}`);
  const tasks: TaskDataset[] = [];
  for (const size of sizes) {
    const owner = ownerOf(owners[size].session);
    tasks.push({ size, cookie: owners[size].cookie, owner, expected: await expectedTaskAnswers(url, size, owner) });
  }
  const search = await expectedMediaSearch(url, seed.teams.teamIds);
  log(`media search: ${search.total} active records match, first page read in SQL`);
  const { smallTasksOwner: _, mediaTeams: teams, renditionSourceId, ...rest } = seed;
  const media = {
    cookie: seed.cookie,
    uploadTeamId: teams.uploads,
    files,
    search: search.answer,
    renditionPath: renditionPath(renditionSourceId),
    removeUploads: () => removeUploads(url, teams.uploads, uploads.product, uploads.raw),
  };
  const owner = ownerOf(seed.session);
  return { ...rest, tasks, customerPages: await expectedCustomerPages(url, owner), relations: await expectedRelationAnswers(url, owner), tasksDeepCursor: null, media };
}

/** Starts the product once to apply its migrations and create the bench user through its own API. */
function seed(spec: ServerSpec): Promise<Credentials> {
  return withServer(spec, (server) => signIn(server.baseUrl));
}

/** Requests counted per scenario (after a warm-up), one at a time. */
const countedRequests = 20;

/**
 * S8: SQL statements per request, on a product whose database connections go through the counting
 * proxy (a server of its own, so the proxy never sits in a measured path).
 */
async function countStatements(databaseUrl: string, pgliteDir: string, uploads: UploadDirs, seed: PostgresSeed): Promise<StatementCount[]> {
  const counter = await startStatementCounter(databaseUrl);
  try {
    const spec = { ...serverSpecs(counter.url, pgliteDir, uploads)['product-pg'], name: 'product (PostgreSQL, statements counted)' };
    return await withServer(spec, async (server) => {
      const counts: StatementCount[] = [];
      for (const m of statementCountMeasurements(seed)) {
        await checkOnce(server.baseUrl, m);
        counts.push({ scenario: m.scenario, target: m.target, perRequest: await statementsPerRequest(server.baseUrl, counter, m.requests[0]!, m.verify, countedRequests) });
      }
      return counts;
    });
  } finally {
    await counter.close();
  }
}

/** Only bounds a background load that nobody stops; it is stopped as soon as the measurement ends. */
const backgroundBoundSeconds = 3600;

/**
 * Warm-up, throughput and latency runs, with the measurement's background load (if any) running
 * throughout; its own preparation first (a measurement that cannot run here is noted in `notMeasured`)
 * and its clean-up last.
 */
async function measure(server: RunningServer, m: Measurement, round: number, options: BenchOptions, notMeasured: NotMeasured[]): Promise<Sample[]> {
  const prepared = await m.prepare?.(server.baseUrl);
  if (prepared?.note) log(`round ${round} ${m.scenario} on ${m.target}: ${prepared.note}`);
  if (prepared?.skip) {
    log(`round ${round} ${m.scenario} on ${m.target}: NOT MEASURED: ${prepared.skip}`);
    notMeasured.push({ round, scenario: m.scenario, target: m.target, reason: prepared.skip });
    return [];
  }
  try {
    return await measureChecked(server, m, round, options);
  } finally {
    await m.after?.();
  }
}

async function measureChecked(server: RunningServer, m: Measurement, round: number, options: BenchOptions): Promise<Sample[]> {
  await checkOnce(server.baseUrl, m);
  const background = m.background && startLoad({ ...m.background, baseUrl: server.baseUrl, seconds: backgroundBoundSeconds });
  let samples: Sample[];
  try {
    samples = await measureRuns(server, m, round, options);
  } catch (error) {
    // The measurement's failure is the one to report, not the interrupted background's.
    await background?.stop().catch(() => undefined);
    throw error;
  }
  if (background && m.background) {
    const result = await background.stop();
    samples.push({ ...result, round, scenario: m.scenario, target: m.target, phase: 'background' });
    log(`round ${round} ${m.scenario} on ${m.target} (${m.background.description}): ${Math.round(result.reqPerSec)} req/s answered ${m.background.status}, p50 ${result.p50Ms.toFixed(2)} ms`);
  }
  return samples;
}

async function measureRuns(server: RunningServer, m: Measurement, round: number, options: BenchOptions): Promise<Sample[]> {
  const samples = [await warmupRun(server, m, round, options)];
  await settle(m, options, `round ${round} ${m.scenario} on ${m.target}`, 'warm-up');
  samples.push(await throughputRun(server, m, round, options, options.measureSeconds));
  const latency = await latencyRun(server, m, round, options);
  return latency ? [...samples, latency] : samples;
}

/**
 * One scenario on the two builds of a pair (--against), side by side: both warmed up, then the
 * throughput run cut into slices taken in turn (A B, B A, A B…), so that a slice of one build is never
 * more than one slice away from the other's, then each build's latency run, then each one's clean-up.
 * Each slice is a sample of its own (`slice`); report.ts pairs "this / previous build" slice by slice.
 * A measurement that settles waits for an idle database before each slice. Measurements with
 * preparation or background load run whole, one build after the other.
 */
async function measurePair(servers: RunningServer[], ms: Measurement[], round: number, options: BenchOptions, notMeasured: NotMeasured[]): Promise<Sample[]> {
  if (!ms.every(sliceable)) return (await mapLimited(servers, 1, (server, i) => measure(server, ms[i]!, round, options, notMeasured))).flat();
  const samples: Sample[] = [];
  try {
    for (const [i, server] of servers.entries()) {
      await checkOnce(server.baseUrl, ms[i]!);
      samples.push(await warmupRun(server, ms[i]!, round, options));
    }
    // Slices of at least 2 s: autocannon samples once a second, and a slow route (600 ms at 50
    // connections) answers nothing in a 1 s slice. --quick (3 s) then runs one slice per build.
    const slices = Math.max(1, Math.min(5, Math.floor(options.measureSeconds / 2)));
    for (let slice = 0; slice < slices; slice++) {
      const order = slice % 2 ? [...servers.keys()].reverse() : [...servers.keys()];
      for (const i of order) {
        await settle(ms[i]!, options, `round ${round} slice ${slice + 1} ${ms[i]!.scenario} on ${ms[i]!.target}`, 'last run');
        samples.push(await throughputRun(servers[i]!, ms[i]!, round, options, options.measureSeconds / slices, slice));
      }
    }
    for (const [i, server] of servers.entries()) {
      const latency = await latencyRun(server, ms[i]!, round, options);
      if (latency) samples.push(latency);
    }
  } finally {
    for (const m of ms) await m.after?.();
  }
  return samples;
}

const sliceable = (m: Measurement) => !m.prepare && !m.background;

/**
 * The measurements of one group of servers, in this build's order: with two builds (this one and a
 * previous one, in either order), each with the previous build's of the same scenario and target
 * (both lists' measurements in the servers' order); one of this build only (`productOnly`, which the
 * previous build's list leaves out) alone, on this build's server (its index given).
 */
function pairings(lists: Measurement[][]): [Measurement, number, Measurement[] | undefined][] {
  if (lists.length === 1) return lists[0]!.map((m) => [m, 0, undefined]);
  const current = lists.findIndex((list) => list.some((m) => !m.target.endsWith('-prev')));
  const [product, previous] = [lists[current]!, lists[1 - current]!];
  return product.map((m) => {
    const other = previous.find((p) => p.scenario === m.scenario && p.target === `${m.target}-prev`);
    if (!other) return [m, current, undefined];
    return [m, current, current === 0 ? [m, other] : [other, m]];
  });
}

const loadOf = (server: RunningServer, m: Measurement) => ({ baseUrl: server.baseUrl, requests: m.requests, verify: m.verify, fresh: m.fresh, freshBody: m.freshBody });

/** Slow paths (`settle`): wait until the database has no active statement before the next run. */
async function settle(m: Measurement, options: BenchOptions, label: string, after: string): Promise<void> {
  if (!m.settle) return;
  const waited = await waitForIdleDatabase(options.databaseUrl);
  if (waited > 500) log(`${label}: waited ${(waited / 1000).toFixed(1)} s after the ${after} for the database to go idle`);
}

/** A fresh server's warm-up on its scenarios: each at least this long, and all of them at least `serverWarmupSeconds`. */
const serverWarmupEach = 1;
const serverWarmupSeconds = 10;

/**
 * Runs a freshly started server on the scenarios it is about to be measured on, in turn, for at least
 * `serverWarmupSeconds` in all, before the first is measured (each still has its own warm-up then).
 * A new process runs a route at twice its steady CPU for its first ~10 s (V8 optimizes what has run
 * often; the young generation grows): on one server, REST LIST cost 3.4, 2.1, 1.5, then 1.4–1.2 ms of
 * CPU per request in consecutive 3 s runs, so the scenario measured first after a 1 s warm-up (REST
 * LIST, in --quick) read 0.37–0.46× raw against 0.55–0.57 in the full run. Measurements with
 * preparation, a background load or a clean-up are left to their own warm-up.
 */
async function warmServer(server: RunningServer, list: readonly Measurement[], round: number, options: BenchOptions): Promise<void> {
  const warmable = list.filter((m) => sliceable(m) && !m.after);
  if (!warmable.length) return;
  // The full check first: a list's check learns what its check under load then expects.
  for (const m of warmable) await checkOnce(server.baseUrl, m);
  const until = performance.now() + serverWarmupSeconds * 1000;
  do {
    for (const m of warmable) {
      await runLoad({ ...loadOf(server, m), connections: m.connections ?? options.connections, seconds: serverWarmupEach, warmup: true });
      await settle(m, options, `round ${round} ${m.scenario} on ${m.target}`, 'server warm-up');
    }
  } while (performance.now() < until);
}

async function warmupRun(server: RunningServer, m: Measurement, round: number, options: BenchOptions): Promise<Sample> {
  const warmup = await runLoad({ ...loadOf(server, m), connections: m.connections ?? options.connections, seconds: options.warmupSeconds, warmup: true });
  return { ...warmup, round, scenario: m.scenario, target: m.target, phase: 'warmup' };
}

/** A throughput run of `seconds` (a slice of one when `slice` is given), with the server's CPU per request. */
async function throughputRun(server: RunningServer, m: Measurement, round: number, options: BenchOptions, seconds: number, slice?: number): Promise<Sample> {
  const label = `round ${round}${slice === undefined ? '' : ` slice ${slice + 1}`} ${m.scenario} on ${m.target}`;
  const cpuBefore = await cpuMs(server.pid);
  const throughput = await runLoad({ ...loadOf(server, m), connections: m.connections ?? options.connections, seconds });
  const serverCpuMsPerRequest = ((await cpuMs(server.pid)) - cpuBefore) / Math.max(1, throughput.requests);
  log(`${label}: ${Math.round(throughput.reqPerSec)} req/s, p50 ${throughput.p50Ms.toFixed(2)} ms, p99 ${throughput.p99Ms.toFixed(2)} ms, server CPU ${serverCpuMsPerRequest.toFixed(3)} ms/request`);
  await settle(m, options, label, 'throughput run');
  return { ...throughput, round, ...(slice === undefined ? {} : { slice }), scenario: m.scenario, target: m.target, phase: 'throughput', serverCpuMsPerRequest };
}

/** The one-connection run of a measurement that has one (no separate warm-up: a throughput run just warmed this route). */
async function latencyRun(server: RunningServer, m: Measurement, round: number, options: BenchOptions): Promise<Sample | undefined> {
  if (!m.latencyRun) return undefined;
  const label = `round ${round} ${m.scenario} on ${m.target}`;
  const latency = await runLoad({ ...loadOf(server, m), connections: 1, seconds: options.measureSeconds });
  log(`${label} (1 connection): ${Math.round(latency.reqPerSec)} req/s, p50 ${latency.p50Ms.toFixed(3)} ms, p99 ${latency.p99Ms.toFixed(3)} ms`);
  await settle(m, options, label, 'latency run');
  return { ...latency, round, scenario: m.scenario, target: m.target, phase: 'latency' };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const startedAt = new Date();
  log('building the product (npm run build)');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  const previousTasks = options.against ? prepareAgainst(options.against) : 'typed';
  const pgliteDir = await mkdtemp(path.join(os.tmpdir(), 'bench-pglite-'));
  const uploadRoot = await mkdtemp(path.join(os.tmpdir(), 'bench-uploads-'));
  const uploads: UploadDirs = { product: path.join(uploadRoot, 'product'), raw: path.join(uploadRoot, 'raw') };
  // Also on SIGINT, where process.exit skips the finally below.
  process.on('exit', () => {
    rmSync(pgliteDir, { recursive: true, force: true });
    rmSync(previousPgliteDir(pgliteDir), { recursive: true, force: true });
    rmSync(uploadRoot, { recursive: true, force: true });
  });
  try {
    await mkdir(uploads.product);
    await mkdir(uploads.raw);
    const filesStarted = performance.now();
    const files = await makeUploadFiles();
    log(`upload files: JPEGs of ${Object.values(files).map((f) => `${f.bytes} bytes (${f.width}×${f.height})`).join(', ')} made in ${seconds(filesStarted)}`);
    log(`recreating ${new URL(options.databaseUrl).pathname.slice(1)} at ${new URL(options.databaseUrl).host}`);
    await recreateDatabase(options.databaseUrl);
    const specs = serverSpecs(options.databaseUrl, pgliteDir, uploads, options.against);
    // S14 seeds its own account, teams and tasks, so it runs first, and alone needs nothing else seeded.
    let taskCreates: CreateRun[] = [];
    if (selected(options, 'tasks-create')) {
      log('S14: tasks CREATE at 1k and 100k tasks per team, on its own product instance');
      // The same build again, its tasks given no-op hooks by a preload (bench/noop-hooks.mjs): what hooks cost on CREATE.
      const hookedSpec = { ...specs['product-pg'], name: 'product (PostgreSQL, no-op hooks on tasks)', env: { ...specs['product-pg'].env, NODE_OPTIONS: `${startEnv.NODE_OPTIONS} --import ${pathToFileURL(path.join(repoRoot, 'bench', 'noop-hooks.mjs')).href}` } };
      // And under a finite plan (issue 40): every create checks the team's count against the limit.
      const limitedSpec = { ...specs['product-pg'], name: `product (PostgreSQL, a plan of ${limitedPlanTasks} tasks)`, env: { ...specs['product-pg'].env, ...freePlan(limitedPlanTasks) } };
      taskCreates = await withServers([specs['product-pg'], hookedSpec, limitedSpec], ([server, hooks, limited]) => measureTaskCreates(server!, options, log, { hooks, limited }));
      if (options.only?.every((id) => id.startsWith('tasks-create'))) return await reportTaskCreatesAlone(taskCreates, options, startedAt, log);
    }
    // Issue 38 (history-update, export-rss, backup) seeds its own account, team and 100k tasks too, so
    // it runs next, and alone needs nothing else seeded.
    let dataSafety = noDataSafety();
    if (dataSafetySelected(options)) {
      // The same build again, its tasks keeping no history by a preload (bench/no-history.mjs): what history costs on UPDATE.
      const noHistorySpec = { ...specs['product-pg'], name: 'product (PostgreSQL, tasks without history)', env: { ...specs['product-pg'].env, NODE_OPTIONS: `${startEnv.NODE_OPTIONS} --import ${pathToFileURL(path.join(repoRoot, 'bench', 'no-history.mjs')).href}` } };
      dataSafety = await measureDataSafety(specs['product-pg'], noHistorySpec, options, log);
      if (dataSafetyAlone(options)) return await reportDataSafetyAlone(dataSafety, options, startedAt, log);
    }

    log('seeding PostgreSQL through the product (migrations, bench user, API keys, teams, tasks owner, rendition source)');
    const productSeed = await seedWithKeysAndTeams(specs['product-pg'], options.rounds, files);
    log('seeding PostgreSQL in SQL (tasks, customers with notes and projects, media)');
    const pgCredentials = await seedRecords(options.databaseUrl, productSeed, files, uploads);
    if (selected(options, `tasks-cursor-page-${cursorPage}`)) {
      // Cursors are the product's (opaque): page 999's nextCursor, asked once of a product started for it.
      const large = pgCredentials.tasks.find((tasks) => tasks.size === '100k')!;
      pgCredentials.tasksDeepCursor = await withServer(specs['product-pg'], (server) => deepCursorOf(server.baseUrl, large.cookie));
      log(`tasks: page ${cursorPage}'s cursor read from page ${cursorPage - 1}'s nextCursor`);
    }
    log('seeding PGlite through the product (migrations, bench user)');
    const pgliteCredentials = await seed(specs['product-pglite']);
    const datasets: Record<'postgres' | 'pglite', DatasetSizes> = {
      postgres: await datasetSizes(options.databaseUrl),
      pglite: await preparePglite(pgliteDir),
    };
    if (options.against) cpSync(pgliteDir, previousPgliteDir(pgliteDir), { recursive: true });

    // Interleaved rounds: slow drift of the machine spreads over all targets instead of one.
    const samples: Sample[] = [];
    const rateLimitChecks: RateLimitCheck[] = [];
    const largeUploads: LargeUploadCheck[] = [];
    const uploadDrift: UploadDriftCheck[] = [];
    const notMeasured: NotMeasured[] = [];
    const queueChecks: QueueCheck[] = [];
    const serverMemory: Array<{ round: number; server: string; rssMb: number; peakMb: number }> = [];
    const idle: IdleMemory[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      // With --against, this build and the previous one run side by side: both servers up, each
      // scenario measured on one and at once on the other (taking turns going first, round by round),
      // so that the machine's drift over minutes falls on both alike.
      const groups: ServerKind[][] = options.against ? [['raw'], ['product-pg', 'previous-pg'], ['product-pglite', 'previous-pglite']] : [['raw'], ['product-pg'], ['product-pglite']];
      for (const group of groups.map((kinds) => (round % 2 ? kinds : [...kinds].reverse()))) {
        // Only the servers with something to measure (--only may leave a previous build nothing).
        const lists = group.map((kind) => ({ kind, list: measurementsFor(kind, pgCredentials, pgliteCredentials, previousTasks).filter((m) => selected(options, m.scenario)) })).filter((l) => l.list.length);
        if (!lists.length) continue;
        await withServers(lists.map((l) => specs[l.kind]), async (servers) => {
          for (const [i, server] of servers.entries()) await warmServer(server, lists[i]!.list, round, options);
          for (const [m, i, ms] of pairings(lists.map((l) => l.list))) {
            samples.push(...(ms ? await measurePair(servers, ms, round, options, notMeasured) : await measure(servers[i]!, m, round, options, notMeasured)));
          }
          // What each server holds once its scenarios ran (the embedded database's memory against PostgreSQL's).
          for (const server of servers) {
            const { rssMb, hwmMb } = await readRss(server.pid);
            serverMemory.push({ round, server: server.name, rssMb, peakMb: hwmMb });
            log(`round ${round} memory of ${server.name} after its scenarios: RSS ${rssMb.toFixed(0)} MB, peak ${hwmMb.toFixed(0)} MB`);
          }
        });
      }
      // Issue 40: each database's product freshly started, left idle.
      if (selected(options, 'idle-memory')) {
        for (const [database, kind] of [['postgres', 'product-pg'], ['pglite', 'product-pglite']] as const) {
          const reading = await withServer(specs[kind], (server) => idleMemory(server, database, round));
          idle.push(reading);
          log(`round ${round} idle memory on ${database}: RSS ${reading.rssMb.toFixed(0)} MB`);
        }
      }
      const { cookie, media } = pgCredentials;
      // Each on a product of its own, freshly started: its memory is the uploads', not the other scenarios'.
      const onFreshProduct = <T>(work: (server: RunningServer) => Promise<T>) =>
        withServer(specs['product-pg'], (server) => work(server).finally(() => media.removeUploads()));
      if (selected(options, 'upload-memory')) {
        const large = await onFreshProduct((server) => uploadLargeVideos(server.baseUrl, server.pid, cookie, media.uploadTeamId, round));
        largeUploads.push(large);
        log(`round ${round} upload memory on rest: ${large.files} × ${large.bytesEach} bytes at once in ${large.seconds.toFixed(1)} s, RSS ${large.startMb.toFixed(0)} MB before, peak ${large.peakMb.toFixed(0)} MB (largest of ${large.samples} samples ${large.sampledPeakMb.toFixed(0)} MB), ${large.endMb.toFixed(0)} MB after`);
      }
      if (selected(options, 'upload-drift')) {
        const drift = await onFreshProduct((server) => measureUploadDrift(server.baseUrl, server.pid, cookie, media.uploadTeamId, media.files['200kb'], round));
        uploadDrift.push(drift);
        log(`round ${round} upload memory drift on rest: ${drift.uploads} uploads in ${drift.seconds.toFixed(1)} s, RSS ${drift.startMb.toFixed(0)} MB at start, ${drift.warmMb.toFixed(0)} MB warm, ${drift.endMb.toFixed(0)} MB after (drift ${drift.driftMb.toFixed(1)} MB)`);
      }
      // A fresh key per round on a fresh server: no earlier request counts against its window.
      if (selected(options, 'rate-limit')) {
        const key = pgCredentials.keys.rateLimited[round - 1]!;
        const check = await withServer(rateLimitedSpec(options.databaseUrl), (server) => burstAboveLimit(server.baseUrl, key, pgCredentials.session, round));
        rateLimitChecks.push(check);
        log(`round ${round} rate-limit on rest: ${check.sent} requests in ${check.seconds.toFixed(2)} s, ${check.ok} answered 200, ${check.limited} answered 429 (limit ${check.limit}/min)`);
      }
      // S9: one server for the three drains of the round, each on 10,000 freshly seeded actions.
      if (selected(options, 'queue')) await withServer(queueSpec(options.databaseUrl, pgliteDir, uploads), async (server) => {
        for (const callers of queueCallers) {
          const q = await measureQueue(options.databaseUrl, server.baseUrl, round, callers);
          queueChecks.push(q);
          log(`round ${round} queue with ${callers} caller(s): ${q.actions} actions in ${q.seconds.toFixed(2)} s = ${Math.round(q.actionsPerSec)} actions/s (${q.calls} calls); ${q.duplicates} duplicates, ${q.lost} lost, ${q.overlaps} lock-group overlaps (${q.groupedActions} grouped)`);
          if (q.failedAttempts) log(`round ${round} queue with ${callers} caller(s): ${q.failedAttempts} failed attempts, e.g. ${q.failures.join('; ')}`);
        }
      });
    }

    let verification: Awaited<ReturnType<typeof measureVerification>> | undefined;
    if (selected(options, 'key-verification')) {
      log('key verification alone (cache hit, miss), in its own process');
      verification = await measureVerification(options.databaseUrl, {
        warm: pgCredentials.keys.warm,
        cold: pgCredentials.keys.rotating,
        hits: options.quick ? 50_000 : 200_000,
      });
      log(`key verification: hit ${verification.hit.cpuMicros.toFixed(1)} µs CPU, miss ${verification.miss.cpuMicros.toFixed(1)} µs CPU (${verification.miss.wallMicros.toFixed(0)} µs wall)`);
    }

    let statements: StatementCount[] = [];
    if (selected(options, 'statements')) {
      log('SQL statements per request, counted on the wire, in a server of its own');
      statements = await countStatements(options.databaseUrl, pgliteDir, uploads, pgCredentials);
      log(`statements per request: ${statements.map((c) => `${c.scenario} on ${c.target} ${c.perRequest.toFixed(2)}`).join(', ')}`);
    }

    // Issue 17, after the statements count: it writes (and deletes again) customers of the bench user's team, which S8 reads.
    let realtime: RealtimeResults = { runs: [], cross: [] };
    if (realtimeSelected(options)) {
      log('realtime: 1,000 SSE subscribers while 50 changes/s are written, each variant on a product instance of its own; then two instances on one PostgreSQL');
      const members = Array.from({ length: membersPerTeam - 1 }, (_, i) => memberAccount(i + 1));
      const pg = { database: 'postgres' as const, cookie: pgCredentials.cookie, teamId: ownerOf(pgCredentials.session).teamId };
      const pglite = { database: 'pglite' as const, cookie: pgliteCredentials.cookie, teamId: ownerOf(pgliteCredentials.session).teamId };
      realtime = await measureRealtime(
        [
          { ...pg, build: 'this', start: () => startServer(specs['product-pg']), members },
          { ...pglite, build: 'this', start: () => startServer(specs['product-pglite']) },
          // The previous build runs the distinct-filter variants beside this one (same databases).
          ...(options.against
            ? [
                { ...pg, build: 'previous' as const, start: () => startServer(specs['previous-pg']) },
                { ...pglite, build: 'previous' as const, start: () => startServer(specs['previous-pglite']) },
              ]
            : []),
        ],
        options,
        log,
      );
    }

    const summary = summarize(samples, { rateLimit: rateLimitChecks, statements, verification, largeUploads, uploadDrift, notMeasured, queue: queueChecks });
    summary.goals.push(taskCreatesGoal(taskCreates), hookCostGoal(taskCreates), limitedPlanGoal(taskCreates), ...dataSafetyGoals(dataSafety), ...realtimeGoals(realtime), ...idleGoals(idle));
    // With --only, a goal whose figures were not taken is not a result.
    if (options.only) summary.goals = summary.goals.filter((g) => Number.isFinite(g.value));
    process.stdout.write(`${renderMarkdown(summary, options)}\n${renderTaskCreates(taskCreates)}\n${renderDataSafety(dataSafety)}\n${renderRealtime(realtime)}\n`);

    const environment = describeEnvironment(await serverVersion(options.databaseUrl));
    const resultsDir = path.join(repoRoot, 'bench', 'results');
    await mkdir(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `${startedAt.toISOString().replaceAll(':', '-')}.json`);
    const record = { startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), options, environment, datasets, summary, samples, taskCreates, dataSafety, realtime, serverMemory, idle };
    await writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
    log(`results written to ${path.relative(repoRoot, file)}`);
    const broken = summary.goals.filter((g) => g.kind !== 'performance' && !g.pass);
    if (broken.length) {
      log(`FAILED correctness or limits: ${broken.map((g) => `${g.text} (${g.shown})`).join('; ')}`);
      process.exitCode = 1;
    }
  } finally {
    killAllServers();
    await rm(pgliteDir, { recursive: true, force: true });
    await rm(previousPgliteDir(pgliteDir), { recursive: true, force: true });
    await rm(uploadRoot, { recursive: true, force: true });
  }
}

// No server may outlive the bench, whatever ends it.
process.on('exit', killAllServers);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllServers();
    process.exit(130);
  });
}

main().catch((error: Error) => {
  log(`FAILED: ${error.message}`);
  process.exitCode = 1;
});
