// Turns the samples of all rounds into the summary: medians per scenario and target, ratios between
// targets measured side by side, and the issue's goals. Rendered as markdown for stdout.
import type { LoadResult } from './load.js';
import type { BenchOptions } from './options.js';
import type { ScenarioId, TargetId } from './scenarios.js';
import { median, spreadPercent } from './stats.js';

export type Phase = 'warmup' | 'throughput' | 'latency';

export interface Sample extends LoadResult {
  round: number;
  scenario: ScenarioId;
  target: TargetId;
  phase: Phase;
}

export interface Row {
  scenario: ScenarioId;
  target: TargetId;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  spreadPercent: number;
  flagged: boolean;
  latency?: { reqPerSec: number; p50Ms: number; p99Ms: number; spreadPercent: number };
}

export interface Ratio {
  label: string;
  scenario: string;
  /** Median over rounds of the ratio measured within each round, so slow drift between rounds cancels. */
  median: number;
  min: number;
  max: number;
}

export interface Goal {
  text: string;
  ratio: string;
  threshold: number;
  value: number;
  pass: boolean;
}

export interface Summary {
  rows: Row[];
  ratios: Ratio[];
  goals: Goal[];
}

const spreadLimit = 10;

const order: [ScenarioId, TargetId][] = [
  ['healthz', 'raw'],
  ['healthz', 'rest'],
  ['healthz', 'rest-pglite'],
  ['session-rest', 'raw'],
  ['session-rest', 'rest'],
  ['session-rest', 'rest-pglite'],
  ['session-graphql', 'graphql'],
];

function pick(samples: readonly Sample[], scenario: ScenarioId, target: TargetId, phase: Phase): Sample[] {
  return samples.filter((s) => s.scenario === scenario && s.target === target && s.phase === phase);
}

function row(samples: readonly Sample[], scenario: ScenarioId, target: TargetId): Row | undefined {
  const runs = pick(samples, scenario, target, 'throughput');
  if (!runs.length) return undefined;
  const spread = spreadPercent(runs.map((s) => s.reqPerSec));
  const latencyRuns = pick(samples, scenario, target, 'latency');
  return {
    scenario,
    target,
    reqPerSec: median(runs.map((s) => s.reqPerSec)),
    p50Ms: median(runs.map((s) => s.p50Ms)),
    p99Ms: median(runs.map((s) => s.p99Ms)),
    spreadPercent: spread,
    flagged: spread > spreadLimit,
    latency: latencyRuns.length
      ? {
          reqPerSec: median(latencyRuns.map((s) => s.reqPerSec)),
          p50Ms: median(latencyRuns.map((s) => s.p50Ms)),
          p99Ms: median(latencyRuns.map((s) => s.p99Ms)),
          spreadPercent: spreadPercent(latencyRuns.map((s) => s.reqPerSec)),
        }
      : undefined,
  };
}

function ratio(samples: readonly Sample[], label: string, scenario: string, top: [ScenarioId, TargetId], bottom: [ScenarioId, TargetId]): Ratio | undefined {
  const tops = pick(samples, ...top, 'throughput');
  const bottoms = pick(samples, ...bottom, 'throughput');
  const perRound = tops.flatMap((t) => {
    const b = bottoms.find((s) => s.round === t.round);
    return b ? [t.reqPerSec / b.reqPerSec] : [];
  });
  if (!perRound.length) return undefined;
  return { label, scenario, median: median(perRound), min: Math.min(...perRound), max: Math.max(...perRound) };
}

export function summarize(samples: readonly Sample[]): Summary {
  const rows = order.flatMap(([scenario, target]) => row(samples, scenario, target) ?? []);
  const ratios = [
    ratio(samples, 'rest / graphql', 'session', ['session-rest', 'rest'], ['session-graphql', 'graphql']),
    ratio(samples, 'graphql / raw', 'session', ['session-graphql', 'graphql'], ['session-rest', 'raw']),
    ratio(samples, 'rest / raw', 'session', ['session-rest', 'rest'], ['session-rest', 'raw']),
    ratio(samples, 'rest / raw', 'healthz', ['healthz', 'rest'], ['healthz', 'raw']),
    ratio(samples, 'rest-pglite / rest', 'session', ['session-rest', 'rest-pglite'], ['session-rest', 'rest']),
    ratio(samples, 'rest-pglite / rest', 'healthz', ['healthz', 'rest-pglite'], ['healthz', 'rest']),
  ].filter((r): r is Ratio => r !== undefined);
  const goal = (text: string, label: string, threshold: number): Goal => {
    const value = ratios.find((r) => r.label === label && r.scenario === 'session')?.median ?? Number.NaN;
    return { text, ratio: label, threshold, value, pass: value >= threshold };
  };
  const goals = [
    goal('REST session ≥ 0.85× GraphQL session req/s', 'rest / graphql', 0.85),
    goal('GraphQL session ≥ 0.40× raw session req/s', 'graphql / raw', 0.4),
  ];
  return { rows, ratios, goals };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => n.toFixed(2);
const x = (n: number) => n.toFixed(2);

export function renderMarkdown(summary: Summary, options: BenchOptions): string {
  const lines: string[] = [];
  const mode = options.quick ? 'quick' : 'full';
  lines.push(`## Benchmark (${mode}: ${options.rounds} rounds, warm-up ${options.warmupSeconds} s, measure ${options.measureSeconds} s, ${options.connections} connections)`);
  lines.push('');
  lines.push(`| Scenario | Target | req/s | p50 ms | p99 ms | spread | 1-conn req/s | 1-conn p50 ms | 1-conn p99 ms |`);
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of summary.rows) {
    const spread = `${r.spreadPercent.toFixed(1)}%${r.flagged ? ' ⚠' : ''}`;
    const l = r.latency;
    lines.push(
      `| ${r.scenario} | ${r.target} | ${int(r.reqPerSec)} | ${ms(r.p50Ms)} | ${ms(r.p99Ms)} | ${spread} | ${l ? int(l.reqPerSec) : '–'} | ${l ? ms(l.p50Ms) : '–'} | ${l ? ms(l.p99Ms) : '–'} |`,
    );
  }
  const flagged = summary.rows.filter((r) => r.flagged);
  if (flagged.length) {
    lines.push('');
    lines.push(`⚠ spread above ${spreadLimit}% (rounds disagree; treat these medians with care): ${flagged.map((r) => `${r.scenario}/${r.target}`).join(', ')}`);
  }
  lines.push('');
  lines.push('| Ratio (req/s) | Scenario | median | per-round range |');
  lines.push('|---|---|---:|---:|');
  for (const r of summary.ratios) lines.push(`| ${r.label} | ${r.scenario} | ${x(r.median)} | ${x(r.min)}–${x(r.max)} |`);
  lines.push('');
  lines.push('### Goals');
  for (const g of summary.goals) lines.push(`- ${g.text}: ${x(g.value)} → ${g.pass ? 'PASS' : 'FAIL'}`);
  return lines.join('\n');
}
