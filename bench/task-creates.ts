// S14: CREATE as a team's table grows. One account of its own, two teams of its own with 1k and 100k
// tasks seeded in SQL, and tasks created through REST (`POST /api/v1/tasks`) with an API key naming
// the team (x-team-id), at 8 connections. Every round starts each team at exactly its seeded size
// (the tasks created before are deleted and the table vacuumed), and the sizes alternate their order
// from round to round so that drift of the machine does not favour one. Reported per size: creates/s,
// the server's CPU per create and p50; the goal, a hard check: creates/s at 100k ≥ 1/1.2 of 1k,
// as the median over rounds of the ratio measured within each round. Hooks (issue 37): a second
// instance of the same build, whose `tasks` definition has a no-op beforeChange and afterChange
// (bench/noop-hooks.mjs, preloaded), creates into the 100k team in every round too, before or after
// the plain one by turns; goal: with hooks ≥ 0.9 of without (≤ 10% cost), median of per-round ratios.
// A finite plan (issue 40): a third instance whose free plan allows 1,000,000 tasks, so every create
// checks the limit, creates into the 100k team in every round too; goal: ≥ 1/1.2 of the unlimited
// plan's creates/s at 100k (the check reads the team's count, not its rows).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cpuMs } from './cpu.js';
import { serverVersion, waitForIdleDatabase, withClient } from './database.js';
import { describeEnvironment } from './environment.js';
import { runLoad } from './load.js';
import type { BenchOptions } from './options.js';
import type { Goal } from './report.js';
import { fetchSessionData, obtainSessionCookie, type Account } from './session.js';
import { median, spreadPercent } from './stats.js';
import { repoRoot, type RunningServer } from './targets.js';

export const createSizes = { '1k': 1_000, '100k': 100_000 } as const;
export type CreateSize = keyof typeof createSizes;
/** Concurrent creates: the pool's size, as in the finding this scenario reproduces. */
export const createConnections = 8;
/** Creates/s at 100k must be at least this share of creates/s at 1k. */
export const createGoalRatio = 1 / 1.2;
/** Creates/s at 100k with no-op hooks must be at least this share of creates/s without. */
export const hookGoalRatio = 0.9;
/** Creates/s at 100k under a finite plan limit must be at least this share of creates/s unlimited. */
export const limitedGoalRatio = 1 / 1.2;
/** The finite plan's tasks limit: far above what the bench creates, so that every create passes its check. */
export const limitedPlanTasks = 1_000_000;

/** Which instance a run measured: the plain product, the one whose tasks have no-op hooks, or the one under a finite plan. */
export type CreateVariant = 'plain' | 'hooks' | 'limited';

const account: Account = { email: 'bench-creates@example.com', password: 'benchpassword', firstName: 'Creates', lastName: 'Owner' };

export interface CreateRun {
  round: number;
  size: CreateSize;
  variant: CreateVariant;
  creates: number;
  createsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  serverCpuMsPerCreate: number;
  /** CPU of the PostgreSQL backends serving the product, per create: the database's share, apart from the server's. */
  databaseCpuMsPerCreate: number;
}

interface CreateSeed {
  userId: string;
  key: string;
  teams: Record<CreateSize, string>;
}

