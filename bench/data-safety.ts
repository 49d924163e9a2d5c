// Issue 38's bench goals (nothing lost: history, export, backups), opt-in scenarios on PostgreSQL with
// their own data: one account, one team and a `tasks:read tasks:write` key made through the product's
// API, and the team's 100k tasks seeded in SQL as S14's (bench/task-creates.ts). Then, each selected:
//   backup          npm run -s cli -- backup / restore timed (bench/backup-timing.ts), reported;
//   export-rss      the export of the 100k tasks, ndjson and csv, on a fresh server, RSS growth < 50 MB (bench/export-stream.ts);
//   history-update  PATCH on the 100k team with history as shipped and off (bench/no-history.mjs), ≥ 0.85 (bench/history-update.ts).
// `--only=` any of them alone reports them alone (nothing else seeded or measured).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { backupGoals, measureBackups, renderBackups, type BackupRun } from './backup-timing.js';
import { serverVersion, withClient } from './database.js';
import { describeEnvironment } from './environment.js';
import { exportGoal, exportedTasks, measureExports, renderExports, type ExportRun } from './export-stream.js';
import { historyGoal, measureHistoryUpdates, renderHistoryUpdates, type HistoryRun, type HistorySeed } from './history-update.js';
import { selected, type BenchOptions } from './options.js';
import type { Goal } from './report.js';
import { fetchSessionData, obtainSessionCookie, type Account } from './session.js';
import { repoRoot, startServer, type RunningServer, type ServerSpec } from './targets.js';
import { seedSql } from './task-creates.js';

export const dataSafetyScenarios = ['history-update', 'export-rss', 'backup'] as const;

export interface DataSafetyResults {
  history: HistoryRun[];
  exports: ExportRun[];
  backups: BackupRun[];
}

export const noDataSafety = (): DataSafetyResults => ({ history: [], exports: [], backups: [] });

/** Whether the run measures any of them (the full run does, as `--only` naming one). */
export const dataSafetySelected = (options: BenchOptions) => dataSafetyScenarios.some((id) => selected(options, id));

/** Whether `--only` asks for these scenarios and nothing else. */
export const dataSafetyAlone = (options: BenchOptions) => Boolean(options.only?.every((id) => dataSafetyScenarios.some((scenario) => scenario.startsWith(id))));

const account: Account = { email: 'bench-data-safety@example.com', password: 'benchpassword', firstName: 'Data', lastName: 'Safety' };

async function post(baseUrl: string, route: string, cookie: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${route}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  const parsed = JSON.parse(text) as { success?: boolean; data?: Record<string, unknown> };
  if (response.status !== 201 || parsed.success !== true || !parsed.data) throw new Error(`POST ${route}: ${response.status} ${text.slice(0, 500)}`);
  return parsed.data;
}

/** The account, its team and key through the product's API; the team's 100k tasks in SQL (as the owner: no RLS, no plan limit). */
async function seed(server: RunningServer, databaseUrl: string): Promise<HistorySeed> {
  const cookie = await obtainSessionCookie(server.baseUrl, account);
  const session = await fetchSessionData(server.baseUrl, cookie, account.email);
  const teamId = String((await post(server.baseUrl, '/api/v1/teams', cookie, { name: 'Data safety 100k', slug: 'bench-data-safety' })).id);
  const key = String((await post(server.baseUrl, '/api/v1/api-keys', cookie, { name: 'bench-data-safety', scopes: ['tasks:read', 'tasks:write'] })).key);
  await withClient(databaseUrl, async (c) => {
    await c.query(seedSql, [teamId, session.user.id, exportedTasks]);
    await c.query('VACUUM ANALYZE tasks');
  });
  return { userId: session.user.id, key, teamId };
}

async function withServer<T>(spec: ServerSpec, work: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(spec);
  try {
    return await work(server);
  } finally {
    await server.stop();
  }
}

/**
 * The selected scenarios on the database of `options` (migrated by the first server): `product` is
 * the product on PostgreSQL, `noHistory` the same with bench/no-history.mjs preloaded.
 */
export async function measureDataSafety(product: ServerSpec, noHistory: ServerSpec, options: BenchOptions, log: (message: string) => void): Promise<DataSafetyResults> {
  const results = noDataSafety();
  log(`data safety: seeding an account, a team and its ${exportedTasks / 1000}k tasks`);
  const seeded = await withServer(product, (server) => seed(server, options.databaseUrl));
  if (selected(options, 'backup')) {
    log('data safety: backup and restore through the CLI');
    results.backups = await measureBackups(options, log);
  }
  if (selected(options, 'export-rss')) {
    log('data safety: exports on a product server of its own');
    results.exports = await withServer(product, (server) => measureExports(server, options, seeded, log));
  }
  if (selected(options, 'history-update')) {
    log('data safety: UPDATE with record history and without, on two instances of this build');
    results.history = await withServer(product, (kept) => withServer(noHistory, (none) => measureHistoryUpdates(kept, none, options, seeded, log)));
  }
  return results;
}

/** The goals of the scenarios measured (a scenario not selected has none). */
export function dataSafetyGoals(results: DataSafetyResults): Goal[] {
  return [historyGoal(results.history), exportGoal(results.exports), ...backupGoals(results.backups)].filter((g) => Number.isFinite(g.value));
}

export const renderDataSafety = (results: DataSafetyResults) => [renderHistoryUpdates(results.history), renderExports(results.exports), renderBackups(results.backups)].filter(Boolean).join('\n');

/** `--only=` these alone: their own report and result file. */
export async function reportDataSafetyAlone(results: DataSafetyResults, options: BenchOptions, startedAt: Date, log: (message: string) => void): Promise<void> {
  const goals = dataSafetyGoals(results);
  const verdict = (g: Goal) => (g.kind === 'report' ? 'reported' : g.pass ? 'PASS' : 'FAIL');
  process.stdout.write(
    `## Benchmark (issue 38 alone: ${options.rounds} rounds, warm-up ${options.warmupSeconds} s, measure ${options.measureSeconds} s)\n${renderDataSafety(results)}\n\n### Goals\n${goals.map((g) => `- ${g.text}: ${g.shown} → ${verdict(g)}`).join('\n')}\n`,
  );
  const environment = describeEnvironment(await serverVersion(options.databaseUrl));
  const resultsDir = path.join(repoRoot, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${startedAt.toISOString().replaceAll(':', '-')}-data-safety.json`);
  await writeFile(file, `${JSON.stringify({ startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), options, environment, dataSafety: results, goals }, null, 2)}\n`);
  log(`results written to ${path.relative(repoRoot, file)}`);
  const failed = goals.filter((g) => g.kind !== 'report' && !g.pass);
  if (failed.length) {
    log(`FAILED limits: ${failed.map((g) => `${g.text} (${g.shown})`).join('; ')}`);
    process.exitCode = 1;
  }
}
