// The export's memory (issue 38): a team's 100k tasks (seeded in SQL, bench/data-safety.ts) streamed by
// `GET /api/v1/tasks/export?format=ndjson` and `format=csv` with an API key naming the team, from a
// product server of its own on PostgreSQL (freshly started: its memory is the exports', nothing else's),
// its resident memory sampled meanwhile (rss.ts: VmRSS every 20 ms and VmHWM reset at the start). The
// server is warmed by a small export first; then every round exports both formats (which goes first
// alternating), the very first full export counted like the others: a server's heap grows to the work's
// size once, and that growth is part of what an export costs. Goal, a limit: the RSS growth (peak minus
// before) of every export < 50 MB, whatever the count (the product reads and writes in batches).
import { readRss, sampleRss } from './rss.js';
import type { BenchOptions } from './options.js';
import type { Goal } from './report.js';
import { median } from './stats.js';
import type { RunningServer } from './targets.js';

export const exportedTasks = 100_000;
export const exportRssLimitMb = 50;
export const exportFormats = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof exportFormats)[number];

export interface ExportSeed {
  key: string;
  teamId: string;
}

export interface ExportRun {
  round: number;
  format: ExportFormat;
  /** Lines received (csv: the header too). */
  lines: number;
  bytes: number;
  seconds: number;
  rssBeforeMb: number;
  peakMb: number;
  /** Peak minus before. */
  growthMb: number;
  /** Resident memory once the export ended. */
  afterMb: number;
}

const headersOf = (seed: ExportSeed) => ({ authorization: `Bearer ${seed.key}`, 'x-team-id': seed.teamId });

/** Streams one export, counting its lines as they arrive (nothing kept). */
async function streamExport(baseUrl: string, seed: ExportSeed, format: ExportFormat): Promise<{ lines: number; bytes: number; seconds: number }> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/v1/tasks/export?format=${format}`, { headers: headersOf(seed) });
  if (response.status !== 200 || !response.body) throw new Error(`export ${format}: ${response.status} ${await response.text()}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    // Native search, not a JS loop over bytes: the client takes as little of the two cores as it can.
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let at = buffer.indexOf(0x0a); at !== -1; at = buffer.indexOf(0x0a, at + 1)) lines++;
  }
  return { lines, bytes, seconds: (performance.now() - started) / 1000 };
}

/** The scenario on a freshly started product whose team `seed.teamId` holds exactly the 100k tasks. */
export async function measureExports(server: RunningServer, options: BenchOptions, seed: ExportSeed, log: (message: string) => void): Promise<ExportRun[]> {
  // Warm: modules loaded, pools and caches filled, by a small export of each format.
  for (const format of exportFormats) {
    const warm = await fetch(`${server.baseUrl}/api/v1/tasks/export?format=${format}&status=done&estimatedHours=1`, { headers: headersOf(seed) });
    await warm.text();
    if (warm.status !== 200) throw new Error(`export warm-up (${format}): ${warm.status}`);
  }
  const runs: ExportRun[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const format of round % 2 ? exportFormats : [...exportFormats].reverse()) {
      const before = await readRss(server.pid);
      const sampler = await sampleRss(server.pid);
      const streamed = await streamExport(server.baseUrl, seed, format);
      const peak = await sampler.stop();
      const expected = exportedTasks + (format === 'csv' ? 1 : 0);
      // A correctness check: every task, once (a line each; csv values here hold no line breaks).
      if (streamed.lines !== expected) throw new Error(`export ${format}: ${streamed.lines} lines, expected ${expected}`);
      const run: ExportRun = { round, format, ...streamed, rssBeforeMb: before.rssMb, peakMb: peak.peakMb, growthMb: peak.peakMb - before.rssMb, afterMb: peak.endMb };
      runs.push(run);
      log(
        `round ${round} export-rss ${format}: ${exportedTasks} tasks, ${(run.bytes / 1_048_576).toFixed(1)} MiB in ${run.seconds.toFixed(1)} s; server RSS before ${run.rssBeforeMb.toFixed(1)} MiB, peak ${run.peakMb.toFixed(1)} MiB (growth ${run.growthMb.toFixed(1)} MiB), after ${run.afterMb.toFixed(1)} MiB`,
      );
    }
  }
  return runs;
}

export function exportGoal(runs: readonly ExportRun[]): Goal {
  const value = runs.length ? Math.max(...runs.map((r) => r.growthMb)) : Number.NaN;
  return {
    text: `export of ${exportedTasks / 1000}k tasks (ndjson and csv): the server's RSS grows < ${exportRssLimitMb} MB (largest growth of every export)`,
    threshold: exportRssLimitMb,
    value,
    shown: Number.isNaN(value) ? 'not measured' : `${value.toFixed(1)} MB`,
    pass: value < exportRssLimitMb,
    kind: 'limit',
  };
}

export function renderExports(runs: readonly ExportRun[]): string {
  if (!runs.length) return '';
  const lines = ['', `Export: GET /api/v1/tasks/export of a team's ${exportedTasks / 1000}k tasks with an API key, on a product server of its own; RSS growth = peak while streaming − before.`, ''];
  lines.push('| Format | seconds | MiB | tasks/s | RSS growth MiB (largest) | per export growth MiB | RSS before → after MiB (last) |', '|---|---:|---:|---:|---:|---:|---:|');
  for (const format of exportFormats) {
    const of = runs.filter((r) => r.format === format);
    if (!of.length) continue;
    const last = of[of.length - 1]!;
    const seconds = median(of.map((r) => r.seconds));
    lines.push(
      `| ${format} | ${seconds.toFixed(1)} | ${(median(of.map((r) => r.bytes)) / 1_048_576).toFixed(1)} | ${(exportedTasks / seconds).toFixed(0)} | ${Math.max(...of.map((r) => r.growthMb)).toFixed(1)} | ${of.map((r) => r.growthMb.toFixed(1)).join(', ')} | ${last.rssBeforeMb.toFixed(0)} → ${last.afterMb.toFixed(0)} |`,
    );
  }
  return lines.join('\n');
}