async function call(baseUrl: string, path: string, cookie: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  const parsed = JSON.parse(text) as { success?: boolean; data?: Record<string, unknown> };
  if (response.status !== 201 || parsed.success !== true || !parsed.data) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 500)}`);
  return parsed.data;
}

/** The account, its two teams and a `tasks:write` key, through the product's API. */
async function seedAccount(baseUrl: string): Promise<CreateSeed> {
  const cookie = await obtainSessionCookie(baseUrl, account);
  const session = await fetchSessionData(baseUrl, cookie, account.email);
  const team = async (size: CreateSize) => String((await call(baseUrl, '/api/v1/teams', cookie, { name: `Creates ${size}`, slug: `bench-creates-${size}` })).id);
  const teams = { '1k': await team('1k'), '100k': await team('100k') };
  const key = String((await call(baseUrl, '/api/v1/api-keys', cookie, { name: 'bench-creates', scopes: ['tasks:write'] })).key);
  return { userId: session.user.id, key, teams };
}

/**
 * Tasks like those the product stores (titles and descriptions for the trigram indexes, 0–2 tags
 * for the GIN index, statuses, priorities, due dates), created in 2025: what a round creates is
 * newer, which is how resetting tells them apart.
 */
export const seedSql = `
INSERT INTO tasks (id, team_id, user_id, title, description, status, priority, tags, due_date, estimated_hours, completed, metas, created_at, updated_at)
SELECT gen_random_uuid(), $1::uuid, $2::uuid,
       (ARRAY['Fix', 'Write', 'Review', 'Deploy', 'Plan', 'Test'])[1 + n % 6] || ' ' || (ARRAY['login', 'billing', 'search', 'reports', 'dashboard'])[1 + n % 5] || ' #' || n,
       CASE WHEN n % 5 = 0 THEN NULL ELSE 'Task ' || n || ': steps, notes and acceptance criteria.' END,
       (ARRAY['todo', 'in-progress', 'review', 'done', 'blocked'])[1 + n % 5],
       (ARRAY['low', 'medium', 'high', 'urgent'])[1 + n % 4],
       CASE n % 3 WHEN 0 THEN ARRAY[]::text[] WHEN 1 THEN ARRAY['bug'] ELSE ARRAY['frontend', 'feature'] END,
       date '2026-01-01' + n % 365, (n % 160) / 4.0, n % 5 = 3, '{}'::jsonb,
       timestamptz '2025-01-01 00:00:00+00' + n * interval '1 second', timestamptz '2025-01-01 00:00:00+00' + n * interval '1 second'
  FROM generate_series(1, $3::int) AS n`;

const createdSince = `timestamptz '2025-12-31 00:00:00+00'`;

/** Seeds both teams' tasks, as the database owner (no RLS, no plan limit). */
async function seedTasks(url: string, seed: CreateSeed): Promise<void> {
  await withClient(url, async (c) => {
    for (const size of Object.keys(createSizes) as CreateSize[]) await c.query(seedSql, [seed.teams[size], seed.userId, createSizes[size]]);
  });
}

/** The CPU the backends of the bench database have used so far (the product's pool: connected before the run, after its warm-up). */
export async function databaseCpuMs(url: string): Promise<Map<number, number>> {
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  const pids = await withClient(url, async (c) => {
    const { rows } = await c.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`, [database]);
    return rows.map((r) => r.pid);
  });
  const used = new Map<number, number>();
  for (const pid of pids) await cpuMs(pid).then((ms) => used.set(pid, ms), () => undefined);
  return used;
}

export async function databaseCpuSince(url: string, before: Map<number, number>): Promise<number> {
  const after = await databaseCpuMs(url);
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? ms);
  return sum;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Back to exactly the seeded tasks, vacuumed: every round starts from the same table. Creates the
 * server still finishes for connections the load has closed may land after a delete: deleted again.
 */
async function reset(url: string, seed: CreateSeed): Promise<void> {
  const teams = Object.values(seed.teams);
  await withClient(url, async (c) => {
    for (let attempt = 1; ; attempt++) {
      await c.query(`DELETE FROM tasks WHERE team_id = ANY($1::uuid[]) AND created_at > ${createdSince}`, [teams]);
      await sleep(200);
      const { rows } = await c.query<{ team_id: string; n: number }>('SELECT team_id::text, count(*)::int AS n FROM tasks WHERE team_id = ANY($1::uuid[]) GROUP BY team_id', [teams]);
      const wrong = (Object.keys(createSizes) as CreateSize[]).filter((size) => rows.find((r) => r.team_id === seed.teams[size])?.n !== createSizes[size]);
      if (!wrong.length) break;
      if (attempt === 25) throw new Error(`S14: teams ${wrong.join(', ')} still hold other than their seeded tasks after ${attempt} deletes`);
    }
    await c.query('VACUUM ANALYZE tasks');
  });
}

