// What record history costs on UPDATE (issue 38): `PATCH /api/v1/tasks/{id}` with an API key naming the
// team (x-team-id), at 8 connections, into a team of 100k tasks seeded in SQL (bench/data-safety.ts),
// each holding its creation's version as a team whose tasks were created through the API would. Two
// instances of the same build on the same database: the product as it ships (history on by default,
// `keep: '90d'`: every update writes a version in its transaction) and one whose `tasks` definition has
// `history: { keep: false }` from a preload (bench/no-history.mjs). In every round each is measured
// once, which goes first alternating round by round; every run starts from the same tables (the
// versions the updates wrote deleted, tasks and record_history vacuumed). The PATCHes spread over
// 5,000 of the team's tasks (request n goes to task n mod 5,000, so no row is hammered) and each sets
// a title never sent before and the next status: every update changes two fields. Goal: updates/s
// with history ≥ 0.85 of without (≤ 15% cost), median of the per-round ratios.
import { cpuMs } from './cpu.js';
import { waitForIdleDatabase, withClient } from './database.js';
import { runLoad } from './load.js';
import type { BenchOptions } from './options.js';
import type { Goal } from './report.js';
import { median, spreadPercent } from './stats.js';
import type { RunningServer } from './targets.js';
import { databaseCpuMs, databaseCpuSince } from './task-creates.js';

/** Concurrent updates: the product's pool (8), as S14. */
export const updateConnections = 8;
/** Updates/s with history must be at least this share of updates/s without. */
export const historyGoalRatio = 0.85;
/** The tasks updated, in turn. */
export const updatedTasks = 5_000;

export interface HistorySeed {
  userId: string;
  key: string;
  teamId: string;
}

export interface HistoryRun {
  round: number;
  /** Measured on the product as it ships (history kept), else on the instance without. */
  history: boolean;
  updates: number;
  updatesPerSec: number;
  p50Ms: number;
  p99Ms: number;
  serverCpuMsPerUpdate: number;
  /** CPU of the PostgreSQL backends serving the product, per update (where a version's INSERT is paid). */
  databaseCpuMsPerUpdate: number;
  /** Versions the run wrote (0 without history: checked). */
  versions: number;
}

const statuses = ['todo', 'in-progress', 'review', 'done', 'blocked'];

/**
 * Each task's creation version (version 1, operation `create`), in SQL, as the product keeps one for
 * a task created through the API: the updates' versions follow it (max(version) + 1 over an index of
 * 100k records' versions, not an empty table).
 */
async function seedVersions(url: string, seed: HistorySeed): Promise<void> {
  await withClient(url, async (c) => {
    await c.query(
      `INSERT INTO record_history (team_id, entity, record_id, version, operation, data, changed_fields, owner_id, actor_user_id, actor_key_id, face, created_at)
       SELECT t.team_id, 'tasks', t.id, 1, 'create',
              jsonb_build_object('id', t.id, 'teamId', t.team_id, 'userId', t.user_id, 'title', t.title, 'description', t.description, 'status', t.status,
                                 'priority', t.priority, 'tags', t.tags, 'dueDate', t.due_date, 'estimatedHours', t.estimated_hours, 'completed', t.completed,
                                 'metas', t.metas, 'createdAt', t.created_at, 'updatedAt', t.updated_at),
              ARRAY['title', 'description', 'status', 'priority', 'tags', 'dueDate', 'estimatedHours'], NULL, t.user_id, NULL, 'rest', t.created_at
         FROM tasks t WHERE t.team_id = $1::uuid`,
      [seed.teamId],
    );
    await c.query('VACUUM ANALYZE record_history');
  });
}

/** The updated tasks' ids: spread over the table (uuid order is random order). */
async function taskIds(url: string, seed: HistorySeed): Promise<string[]> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ id: string }>('SELECT id::text FROM tasks WHERE team_id = $1::uuid ORDER BY id LIMIT $2', [seed.teamId, updatedTasks]);
    if (rows.length < updatedTasks) throw new Error(`history-update: the team holds ${rows.length} tasks, fewer than ${updatedTasks}`);
    return rows.map((r) => r.id);
  });
}

const countVersions = (url: string, seed: HistorySeed) =>
  withClient(url, async (c) => (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM record_history WHERE team_id = $1::uuid AND entity = 'tasks' AND version > 1`, [seed.teamId])).rows[0]!.n);

/** Back to the creation versions only, tables vacuumed: every run starts alike. */
async function reset(url: string, seed: HistorySeed): Promise<void> {
  await waitForIdleDatabase(url);
  await withClient(url, async (c) => {
    await c.query(`DELETE FROM record_history WHERE team_id = $1::uuid AND entity = 'tasks' AND version > 1`, [seed.teamId]);
    await c.query('VACUUM ANALYZE tasks');
    await c.query('VACUUM ANALYZE record_history');
  });
}

/** The load: request n patches task n mod 5,000 with a title never sent before and the next status. */
function updateLoad(server: RunningServer, seed: HistorySeed, ids: readonly string[]) {
  const headers = { authorization: `Bearer ${seed.key}`, 'x-team-id': seed.teamId, 'content-type': 'application/json' };
  const verify = (body: string) => body.startsWith('{"success":true,"data":{') && body.includes(`"teamId":"${seed.teamId}"`);
  return {
    baseUrl: server.baseUrl,
    requests: [{ method: 'PATCH' as const, path: `/api/v1/tasks/${ids[0]}`, headers }],
    fresh: (n: number) => `/api/v1/tasks/${ids[n % ids.length]}`,
    freshBody: (n: number) => Buffer.from(JSON.stringify({ title: `Edited by the bench #${n}`, status: statuses[n % statuses.length] })),
    connections: updateConnections,
    verify,
  };
}

