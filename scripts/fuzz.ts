// npm run fuzz -- [--runs N] [--seed S] [--only rest,graphql,multipart,events,graphql-ws,sweep] [--sweep M] [--path P] [--verbose]
// The fuzzer of src/fuzz/ for long runs: N requests over every route and operation (split over the
// drawn suites as the in-suite run splits them), then the sweep (every operator on every field, every
// groupBy, expand, fields and child value: its whole list, or its first M cases), on PGlite, or on
// PostgreSQL when TEST_DATABASE_URL is set. Prints the counts by status, the 5xx and crash counts and every distinct finding with the
// seed and path that replay it (`--only <suite> --seed S --path P` sends that one request again on
// a fresh server) and a curl command. Exits 1 when anything was found.
import { parseArgs } from 'node:util';
import { finalFindings, report, type Finding } from '../src/fuzz/fuzz-run.js';
import { closeSession, openSession, runSuite, suiteShares, suites, sweepOf, type Suite } from '../src/fuzz/fuzz-session.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000' },
    seed: { type: 'string' },
    only: { type: 'string' },
    path: { type: 'string' },
    sweep: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const chosen = (values.only?.split(',') ?? [...suites]) as Suite[];
for (const suite of chosen) if (!suites.includes(suite)) throw new Error(`--only: unknown suite "${suite}" (${suites.join(', ')})`);
if (values.path && chosen.length !== 1) throw new Error('--path replays one request of one suite: give --only <suite> too');
const runs = Number(values.runs);
const database = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';

console.log(`fuzz: ${values.path ? `replaying path ${values.path}` : `${runs} requests`} on ${database}, seed ${seed}, suites ${chosen.join(', ')}`);
const started = Date.now();
const session = await openSession(process.env.TEST_DATABASE_URL);
const findings: Finding[] = [];
try {
  const share = suiteShares(chosen);
  for (const suite of chosen) {
    const count = suite === 'sweep' ? Number(values.sweep ?? sweepOf(session).cases.length) : Math.max(1, Math.round(runs * share[suite]!));
    const before = session.stats.requests;
    const found = await runSuite(session, suite, { seed, runs: count, path: values.path, verbose: values.verbose });
    findings.push(...found);
    console.log(`  ${suite}: ${session.stats.requests - before} requests, ${found.length} findings (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  const final = await finalFindings(session);
  const { stats } = session;
  console.log(`\n${stats.requests} requests in ${Math.round((Date.now() - started) / 1000)} s on ${database}; by status ${JSON.stringify(stats.byStatus)}`);
  console.log(`5xx: ${stats.serverErrors}; no answer: ${stats.noAnswer}; unhandled errors (crashes): ${stats.uncaught}`);
  console.log(`slowest: ${stats.slowest.map((s) => `${s.route} ${s.ms} ms`).join('; ')}`);
  if (findings.length) console.log(`\n${findings.length} findings:\n${report(findings)}`);
  if (final.length) console.log(`\nafter the run:\n${final.map((p) => `• ${p}`).join('\n')}`);
  if (!findings.length && !final.length) console.log('no findings');
  process.exitCode = findings.length || final.length ? 1 : 0;
} finally {
  await closeSession(session);
}