/** A valid task touching every indexed column. */
const taskBody = JSON.stringify({ title: 'Created by the bench', description: 'Steps, notes and acceptance criteria.', status: 'todo', priority: 'high', tags: ['bug', 'backend'], dueDate: '2026-06-30', estimatedHours: 3.5 });

function createLoad(server: RunningServer, seed: CreateSeed, size: CreateSize) {
  const headers = { authorization: `Bearer ${seed.key}`, 'x-team-id': seed.teams[size], 'content-type': 'application/json' };
  const verify = (body: string) => body.startsWith('{"success":true,"data":{') && body.includes(`"teamId":"${seed.teams[size]}"`);
  return { baseUrl: server.baseUrl, requests: [{ method: 'POST' as const, path: '/api/v1/tasks', headers, body: taskBody }], connections: createConnections, verify };
}

async function measureSize(server: RunningServer, options: BenchOptions, seed: CreateSeed, size: CreateSize, round: number, variant: CreateVariant): Promise<CreateRun> {
  const { verify, ...base } = createLoad(server, seed, size);
  await runLoad({ ...base, verify, seconds: options.warmupSeconds, warmup: true });
  await waitForIdleDatabase(options.databaseUrl);
  const databaseBefore = await databaseCpuMs(options.databaseUrl);
  const before = await cpuMs(server.pid);
  const run = await runLoad({ ...base, verify, seconds: options.measureSeconds });
  const creates = Math.max(1, run.requests);
  const serverCpuMsPerCreate = ((await cpuMs(server.pid)) - before) / creates;
  const databaseCpuMsPerCreate = (await databaseCpuSince(options.databaseUrl, databaseBefore)) / creates;
  await waitForIdleDatabase(options.databaseUrl);
  return { round, size, variant, creates: run.requests, createsPerSec: run.reqPerSec, p50Ms: run.p50Ms, p99Ms: run.p99Ms, serverCpuMsPerCreate, databaseCpuMsPerCreate };
}

/**
 * S14 on a running product (PostgreSQL, pool of 8, unlimited plan): seeds, then measures every round;
 * each of `others` (the same build on the same database: tasks with no-op hooks, a finite plan) the 100k team too.
 */
export async function measureTaskCreates(server: RunningServer, options: BenchOptions, log: (message: string) => void, others: Partial<Record<Exclude<CreateVariant, 'plain'>, RunningServer>> = {}): Promise<CreateRun[]> {
  const seed = await seedAccount(server.baseUrl);
  await seedTasks(options.databaseUrl, seed);
  const servers: Partial<Record<CreateVariant, RunningServer>> = { ...others, plain: server };
  const extra = (Object.keys(others) as CreateVariant[]).map((variant) => ({ size: '100k' as const, variant }));
  // A fresh server's first seconds are slower (JIT, caches): warmed on both teams before round 1's first size.
  for (const size of Object.keys(createSizes) as CreateSize[]) await runLoad({ ...createLoad(server, seed, size), seconds: options.warmupSeconds, warmup: true });
  for (const { variant } of extra) await runLoad({ ...createLoad(servers[variant]!, seed, '100k'), seconds: options.warmupSeconds, warmup: true });
  const runs: CreateRun[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const plain = (round % 2 ? ['1k', '100k'] : ['100k', '1k']).map((size) => ({ size: size as CreateSize, variant: 'plain' as CreateVariant }));
    // The other instances' runs next to the plain 100k one: after it in odd rounds, before it in even ones.
    const steps = round % 2 ? [...plain, ...extra] : [...extra, ...plain];
    for (const { size, variant } of steps) {
      await reset(options.databaseUrl, seed);
      const run = await measureSize(servers[variant]!, options, seed, size, round, variant);
      runs.push(run);
      log(`round ${round} tasks-create-${size}${variantLabel[variant]} on rest (${createConnections} connections): ${Math.round(run.createsPerSec)} creates/s, p50 ${run.p50Ms.toFixed(1)} ms, p99 ${run.p99Ms.toFixed(1)} ms, server CPU ${run.serverCpuMsPerCreate.toFixed(2)} ms/create, PostgreSQL CPU ${run.databaseCpuMsPerCreate.toFixed(2)} ms/create`);
    }
  }
  await reset(options.databaseUrl, seed);
  return runs;
}

