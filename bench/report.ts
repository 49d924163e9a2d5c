// Turns the samples of all rounds into the summary: medians per scenario and target, ratios between
// targets measured side by side, the rate-limit checks, and the issues' goals. Rendered as markdown
// for stdout.
import type { LoadResult } from './load.js';
import type { BenchOptions } from './options.js';
import type { RateLimitCheck } from './rate-limit.js';
import { floodConnections, type ScenarioId, type TargetId } from './scenarios.js';
import { median, spreadPercent } from './stats.js';
import type { VerifyResult } from './verify-keys.js';

/** `background`: the load a second autocannon instance sent during warm-up and throughput. */
export type Phase = 'warmup' | 'throughput' | 'latency' | 'background';

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
  /** The ratio the goal is about; absent for the rate-limit goal, which is about counts. */
  ratio?: string;
  threshold: number;
  value: number;
  /** The value as printed. */
  shown: string;
  pass: boolean;
  /** A failed correctness goal fails the run (BENCHMARKS.md); a missed performance goal is reported. */
  kind: 'performance' | 'correctness';
}

/** The invalid keys' own load, beside the valid throughput it is measured against. */
export interface Flood {
  connections: number;
  reqPerSec: number;
  p50Ms: number;
}

export interface Summary {
  rows: Row[];
  ratios: Ratio[];
  flood?: Flood;
  rateLimit: RateLimitCheck[];
  /** µs per API-key verification, alone in its own process. */
  verification?: VerifyResult;
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
  ['session-key', 'rest'],
  ['session-key-rotating', 'rest'],
  ['invalid-key-flood', 'rest'],
  // Reported only, no goal.
  ['teams-list', 'rest'],
  ['team-members', 'rest'],
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

function flood(samples: readonly Sample[]): Flood | undefined {
  const runs = pick(samples, 'invalid-key-flood', 'rest', 'background');
  if (!runs.length) return undefined;
  return { connections: floodConnections, reqPerSec: median(runs.map((s) => s.reqPerSec)), p50Ms: median(runs.map((s) => s.p50Ms)) };
}

const x = (n: number) => n.toFixed(2);

/** S7: in every round, exactly the limit answered 200 and every request above it 429. */
function rateLimitGoal(checks: readonly RateLimitCheck[]): Goal {
  const limit = checks[0]?.limit ?? Number.NaN;
  const off = checks.find((c) => c.ok !== c.limit || c.limited !== c.sent - c.limit);
  return {
    text: `rate limit: 200s equal the limit (${limit}/min) exactly, the rest 429, in every round`,
    threshold: limit,
    value: checks.length ? (off ?? checks[0]!).ok : Number.NaN,
    shown: checks.length ? checks.map((c) => `${c.ok}×200 + ${c.limited}×429`).join(', ') : 'not measured',
    pass: checks.length > 0 && !off,
    kind: 'correctness',
  };
}

export function summarize(samples: readonly Sample[], rateLimit: readonly RateLimitCheck[], verification?: VerifyResult): Summary {
  const rows = order.flatMap(([scenario, target]) => row(samples, scenario, target) ?? []);
  const ratios = [
    ratio(samples, 'rest / graphql', 'session', ['session-rest', 'rest'], ['session-graphql', 'graphql']),
    ratio(samples, 'graphql / raw', 'session', ['session-graphql', 'graphql'], ['session-rest', 'raw']),
    ratio(samples, 'rest / raw', 'session', ['session-rest', 'rest'], ['session-rest', 'raw']),
    ratio(samples, 'rest / raw', 'healthz', ['healthz', 'rest'], ['healthz', 'raw']),
    ratio(samples, 'rest-pglite / rest', 'session', ['session-rest', 'rest-pglite'], ['session-rest', 'rest']),
    ratio(samples, 'rest-pglite / rest', 'healthz', ['healthz', 'rest-pglite'], ['healthz', 'rest']),
    ratio(samples, 'key / cookie', 'session', ['session-key', 'rest'], ['session-rest', 'rest']),
    ratio(samples, 'rotating keys / one key', 'session', ['session-key-rotating', 'rest'], ['session-key', 'rest']),
    ratio(samples, 'under flood / alone', 'session-key', ['invalid-key-flood', 'rest'], ['session-key', 'rest']),
  ].filter((r): r is Ratio => r !== undefined);
  const goal = (text: string, label: string, scenario: string, threshold: number): Goal => {
    const value = ratios.find((r) => r.label === label && r.scenario === scenario)?.median ?? Number.NaN;
    return { text, ratio: label, threshold, value, shown: x(value), pass: value >= threshold, kind: 'performance' };
  };
  const goals = [
    goal('REST session ≥ 0.85× GraphQL session req/s', 'rest / graphql', 'session', 0.85),
    goal('GraphQL session ≥ 0.40× raw session req/s', 'graphql / raw', 'session', 0.4),
    goal('keyed session ≥ 0.90× cookie session req/s', 'key / cookie', 'session', 0.9),
    goal('invalid-key flood cuts valid throughput < 10% (keyed session under flood ≥ 0.90× alone)', 'under flood / alone', 'session-key', 0.9),
    rateLimitGoal(rateLimit),
  ];
  if (verification) {
    const value = verification.hit.cpuMicros;
    goals.push({ text: 'API-key verification on a cache hit < 50 µs CPU', threshold: 50, value, shown: `${value.toFixed(1)} µs`, pass: value < 50, kind: 'performance' });
  }
  return { rows, ratios, flood: flood(samples), rateLimit: [...rateLimit], verification, goals };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => n.toFixed(2);

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
  if (summary.flood) {
    const f = summary.flood;
    lines.push('');
    lines.push(`invalid-key-flood: the warm key's requests, measured while ${f.connections} more connections send unknown keys (those: ${int(f.reqPerSec)} req/s answered 401, p50 ${ms(f.p50Ms)} ms).`);
  }
  lines.push('');
  lines.push('| Ratio (req/s) | Scenario | median | per-round range |');
  lines.push('|---|---|---:|---:|');
  for (const r of summary.ratios) lines.push(`| ${r.label} | ${r.scenario} | ${x(r.median)} | ${x(r.min)}–${x(r.max)} |`);
  if (summary.rateLimit.length) {
    lines.push('');
    lines.push('rate-limit: one fresh key per round sends limit + extra requests to a product started with that limit as its free tier.');
    lines.push('');
    lines.push('| Round | limit/min | sent | 200 | 429 | seconds |');
    lines.push('|---:|---:|---:|---:|---:|---:|');
    for (const c of summary.rateLimit) lines.push(`| ${c.round} | ${c.limit} | ${c.sent} | ${c.ok} | ${c.limited} | ${c.seconds.toFixed(2)} |`);
  }
  if (summary.verification) {
    const { hit, miss } = summary.verification;
    lines.push('');
    lines.push('| API-key verification alone | count | CPU µs each | wall µs each |');
    lines.push('|---|---:|---:|---:|');
    lines.push(`| cache hit | ${int(hit.count)} | ${hit.cpuMicros.toFixed(1)} | ${hit.wallMicros.toFixed(1)} |`);
    lines.push(`| miss (one prepared query) | ${int(miss.count)} | ${miss.cpuMicros.toFixed(1)} | ${miss.wallMicros.toFixed(1)} |`);
  }
  lines.push('');
  lines.push('### Goals');
  for (const g of summary.goals) lines.push(`- ${g.text}: ${g.shown} → ${g.pass ? 'PASS' : 'FAIL'}`);
  return lines.join('\n');
}
