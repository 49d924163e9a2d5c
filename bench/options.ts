// Command-line options of `npm run bench`: the full run by default, `--quick` for a few minutes.
export interface BenchOptions {
  quick: boolean;
  warmupSeconds: number;
  measureSeconds: number;
  rounds: number;
  /** Connections of the throughput runs; the latency runs always use one. */
  connections: number;
  databaseUrl: string;
}

const defaultDatabaseUrl = 'postgresql://postgres@127.0.0.1:5432/bench_platform';

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const unknown = argv.filter((a) => a !== '--quick');
  if (unknown.length) throw new Error(`Unknown arguments: ${unknown.join(' ')} (only --quick is accepted)`);
  const quick = argv.includes('--quick');
  return {
    quick,
    warmupSeconds: quick ? 1 : 5,
    measureSeconds: quick ? 3 : 10,
    rounds: quick ? 2 : 3,
    connections: 50,
    databaseUrl: env.BENCH_DATABASE_URL || defaultDatabaseUrl,
  };
}
