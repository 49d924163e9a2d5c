// Command-line options of `npm run bench`: the full run by default, `--quick` for a few minutes.
import path from 'node:path';
import { parseArgs } from 'node:util';
export interface BenchOptions {
  quick: boolean;
  warmupSeconds: number;
  measureSeconds: number;
  rounds: number;
  /** Connections of the throughput runs; the latency runs always use one. */
  connections: number;
  databaseUrl: string;
  /**
   * `--only=a,b`: run only the scenarios whose id starts with one of these, and the checks so named
   * (upload-memory, upload-drift, rate-limit, queue, key-verification, statements, realtime, idle-memory); null runs all.
   * Seeding is the same; goals without figures are left out of the report.
   */
  only: string[] | null;
  /**
   * `--against=<checkout>`: another checkout of this repository (its dependencies installed), built
   * and measured as the `*-prev` targets in the same interleaved rounds, on the same databases, so
   * that "this build / previous" is a ratio of servers measured side by side, not of two runs.
   */
  against: string | null;
}

/** Whether `--only` (if given) asks for the scenario or check `id`. */
export function selected(options: BenchOptions, id: string): boolean {
  return !options.only || options.only.some((prefix) => id.startsWith(prefix));
}

const defaultDatabaseUrl = 'postgresql://postgres@127.0.0.1:5432/bench_platform';

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  let values: { quick?: boolean; only?: string; against?: string };
  try {
    ({ values } = parseArgs({ args: [...argv], options: { quick: { type: 'boolean' }, only: { type: 'string' }, against: { type: 'string' } }, strict: true }));
  } catch (error) {
    throw new Error(`${(error as Error).message} (accepted: --quick, --only=<scenario or check>,..., --against=<checkout>)`);
  }
  const only = values.only === undefined ? null : values.only.split(',').map((id) => id.trim()).filter(Boolean);
  if (only && !only.length) throw new Error('--only needs at least one scenario or check');
  if (values.against === '') throw new Error('--against needs the path of another checkout');
  const quick = values.quick ?? false;
  return {
    quick,
    warmupSeconds: quick ? 1 : 5,
    measureSeconds: quick ? 3 : 10,
    rounds: quick ? 2 : 3,
    connections: 50,
    databaseUrl: env.BENCH_DATABASE_URL || defaultDatabaseUrl,
    only,
    against: values.against === undefined ? null : path.resolve(values.against),
  };
}
