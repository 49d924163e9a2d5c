// Command-line options of `npm run bench`: the full run by default, `--quick` for a few minutes.
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
   * (upload-memory, upload-drift, rate-limit, queue, key-verification, statements); null runs all.
   * Seeding is the same; goals without figures are left out of the report.
   */
  only: string[] | null;
}

/** Whether `--only` (if given) asks for the scenario or check `id`. */
export function selected(options: BenchOptions, id: string): boolean {
  return !options.only || options.only.some((prefix) => id.startsWith(prefix));
}

const defaultDatabaseUrl = 'postgresql://postgres@127.0.0.1:5432/bench_platform';

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  let only: string[] | null = null;
  const unknown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') continue;
    const value = arg.startsWith('--only=') ? arg.slice('--only='.length) : arg === '--only' ? argv[++i] : undefined;
    if (value === undefined) unknown.push(arg);
    else only = value.split(',').map((id) => id.trim()).filter(Boolean);
  }
  if (unknown.length) throw new Error(`Unknown arguments: ${unknown.join(' ')} (accepted: --quick, --only=<scenario or check>,...)`);
  if (only && !only.length) throw new Error('--only needs at least one scenario or check');
  const quick = argv.includes('--quick');
  return {
    quick,
    warmupSeconds: quick ? 1 : 5,
    measureSeconds: quick ? 3 : 10,
    rounds: quick ? 2 : 3,
    connections: 50,
    databaseUrl: env.BENCH_DATABASE_URL || defaultDatabaseUrl,
    only,
  };
}
