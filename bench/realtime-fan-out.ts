// The `alike` and `distinct` realtime variants side by side (issue 36): what a write costs with 500
// subscriptions of one user each with its own filter, against 500 with the same filter, and what
// another tenant's reads pay meanwhile. Ratios are taken round by round (both variants of a round
// ran on the same build and database minutes apart), then their median over the rounds.
import type { RealtimeBuild, RealtimeDatabase, RealtimeRun } from './realtime.js';
import type { Goal } from './report.js';
import { median } from './stats.js';

/** Subscriptions of the `alike` and `distinct` variants (5 of the bench user's keys, 100 each). */
export const fanOutSubscribers = 500;
/**
 * Changes written per second in these variants: at the other variants' 50, 500 subscribers keep this
 * machine's two cores busy delivering even when their filters are alike (measured: the other tenant's
 * p50 10× idle with one filter for all), which would hide what the filters themselves cost.
 */
export const fanOutRate = 10;
const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/** Goals of the issue: distinct within 2× of alike (server CPU per write, delivery p50), the other tenant's p50 within 1.5× of idle. */
export const fanOutLimits = { cost: 2, tenant: 1.5 } as const;

interface Pair {
  build: RealtimeBuild;
  database: RealtimeDatabase;
  rounds: { alike: RealtimeRun; distinct: RealtimeRun }[];
}

/** The rounds in which both variants ran, per build and database. */
function pairsOf(runs: readonly RealtimeRun[]): Pair[] {
  const pairs = new Map<string, Pair>();
  for (const distinct of runs.filter((r) => r.variant === 'distinct')) {
    const alike = runs.find((r) => r.variant === 'alike' && r.round === distinct.round && r.build === distinct.build && r.database === distinct.database);
    if (!alike) continue;
    const key = `${distinct.build} ${distinct.database}`;
    const pair = pairs.get(key) ?? { build: distinct.build, database: distinct.database, rounds: [] };
    pair.rounds.push({ alike, distinct });
    pairs.set(key, pair);
  }
  return [...pairs.values()];
}

const ratioOf = (pair: Pair, pick: (r: { alike: RealtimeRun; distinct: RealtimeRun }) => number) => median(pair.rounds.map(pick));

export function fanOutGoals(runs: readonly RealtimeRun[]): Goal[] {
  const goals: Goal[] = [];
  for (const pair of pairsOf(runs)) {
    const where = `${pair.database}${pair.build === 'previous' ? ', previous build' : ''}`;
    const kind = pair.build === 'this' ? ('performance' as const) : ('report' as const);
    const cpu = ratioOf(pair, (r) => r.distinct.serverCpuMsPerWrite / r.alike.serverCpuMsPerWrite);
    const p50 = ratioOf(pair, (r) => r.distinct.p50Ms / r.alike.p50Ms);
    const tenant = median(pair.rounds.map((r) => r.distinct.tenantP50Ms / r.distinct.tenantIdleP50Ms));
    const of = `${fanOutSubscribers} subscriptions of one user, ${where}`;
    // The previous build's figures are reported, not judged (it is the before of the comparison).
    const within = (value: number, limit: number) => kind === 'report' || value <= limit;
    goals.push(
      { text: `realtime distinct filters (${of}): server CPU per write ≤ ${fanOutLimits.cost}× with one filter alike`, ratio: 'distinct / alike', threshold: fanOutLimits.cost, value: cpu, shown: `${fixed(cpu, 2)}×`, pass: within(cpu, fanOutLimits.cost), kind },
      { text: `realtime distinct filters (${of}): delivery p50 ≤ ${fanOutLimits.cost}× with one filter alike`, ratio: 'distinct / alike', threshold: fanOutLimits.cost, value: p50, shown: `${fixed(p50, 2)}×`, pass: within(p50, fanOutLimits.cost), kind },
      { text: `realtime distinct filters (${of}): another tenant's GET /api/v1/customers p50 during the writes ≤ ${fanOutLimits.tenant}× idle`, ratio: 'during / idle', threshold: fanOutLimits.tenant, value: tenant, shown: `${fixed(tenant, 2)}×`, pass: within(tenant, fanOutLimits.tenant), kind },
    );
  }
  return goals;
}

export function renderFanOut(runs: readonly RealtimeRun[]): string {
  const measured = runs.filter((r) => r.variant === 'alike' || r.variant === 'distinct');
  if (!measured.length) return '';
  const lines = [
    '',
    `Distinct filters (issue 36): ${fanOutSubscribers} SSE subscriptions of the bench user (5 keys), ${fanOutRate} changes/s, each with a filter every change meets: \`account[gte]=0\` for all (alike) or \`account[gte]=<i>\` (distinct); another tenant reads GET /api/v1/customers one request after another (idle: before the subscriptions open). Medians over rounds.`,
    '',
    '| Build | Database | Variant | writes/s | server CPU ms per write | server CPU % | delivery p50 ms | p99 ms | lost | tenant p50 idle ms | tenant p50 during ms | tenant p99 during ms |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const keys = [...new Set(measured.map((r) => `${r.build} ${r.database} ${r.variant}`))];
  for (const key of keys) {
    const group = measured.filter((r) => `${r.build} ${r.database} ${r.variant}` === key);
    const r = group[0]!;
    const m = (pick: (run: RealtimeRun) => number, digits = 1) => fixed(median(group.map(pick)), digits);
    lines.push(`| ${r.build} | ${r.database} | ${r.variant} | ${m((x) => x.writesPerSec)} | ${m((x) => x.serverCpuMsPerWrite, 2)} | ${m((x) => x.serverCpuPercent, 0)} | ${m((x) => x.p50Ms)} | ${m((x) => x.p99Ms)} | ${group.reduce((n, x) => n + x.lost, 0)} | ${m((x) => x.tenantIdleP50Ms)} | ${m((x) => x.tenantP50Ms)} | ${m((x) => x.tenantP99Ms)} |`);
  }
  return lines.join('\n');
}
