// Backup and restore timed (issue 38), on PostgreSQL: with a team's 100k tasks seeded (bench/data-safety.ts;
// in a full run the database holds what the scenarios before it seeded too, reported as rows), the CLI
// as an operator runs it, `npm run -s cli -- backup <file> --json` with DATABASE_URL naming the bench
// database, then `restore <file> --json` into a fresh empty database (created for it, checked to hold
// as many tasks as the source, dropped). Each command runs under GNU time (`/usr/bin/time`, Debian's
// `time` package) for its peak RSS: the largest of its processes (npm, tsx, the command's node), the
// command's own. Reported per round: seconds (wall, with npm and tsx starting; and the command's own
// count), the file's size and the peak RSS of each. No goal: the issue asks for the timing.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { recreateDatabase, withClient } from './database.js';
import type { BenchOptions } from './options.js';
import type { Goal } from './report.js';
import { median } from './stats.js';
import { repoRoot } from './targets.js';

export type BackupCommand = 'backup' | 'restore';

export interface BackupRun {
  round: number;
  command: BackupCommand;
  /** Tasks in the database backed up (the scenario's 100k, and in a full run what ran before seeded). */
  tasks: number;
  /** Wall time of `npm run -s cli -- <command>`, npm and tsx starting included. */
  seconds: number;
  /** The seconds the command itself reports (database and file work only). */
  commandSeconds: number;
  rows: number;
  tables: number;
  /** The backup file's size. */
  fileBytes: number;
  /** Peak resident memory of the command's largest process (GNU time's %M); null without /usr/bin/time. */
  peakRssMb: number | null;
}

const gnuTime = '/usr/bin/time';

interface CliReport {
  tables: number;
  rows: number;
  bytes: number;
  seconds: number;
}

/** Runs `npm run -s cli -- <command> <file> --json` against `databaseUrl`; its report, wall seconds and peak RSS. */
async function runCli(command: BackupCommand, file: string, databaseUrl: string, uploadDir: string, scratch: string): Promise<{ report: CliReport; seconds: number; peakRssMb: number | null }> {
  const timeFile = path.join(scratch, `${command}.time`);
  const timed = existsSync(gnuTime);
  const npm = ['npm', 'run', '-s', 'cli', '--', command, file, '--json'];
  const [program, ...args] = timed ? [gnuTime, '-f', '%M', '-o', timeFile, ...npm] : npm;
  const env = { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: undefined, UPLOAD_DIR: uploadDir, LOG_LEVEL: 'silent' };
  const started = performance.now();
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(program!, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('close', (exit) => resolve({ code: exit, stdout: out, stderr: err }));
  });
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`cli ${command}: exit ${code}\n${stderr}${stdout.slice(-2000)}`);
  const line = stdout.trim().split('\n').findLast((l) => l.startsWith('{'));
  if (!line) throw new Error(`cli ${command}: no JSON report in ${stdout.slice(-500)}`);
  const report = JSON.parse(line) as CliReport;
  const peakKb = timed ? Number((await readFile(timeFile, 'utf8')).trim().split('\n').pop()) : Number.NaN;
  return { report, seconds, peakRssMb: Number.isFinite(peakKb) ? peakKb / 1024 : null };
}

