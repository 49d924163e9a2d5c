// One fuzz run: sends generated requests one at a time through fast-check (a fixed seed replays
// them) and judges each: its answer (answer-checks.ts), the server still answering, no error left
// unhandled, the victim's rows unchanged, nothing delivered to the victim's endpoint, no secret in
// the log lines it caused. Findings are collected rather than thrown, so one known bug does not
// hide the others; each carries its seed and path (fast-check's replay) and a command to resend it.
import fc from 'fast-check';
import { entityDefinitions } from '../config/entities/index.js';
import { answerProblem, sseEvents, type OpenApiDocument } from './answer-checks.js';
import { sampleRecord } from './entity-values.js';
import { describe, replayCommand, toRaw, type FuzzRequest, type StreamRead } from './fuzz-request.js';
import type { FuzzTarget } from './harness.js';
import { sendAndLeave, sendRaw, type RawRequest, type RawResponse } from './raw-http.js';
import { snapshotDiff, victimSnapshot, type Victim } from './victim-snapshot.js';
import type { World } from './world.js';

export interface Finding {
  /** Which generator (rest, graphql, multipart) and its seed and path: `npm run fuzz -- --only <suite> --seed <seed> --path <path>`. */
  suite: string;
  seed: number;
  path: string;
  route: string;
  status: number | null;
  problem: string;
  request: string;
  replay: string;
}

export interface RunStats {
  requests: number;
  byStatus: Record<string, number>;
  serverErrors: number;
  noAnswer: number;
  uncaught: number;
  slowest: { route: string; ms: number }[];
}

export interface FuzzSession {
  target: FuzzTarget;
  world: World;
  doc: OpenApiDocument;
  victim: Victim;
  baseline: string[];
  last: string[];
  stats: RunStats;
  /** Victim deliveries and log lines already judged. */
  seen: { deliveries: number; logs: number; uncaught: number };
}

const timeoutMs = 30_000;

/** Whether a request can change stored data (snapshots are taken after those only; the final check covers the rest). */
const mayWrite = (request: FuzzRequest) => !['GET', 'HEAD', 'OPTIONS'].includes(request.method) || request.target.startsWith('/api/v1/cron/');

/** Header values as bytes on the wire (UTF-8, read back as Latin-1 so the raw client writes those bytes). */
function onTheWire(raw: RawRequest): RawRequest {
  return { ...raw, headers: raw.headers.map(([n, v]) => [Buffer.from(n, 'utf8').toString('latin1'), Buffer.from(v, 'utf8').toString('latin1')]) };
}

function send(session: FuzzSession, raw: RawRequest, streamMs?: number) {
  const { hostname, port } = new URL(session.target.origin);
  return sendRaw(hostname, Number(port), onTheWire(raw), timeoutMs, streamMs);
}

/** The fuzzing caller updates its own record of `entity` (with the values it was seeded with): an event for the streams open on it. */
export async function changeRecord(session: FuzzSession, entity: string): Promise<string | null> {
  const index = entityDefinitions.findIndex((d) => d.slug === entity);
  const id = session.world.refs.get(`attacker.${entity}Id`);
  if (index < 0 || !id) return null;
  const body = Buffer.from(JSON.stringify(sampleRecord(entityDefinitions[index]!.fields, index)));
  const headers: [string, string][] = [...Object.entries(session.world.headersOf('session', 'authorization')), ['content-type', 'application/json']];
  const answer = await send(session, { method: 'PATCH', target: `/api/v1/${entity}/${id}`, headers, body }).catch((error: Error) => error);
  if (answer instanceof Error) return `the change of the caller's ${entity} record meanwhile got no answer: ${answer.message}`;
  return answer.status >= 500 ? `the change of the caller's ${entity} record meanwhile: status ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}` : null;
}

/** Sends a request whose answer may be a stream, as `stream` says (read a while, or left early: null), its entity changing meanwhile if asked. */
async function sendStreamed(session: FuzzSession, stream: StreamRead, raw: RawRequest, problems: string[]): Promise<RawResponse | null> {
  const { hostname, port } = new URL(session.target.origin);
  const sending = stream.how === 'leave' ? sendAndLeave(hostname, Number(port), onTheWire(raw), stream.ms).then(() => null) : send(session, raw, stream.ms);
  // The change goes out once the subscription had a moment to open: its event meets a client reading, leaving or gone.
  const change = stream.change ? new Promise((resolve) => setTimeout(resolve, 30)).then(() => changeRecord(session, stream.change!)) : null;
  const [answer, changeProblem] = await Promise.all([sending, change]);
  if (changeProblem) problems.push(changeProblem);
  return answer;
}