const variantLabel: Record<CreateVariant, string> = { plain: '', hooks: ' with no-op hooks', limited: ` under a plan of ${limitedPlanTasks.toLocaleString('en-US')} tasks` };

type RunKind = Pick<CreateRun, 'size' | 'variant'>;

/** Per round, creates/s of runs of kind `top` over those of kind `bottom` (rounds that measured both). */
function perRound(runs: readonly CreateRun[], top: RunKind, bottom: RunKind): number[] {
  return [...new Set(runs.map((r) => r.round))].flatMap((round) => {
    const at = (kind: RunKind) => runs.find((r) => r.round === round && r.size === kind.size && r.variant === kind.variant)?.createsPerSec;
    const [over, under] = [at(top), at(bottom)];
    return over !== undefined && under ? [over / under] : [];
  });
}

/** Per round, creates/s at 100k over creates/s at 1k (without hooks). */
const roundRatios = (runs: readonly CreateRun[]) => perRound(runs, { size: '100k', variant: 'plain' }, { size: '1k', variant: 'plain' });

/** Per round, creates/s at 100k with no-op hooks over without. */
const hookRatios = (runs: readonly CreateRun[]) => perRound(runs, { size: '100k', variant: 'hooks' }, { size: '100k', variant: 'plain' });

/** Per round, creates/s at 100k under the finite plan over unlimited. */
const limitedRatios = (runs: readonly CreateRun[]) => perRound(runs, { size: '100k', variant: 'limited' }, { size: '100k', variant: 'plain' });

/** A finite plan's cost on CREATE at 100k (issue 40): ≥ 1/1.2 of the unlimited plan's creates/s (median of the per-round ratios). */
export function limitedPlanGoal(runs: readonly CreateRun[]): Goal {
  const value = median(limitedRatios(runs));
  return {
    text: `tasks CREATE at 100k (REST, ${createConnections} connections): creates/s under a plan of ${limitedPlanTasks.toLocaleString('en-US')} tasks ≥ 1/1.2 (${limitedGoalRatio.toFixed(3)}) of unlimited`,
    threshold: limitedGoalRatio,
    value,
    shown: Number.isNaN(value) ? 'not measured' : value.toFixed(2),
    pass: value >= limitedGoalRatio,
    kind: 'performance',
  };
}

/** The hooks' cost on CREATE at 100k: with no-op hooks ≥ 0.9 of without (median of the per-round ratios). */
export function hookCostGoal(runs: readonly CreateRun[]): Goal {
  const value = median(hookRatios(runs));
  return {
    text: `tasks CREATE at 100k (REST, ${createConnections} connections): creates/s with no-op hooks (beforeChange, afterChange) ≥ ${hookGoalRatio} of without`,
    threshold: hookGoalRatio,
    value,
    shown: Number.isNaN(value) ? 'not measured' : value.toFixed(2),
    pass: value >= hookGoalRatio,
    kind: 'limit',
  };
}

/** The hard check: creates/s at 100k within 1.2× of 1k (median of the per-round ratios). */
export function taskCreatesGoal(runs: readonly CreateRun[]): Goal {
  const value = median(roundRatios(runs));
  return {
    text: `tasks CREATE (REST, API key, ${createConnections} connections): creates/s at 100k ≥ 1/1.2 (${createGoalRatio.toFixed(3)}) of 1k`,
    threshold: createGoalRatio,
    value,
    shown: Number.isNaN(value) ? 'not measured' : value.toFixed(2),
    pass: value >= createGoalRatio,
    kind: 'limit',
  };
}