const countTasks = (url: string) => withClient(url, async (c) => (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM tasks')).rows[0]!.n);

async function dropDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  const name = decodeURIComponent(admin.pathname.slice(1));
  admin.pathname = '/postgres';
  await withClient(admin.toString(), (c) => c.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`));
}

/** Rounds of backup then restore (into `<bench database>_restore`, dropped after each). */
export async function measureBackups(options: BenchOptions, log: (message: string) => void): Promise<BackupRun[]> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-backup-'));
  const restoreUrl = new URL(options.databaseUrl);
  restoreUrl.pathname = `${restoreUrl.pathname}_restore`;
  const runs: BackupRun[] = [];
  try {
    const sourceTasks = await countTasks(options.databaseUrl);
    // One round on --quick: each backs up and restores the whole database.
    const rounds = options.quick ? 1 : options.rounds;
    for (let round = 1; round <= rounds; round++) {
      const file = path.join(scratch, `round-${round}.tgz`);
      const backup = await runCli('backup', file, options.databaseUrl, path.join(scratch, 'uploads'), scratch);
      const fileBytes = (await stat(file)).size;
      runs.push({ round, command: 'backup', tasks: sourceTasks, seconds: backup.seconds, commandSeconds: backup.report.seconds, rows: backup.report.rows, tables: backup.report.tables, fileBytes, peakRssMb: backup.peakRssMb });
      await recreateDatabase(restoreUrl.toString());
      try {
        const restore = await runCli('restore', file, restoreUrl.toString(), path.join(scratch, 'restored-uploads'), scratch);
        // A correctness check: the restored database holds every task.
        const restoredTasks = await countTasks(restoreUrl.toString());
        if (restoredTasks !== sourceTasks) throw new Error(`backup: restored ${restoredTasks} tasks of ${sourceTasks}`);
        runs.push({ round, command: 'restore', tasks: sourceTasks, seconds: restore.seconds, commandSeconds: restore.report.seconds, rows: restore.report.rows, tables: restore.report.tables, fileBytes, peakRssMb: restore.peakRssMb });
      } finally {
        await dropDatabase(restoreUrl.toString());
      }
      await rm(file, { force: true });
      for (const r of runs.filter((r) => r.round === round))
        log(`round ${round} ${r.command} of ${sourceTasks} tasks (${r.rows} rows, ${r.tables} tables, file ${(r.fileBytes / 1_048_576).toFixed(1)} MiB): ${r.seconds.toFixed(1)} s (the command's own ${r.commandSeconds.toFixed(1)} s), peak RSS ${r.peakRssMb?.toFixed(0) ?? '?'} MiB`);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return runs;
}

/** Reported, never passed or failed: the median seconds of each command. */
export function backupGoals(runs: readonly BackupRun[]): Goal[] {
  return (['backup', 'restore'] as const).flatMap((command) => {
    const of = runs.filter((r) => r.command === command);
    if (!of.length) return [];
    const value = median(of.map((r) => r.seconds));
    const peak = of.map((r) => r.peakRssMb).filter((mb): mb is number => mb !== null);
    const shown = `${value.toFixed(1)} s, file ${(median(of.map((r) => r.fileBytes)) / 1_048_576).toFixed(1)} MiB, ${of[0]!.rows} rows${peak.length ? `, peak RSS ${Math.max(...peak).toFixed(0)} MiB` : ''}`;
    return [{ text: `${command} of the bench database, ${of[0]!.tasks} tasks (npm run -s cli -- ${command})`, threshold: Number.NaN, value, shown, pass: true, kind: 'report' as const }];
  });
}

export function renderBackups(runs: readonly BackupRun[]): string {
  if (!runs.length) return '';
  const lines = ['', 'Backup and restore: `npm run -s cli -- backup|restore <file>` on PostgreSQL (restore into a fresh empty database); seconds with npm and tsx starting, and the command’s own.', ''];
  lines.push('| Command | seconds | own seconds | rows | tables | file MiB | peak RSS MiB | per round seconds |', '|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const command of ['backup', 'restore'] as const) {
    const of = runs.filter((r) => r.command === command);
    if (!of.length) continue;
    const peak = of.map((r) => r.peakRssMb).filter((mb): mb is number => mb !== null);
    lines.push(
      `| ${command} | ${median(of.map((r) => r.seconds)).toFixed(1)} | ${median(of.map((r) => r.commandSeconds)).toFixed(1)} | ${of[0]!.rows} | ${of[0]!.tables} | ${(median(of.map((r) => r.fileBytes)) / 1_048_576).toFixed(1)} | ${peak.length ? Math.max(...peak).toFixed(0) : 'n/a'} | ${of.map((r) => r.seconds.toFixed(1)).join(', ')} |`,
    );
  }
  return lines.join('\n');
}