/** A stream of an entity that is not public, to anyone but the superadmin's `*` key, carries none of the victim's ids. */
function victimIdsIn(session: FuzzSession, request: FuzzRequest, response: RawResponse): string | null {
  if (request.caller === 'wildcardKey' || !request.stream?.private || !/^text\/event-stream/i.test(response.headers['content-type'] ?? '')) return null;
  const data = sseEvents(response.body.toString('utf8')).map((e) => e.data ?? '').join('\n');
  for (const [name, value] of session.world.refs) if (name.startsWith('victim.') && name.endsWith('Id') && data.includes(value)) return `the stream carries the victim's ${name.slice('victim.'.length)}: ${data.slice(Math.max(0, data.indexOf(value) - 200), data.indexOf(value) + 100)}`;
  return null;
}

/** Log lines at error level and above (pino's 50, 60) among `lines`. */
export function errorLinesIn(lines: string[]): string[] {
  return lines.filter((line) => /"level":(5|6)0\b/.test(line)).map((line) => `the server logged an error: ${line.slice(0, 600)}`);
}

/** Sends one request and returns what is wrong with what followed. */
async function exercise(session: FuzzSession, request: FuzzRequest, at: string): Promise<{ status: number | null; problems: string[] }> {
  const { world, stats } = session;
  const raw = toRaw(request, world);
  const sent = `${raw.target} ${JSON.stringify(raw.headers)} ${raw.body?.toString('utf8') ?? ''}`;
  const problems: string[] = [];
  let status: number | null = null;
  const started = performance.now();
  // A twin is the same request twice at once (two deletes of one record, two creates of one slug): a race, judged like any answer.
  const answers = await Promise.allSettled((request.twin ? [raw, raw] : [raw]).map((copy) => (request.stream ? sendStreamed(session, request.stream, copy, problems) : send(session, copy))));
  noteSlow(stats, request, performance.now() - started, at);
  for (const answer of answers) {
    stats.requests++;
    if (answer.status === 'rejected') {
      stats.noAnswer++;
      problems.push(`no answer: ${(answer.reason as Error).message}`);
      continue;
    }
    // The client left before its answer: nothing to judge but what follows (the server answering, nothing unhandled).
    if (answer.value === null) {
      stats.byStatus.left = (stats.byStatus.left ?? 0) + 1;
      continue;
    }
    const leak = victimIdsIn(session, request, answer.value);
    if (leak) problems.push(leak);
    status = Math.max(status ?? 0, answer.value.status);
    stats.byStatus[answer.value.status] = (stats.byStatus[answer.value.status] ?? 0) + 1;
    if (answer.value.status >= 500) stats.serverErrors++;
    const problem = answerProblem(session.doc, request, answer.value, sent);
    if (problem) problems.push(request.twin ? `${problem} (one of two sent at once)` : problem);
  }
  // A client that left a stream: a moment for the server's side of it (the stream's end, a write to a closed socket) before the checks.
  if (request.stream) await new Promise((resolve) => setTimeout(resolve, 50));
  problems.push(...(await aftermath(session, { mayWrite: mayWrite(request), answered5xx: (status ?? 0) >= 500 })));
  if (status === 401 && request.caller !== 'anonymous' && request.caller !== 'unknownKey') await world.heal();
  return { status, problems };
}

/**
 * What is wrong after a request (or a WebSocket's case): the server no longer answering /healthz, an
 * error nothing handled, the victim's rows changed (checked when the request may write), a delivery to
 * the victim's endpoint, a secret in the new log lines, a log line at error level (no input is an
 * error of the server's, nor is a client leaving a stream, however it leaves; after a 5xx, which is
 * the finding already, its log line is left out).
 */