/** The scenario's table (medians over rounds), for stdout. */
export function renderTaskCreates(runs: readonly CreateRun[]): string {
  if (!runs.length) return '';
  const lines = ['', `S14 tasks CREATE: POST /api/v1/tasks with an API key, ${createConnections} connections, into a team holding the seeded tasks (reset every round).`, ''];
  lines.push('| Team size | creates/s | spread | p50 ms | p99 ms | server CPU ms/create | PostgreSQL CPU ms/create | per round creates/s |', '|---|---:|---:|---:|---:|---:|---:|---:|');
  const rows = [...(Object.keys(createSizes) as CreateSize[]).map((size) => ({ size, variant: 'plain' as CreateVariant })), { size: '100k' as const, variant: 'hooks' as CreateVariant }, { size: '100k' as const, variant: 'limited' as CreateVariant }];
  for (const { size, variant } of rows) {
    const of = runs.filter((r) => r.size === size && r.variant === variant);
    if (!of.length) continue;
    const m = (pick: (r: CreateRun) => number) => median(of.map(pick));
    lines.push(`| ${size}${variantLabel[variant]} | ${m((r) => r.createsPerSec).toFixed(0)} | ${spreadPercent(of.map((r) => r.createsPerSec)).toFixed(1)}% | ${m((r) => r.p50Ms).toFixed(1)} | ${m((r) => r.p99Ms).toFixed(1)} | ${m((r) => r.serverCpuMsPerCreate).toFixed(2)} | ${m((r) => r.databaseCpuMsPerCreate).toFixed(2)} | ${of.map((r) => r.createsPerSec.toFixed(0)).join(', ')} |`);
  }
  const ratios = roundRatios(runs);
  lines.push('', `creates/s 100k / 1k per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
  const hooked = hookRatios(runs);
  if (hooked.length) lines.push(`creates/s at 100k with no-op hooks / without, per round: ${hooked.map((r) => r.toFixed(2)).join(', ')}`);
  const limited = limitedRatios(runs);
  if (limited.length) lines.push(`creates/s at 100k under the finite plan / unlimited, per round: ${limited.map((r) => r.toFixed(2)).join(', ')}`);
  return lines.join('\n');
}

/** `--only=tasks-create`: S14 alone, its own report and result file (nothing else was seeded or measured). */
export async function reportTaskCreatesAlone(runs: readonly CreateRun[], options: BenchOptions, startedAt: Date, log: (message: string) => void): Promise<void> {
  const goals = [taskCreatesGoal(runs), hookCostGoal(runs), limitedPlanGoal(runs)];
  process.stdout.write(`## Benchmark (S14 alone: ${options.rounds} rounds, warm-up ${options.warmupSeconds} s, measure ${options.measureSeconds} s)\n${renderTaskCreates(runs)}\n\n### Goals\n${goals.map((goal) => `- ${goal.text}: ${goal.shown} → ${goal.pass ? 'PASS' : 'FAIL'}`).join('\n')}\n`);
  const environment = describeEnvironment(await serverVersion(options.databaseUrl));
  const resultsDir = path.join(repoRoot, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${startedAt.toISOString().replaceAll(':', '-')}-tasks-create.json`);
  await writeFile(file, `${JSON.stringify({ startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), options, environment, taskCreates: runs, goals }, null, 2)}\n`);
  log(`results written to ${path.relative(repoRoot, file)}`);
  const failed = goals.filter((goal) => goal.kind !== 'performance' && !goal.pass);
  if (failed.length) {
    log(`FAILED limits: ${failed.map((goal) => `${goal.text} (${goal.shown})`).join('; ')}`);
    process.exitCode = 1;
  }
}