async function measureOne(server: RunningServer, options: BenchOptions, seed: HistorySeed, ids: readonly string[], round: number, history: boolean): Promise<HistoryRun> {
  const load = updateLoad(server, seed, ids);
  await reset(options.databaseUrl, seed);
  await runLoad({ ...load, seconds: options.warmupSeconds, warmup: true });
  await waitForIdleDatabase(options.databaseUrl);
  const versionsBefore = await countVersions(options.databaseUrl, seed);
  const databaseBefore = await databaseCpuMs(options.databaseUrl);
  const before = await cpuMs(server.pid);
  const run = await runLoad({ ...load, seconds: options.measureSeconds });
  const updates = Math.max(1, run.requests);
  const serverCpuMsPerUpdate = ((await cpuMs(server.pid)) - before) / updates;
  const databaseCpuMsPerUpdate = (await databaseCpuSince(options.databaseUrl, databaseBefore)) / updates;
  await waitForIdleDatabase(options.databaseUrl);
  const versions = (await countVersions(options.databaseUrl, seed)) - versionsBefore;
  // A correctness check: the shipped product keeps a version per update, the other none.
  if (!history && versions !== 0) throw new Error(`history-update: the instance without history wrote ${versions} versions`);
  if (history && versions < run.requests) throw new Error(`history-update: ${run.requests} updates answered but ${versions} versions written`);
  return { round, history, updates: run.requests, updatesPerSec: run.reqPerSec, p50Ms: run.p50Ms, p99Ms: run.p99Ms, serverCpuMsPerUpdate, databaseCpuMsPerUpdate, versions };
}

/** The scenario on two running instances of this build (`kept`: as shipped; `none`: no-history preload), same database. */
export async function measureHistoryUpdates(kept: RunningServer, none: RunningServer, options: BenchOptions, seed: HistorySeed, log: (message: string) => void): Promise<HistoryRun[]> {
  await seedVersions(options.databaseUrl, seed);
  const ids = await taskIds(options.databaseUrl, seed);
  // Both warmed before round 1 (a fresh server's first seconds are slower).
  for (const server of [kept, none]) await runLoad({ ...updateLoad(server, seed, ids), seconds: options.warmupSeconds, warmup: true });
  const runs: HistoryRun[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const history of round % 2 ? [true, false] : [false, true]) {
      const run = await measureOne(history ? kept : none, options, seed, ids, round, history);
      runs.push(run);
      log(
        `round ${round} history-update ${history ? 'with' : 'without'} history on rest (${updateConnections} connections): ${Math.round(run.updatesPerSec)} updates/s, p50 ${run.p50Ms.toFixed(1)} ms, p99 ${run.p99Ms.toFixed(1)} ms, server CPU ${run.serverCpuMsPerUpdate.toFixed(2)} ms/update, PostgreSQL CPU ${run.databaseCpuMsPerUpdate.toFixed(2)} ms/update, ${run.versions} versions written`,
      );
    }
  }
  await reset(options.databaseUrl, seed);
  await withClient(options.databaseUrl, (c) => c.query(`DELETE FROM record_history WHERE team_id = $1::uuid AND entity = 'tasks'`, [seed.teamId]));
  return runs;
}

/** Per round, updates/s with history over without. */
export function historyRatios(runs: readonly HistoryRun[]): number[] {
  return [...new Set(runs.map((r) => r.round))].flatMap((round) => {
    const kept = runs.find((r) => r.round === round && r.history)?.updatesPerSec;
    const none = runs.find((r) => r.round === round && !r.history)?.updatesPerSec;
    return kept !== undefined && none ? [kept / none] : [];
  });
}

export function historyGoal(runs: readonly HistoryRun[]): Goal {
  const value = median(historyRatios(runs));
  return {
    text: `tasks UPDATE at 100k (REST, ${updateConnections} connections): updates/s with record history ≥ ${historyGoalRatio} of without`,
    threshold: historyGoalRatio,
    value,
    shown: Number.isNaN(value) ? 'not measured' : value.toFixed(2),
    pass: value >= historyGoalRatio,
    kind: 'limit',
  };
}

export function renderHistoryUpdates(runs: readonly HistoryRun[]): string {
  if (!runs.length) return '';
  const lines = ['', `Record history on UPDATE: PATCH /api/v1/tasks/{id} (title and status) with an API key, ${updateConnections} connections, over ${updatedTasks} of a team's 100k tasks.`, ''];
  lines.push('| History | updates/s | spread | p50 ms | p99 ms | server CPU ms/update | PostgreSQL CPU ms/update | per round updates/s |', '|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const history of [true, false]) {
    const of = runs.filter((r) => r.history === history);
    if (!of.length) continue;
    const m = (pick: (r: HistoryRun) => number) => median(of.map(pick));
    lines.push(
      `| ${history ? "kept (keep: '90d')" : 'off (keep: false)'} | ${m((r) => r.updatesPerSec).toFixed(0)} | ${spreadPercent(of.map((r) => r.updatesPerSec)).toFixed(1)}% | ${m((r) => r.p50Ms).toFixed(1)} | ${m((r) => r.p99Ms).toFixed(1)} | ${m((r) => r.serverCpuMsPerUpdate).toFixed(2)} | ${m((r) => r.databaseCpuMsPerUpdate).toFixed(2)} | ${of.map((r) => r.updatesPerSec.toFixed(0)).join(', ')} |`,
    );
  }
  lines.push('', `updates/s with history / without, per round: ${historyRatios(runs).map((r) => r.toFixed(2)).join(', ')}`);
  return lines.join('\n');
}