export async function aftermath(session: FuzzSession, options: { mayWrite: boolean; answered5xx?: boolean }): Promise<string[]> {
  const { target, world, stats, seen } = session;
  const problems: string[] = [];
  const health = await send(session, { method: 'GET', target: '/healthz', headers: [] }).catch((error: Error) => error);
  if (health instanceof Error || health.status !== 200) problems.push(`the server stopped answering /healthz: ${health instanceof Error ? health.message : health.status}`);
  if (target.uncaught.length > seen.uncaught) {
    const errors = target.uncaught.slice(seen.uncaught);
    stats.uncaught += errors.length;
    seen.uncaught = target.uncaught.length;
    problems.push(`an error nothing handled (it ends a server process): ${errors.map((e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e))).join('; ').slice(0, 300)}`);
  }
  if (options.mayWrite) {
    const now = await victimSnapshot(target.database, session.victim);
    const changed = snapshotDiff(session.last, now);
    if (changed.length) problems.push(`the victim's rows changed:\n    ${changed.slice(0, 6).join('\n    ').slice(0, 1500)}`);
    session.last = now;
  }
  const deliveries = world.receiver.on('/victim').length;
  if (deliveries > seen.deliveries) problems.push(`the victim's webhook endpoint received ${deliveries - seen.deliveries} deliveries`);
  seen.deliveries = deliveries;
  problems.push(...secretsIn(target.logs.slice(seen.logs), [...target.configSecrets, ...world.secrets()]));
  if (!options.answered5xx) problems.push(...errorLinesIn(target.logs.slice(seen.logs)));
  seen.logs = target.logs.length;
  return problems;
}

/** Keeps the slowest answers (route, method, milliseconds): where a run's time goes. */
function noteSlow(stats: RunStats, request: FuzzRequest, ms: number, at: string): void {
  stats.slowest.push({ route: `${request.method} ${request.route} (path ${at})`, ms: Math.round(ms) });
  stats.slowest.sort((a, b) => b.ms - a.ms);
  stats.slowest.length = Math.min(stats.slowest.length, 5);
}

/** Log lines that carry one of `secrets` (named by their start only). */
export function secretsIn(lines: string[], secrets: string[]): string[] {
  const found: string[] = [];
  for (const line of lines) for (const secret of secrets) if (secret && line.includes(secret)) found.push(`a log line carries a secret (${secret.slice(0, 12)}…): ${line.replace(secret, '[SECRET]').slice(0, 400)}`);
  return found;
}

type RunOptions = { seed: number; runs: number; path?: string; verbose?: boolean };

/** Sends `request` (number `at` of the run) and adds what is wrong with it to `findings`, with the commands that replay it. */
async function judge(session: FuzzSession, suite: string, request: FuzzRequest, at: number, options: RunOptions, findings: Finding[]): Promise<void> {
  const started = performance.now();
  const logsBefore = session.target.logs.length;
  const { status, problems } = await exercise(session, request, String(at));
  // Replaying one request: what the server logged at warn and above shows where it failed.
  if (options.path) for (const line of session.target.logs.slice(logsBefore)) if (/"level":(4|5|6)0/.test(line)) console.log(`  log: ${line.slice(0, 2000)}`);
  if (options.verbose || options.path) console.log(`[${suite} ${at}] ${status ?? 'no answer'} in ${Math.round(performance.now() - started)} ms: ${describe(request)}${options.path ? `\n${replayCommand(toRaw(request, session.world), session.target.origin)}` : ''}`);
  for (const problem of problems) {
    const written = replayCommand(toRaw(request, session.world), session.target.origin);
    // An event stream never ends by itself: curl reads it a while.
    const command = request.stream && written.startsWith('curl ') ? written.replace('curl ', 'curl -N --max-time 3 ') : written;
    findings.push({ suite, seed: options.seed, path: String(at), route: request.route, status, problem, request: describe(request), replay: request.twin ? `(${command}) & (${command}); wait` : command });
  }
  if (at % 50 === 49) await session.world.heal();
}

/** Runs `runs` requests of `arbitrary` with `seed` (or only the one at `path`), returning the findings. */
export async function fuzz(session: FuzzSession, suite: string, arbitrary: fc.Arbitrary<FuzzRequest>, options: RunOptions): Promise<Finding[]> {
  const findings: Finding[] = [];
  let index = options.path ? Number(options.path.split(':')[0]) : 0;
  const property = fc.asyncProperty(arbitrary, (request) => judge(session, suite, request, index++, options, findings));
  await fc.assert(property, { seed: options.seed, numRuns: options.path ? 1 : options.runs, path: options.path, endOnFailure: true });
  return findings;
}

/** Sends the first `runs` of `cases` in order (or only case number `path`), returning the findings. */
export async function sweep(session: FuzzSession, suite: string, cases: readonly FuzzRequest[], options: RunOptions): Promise<Finding[]> {
  const findings: Finding[] = [];
  const [from, to] = options.path ? [Number(options.path), Number(options.path) + 1] : [0, Math.min(options.runs, cases.length)];
  for (let at = from; at < to && at < cases.length; at++) await judge(session, suite, cases[at]!, at, options, findings);
  return findings;
}

/** The checks over the whole run: the victim's rows against the baseline, the server, unhandled errors, every log line. */
export async function finalFindings(session: FuzzSession): Promise<string[]> {
  const problems: string[] = [];
  const changed = snapshotDiff(session.baseline, await victimSnapshot(session.target.database, session.victim));
  if (changed.length) problems.push(`the victim's rows differ from before the run:\n    ${changed.slice(0, 10).join('\n    ')}`);
  if (session.world.receiver.on('/victim').length) problems.push(`the victim's webhook endpoint received ${session.world.receiver.on('/victim').length} deliveries`);
  const health = await send(session, { method: 'GET', target: '/healthz', headers: [] }).catch((error: Error) => error);
  if (health instanceof Error || health.status !== 200) problems.push('the server no longer answers /healthz');
  if (session.target.uncaught.length) problems.push(`${session.target.uncaught.length} errors nothing handled`);
  problems.push(...(await quotaProblems(session)));
  problems.push(...new Set(secretsIn(session.target.logs, [...session.target.configSecrets, ...session.world.secrets()])));
  return problems;
}

/**
 * Whether every subscription a client left was let go: each caller opens its whole quota
 * (REALTIME_MAX_SUBSCRIPTIONS, low in the fuzz target) at once, and every one must be a 200 stream.
 * A subscription still counted for a client gone (before its answer, mid-stream, with its socket)
 * makes the last of them a 429.
 */
async function quotaProblems(session: FuzzSession): Promise<string[]> {
  await session.world.heal();
  const max = session.target.config.realtime.maxSubscriptions;
  const problems: string[] = [];
  const callers = [['session', 'tasks'], ['wildcardKey', 'tasks'], ['narrowKey', 'tasks'], ['anonymous', 'posts']] as const;
  for (const [caller, entity] of callers) {
    const headers: [string, string][] = [...Object.entries(session.world.headersOf(caller, 'authorization')), ['accept', 'text/event-stream']];
    const answers = await Promise.all(Array.from({ length: max }, () => send(session, { method: 'GET', target: `/api/v1/${entity}/events`, headers }, 300).catch((error: Error) => error)));
    const refused = answers.filter((a) => a instanceof Error || a.status !== 200);
    if (refused.length) problems.push(`${caller}: ${refused.length} of ${max} subscriptions to ${entity} opened at once were refused (${[...new Set(refused.map((a) => (a instanceof Error ? a.message : `${a.status} ${a.body.toString('utf8').slice(0, 160)}`)))].join('; ')}): subscriptions of clients that left are still counted`);
  }
  return problems;
}

/** What makes two findings the same: a 5xx by its route (each is its own bug), anything else by its problem (numbers and ids blurred). */
function findingKind(f: Finding): string {
  const problem = f.problem.split('\n')[0]!.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>').replace(/\d+/g, 'N').slice(0, 100);
  return f.status !== null && f.status >= 500 ? `${f.route} | ${f.status}` : `${f.status} | ${problem}`;
}

/** Distinct findings, one example each (with the routes where the same was seen), as text. */
export function report(findings: Finding[]): string {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) groups.set(findingKind(f), [...(groups.get(findingKind(f)) ?? []), f]);
  return [...groups.values()]
    .map((list) => {
      const f = list[0]!;
      const routes = [...new Set(list.map((g) => g.route))];
      const replay = f.replay.length > 1500 ? `${f.replay.slice(0, 1500)}… (${f.replay.length} characters: replay it by seed and path)` : f.replay;
      const also = routes.length > 1 ? `\n  also on: ${routes.slice(1, 8).join(', ')}${routes.length > 8 ? ` and ${routes.length - 8} more` : ''}` : '';
      return `• ${f.route} → ${f.status ?? 'no answer'} (${list.length}×): ${f.problem}${also}\n  request: ${f.request}\n  replay:  npm run fuzz -- --only ${f.suite} --seed ${f.seed} --path ${f.path}\n  curl:    ${replay}`;
    })
    .join('\n');
}
