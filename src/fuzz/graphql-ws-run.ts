// The graphql-ws cases (graphql-ws-cases.ts) played against the target over a real WebSocket (`ws`),
// one at a time through fast-check (a seed and path replay one), each read for a bounded time and
// judged: an upgrade refused over HTTP is a 4xx in the app's envelope; every message the server sends
// is one of the protocol's (connection_ack, next, error, complete, ping, pong) with a result or
// GraphQL errors as payload, without a stack frame or a server path; the server closes only with the
// protocol's codes (4400, 4401, 4403, 4406, 4408, 4409, 4429, ws's 1000/1001/1002/1007/1008/1009),
// never 4500, 1011 or 1013 (its own failure); a stream of an entity that is not public carries none
// of the victim's ids. After each case another connection must still work (a new socket runs
// `{ __typename }`), and the checks of every request follow (fuzz-run.ts: /healthz, nothing unhandled,
// the victim's rows, secrets in the logs, no log line at error level).
import fc from 'fast-check';
import WebSocket from 'ws';
import { leakIn } from './answer-checks.js';
import { resolveRefs } from './fuzz-request.js';
import { aftermath, changeRecord, type Finding, type FuzzSession } from './fuzz-run.js';
import { describeCase, type WsCase, type WsStep } from './graphql-ws-cases.js';
import { jsonText } from './json-text.js';

/** What a case saw. */
interface WsOutcome {
  /** 101, the status of the HTTP answer that refused the upgrade, or null (no answer). */
  status: number | null;
  /** The refusal's body. */
  refusal: string;
  /** The server's messages, as text. */
  messages: string[];
  /** How the connection ended: its close code and reason, and whether the server closed first. */
  closed: { code: number; reason: string; byServer: boolean } | null;
  /** Errors the client met (a frame it could not read, a connection reset, a subprotocol it did not ask for). */
  clientErrors: string[];
  /** Problems beside the connection's (the change of a record meanwhile, the case's own bound). */
  notes: string[];
}

/** Close codes the server may end a connection with: the protocol's refusals and ws's own. */
const expectedCloses = new Map<number, string>([
  [1000, 'normal'],
  [1001, 'going away'],
  [1002, 'protocol error (ws)'],
  [1005, 'no status'],
  [1007, 'invalid UTF-8 (ws)'],
  [1008, 'policy'],
  [1009, 'message too big (ws)'],
  [4400, 'bad request'],
  [4401, 'unauthorized'],
  [4403, 'forbidden'],
  [4406, 'subprotocol not acceptable'],
  [4408, 'connection initialisation timeout'],
  [4409, 'subscriber already exists'],
  [4429, 'too many initialisation requests, or rate limited'],
]);

const serverMessageTypes = new Set(['connection_ack', 'next', 'error', 'complete', 'ping', 'pong']);

/** How long a case may take at most (a stuck server is a finding, not a stuck run). */
const caseTimeoutMs = 30_000;
/** How long the client waits for connection_ack, and for the server's side of a close. */
const ackWaitMs = 5_000;
const closeWaitMs = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Plays `c` against the target; resolves with what the client saw. */
function play(session: FuzzSession, c: WsCase): Promise<WsOutcome> {
  const { world, target } = session;
  const refs = world.refsOf(c.caller);
  const credentials = world.headersOf(c.caller, c.keyHeader);
  const headers: Record<string, string> = {};
  for (const [name, value] of c.headers) headers[name] = resolveRefs(value, refs);
  // The session's cookie goes on the upgrade (a browser's WebSocket sends it); keys where the case says.
  const inInit = c.caller !== 'session' && c.credentialsAt === 'init';
  if (!inInit) Object.assign(headers, credentials);
  const outcome: WsOutcome = { status: null, refusal: '', messages: [], closed: null, clientErrors: [], notes: [] };
  return new Promise<WsOutcome>((resolvePlay) => {
    // What was seen when the case ended: events after it (the client's own teardown) are not the server's doing.
    let settled = false;
    let ws: WebSocket;
    const guard = setTimeout(() => {
      outcome.notes.push(`the case took over ${caseTimeoutMs} ms`);
      ws?.terminate();
      resolve(outcome);
    }, caseTimeoutMs);
    const resolve = (o: WsOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      resolvePlay({ ...o, messages: [...o.messages], clientErrors: [...o.clientErrors], notes: [...o.notes] });
    };
    try {
      ws = new WebSocket(target.origin.replace(/^http/, 'ws') + c.path, c.protocols, { headers, handshakeTimeout: 10_000 });
    } catch (error) {
      outcome.notes.push(`the client could not make the connection: ${(error as Error).message}`);
      return resolve(outcome);
    }
    let opened = false;
    let clientClosing = false;
    const closed = new Promise<void>((done) => {
      ws.on('close', (code, reason) => {
        outcome.closed ??= { code, reason: reason.toString('utf8'), byServer: !clientClosing };
        done();
      });
    });
    let onMessage: (() => void) | null = null;
    ws.on('message', (data, binary) => {
      outcome.messages.push(binary ? `<binary ${(data as Buffer).length} bytes>` : String(data));
      onMessage?.();
    });
    ws.on('error', (error) => outcome.clientErrors.push(error.message));
    ws.on('upgrade', () => (outcome.status = 101));
    ws.on('unexpected-response', (request, response) => {
      outcome.status = response.statusCode ?? null;
      const chunks: Buffer[] = [];
      const stop = setTimeout(() => response.destroy(), 5_000);
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', () => {});
      response.on('close', () => {
        clearTimeout(stop);
        outcome.refusal = Buffer.concat(chunks).toString('utf8');
        request.destroy();
        resolve(outcome);
      });
    });
    const open = () => ws.readyState === WebSocket.OPEN;
    /** Waits until a message satisfies `ok` (true), the connection closes, or `ms` pass (false). */
    const until = (ok: () => boolean, ms: number) =>
      new Promise<boolean>((done) => {
        if (ok()) return done(true);
        let over = false;
        const finish = (value: boolean) => {
          if (over) return;
          over = true;
          clearTimeout(timer);
          onMessage = null;
          done(value);
        };
        const timer = setTimeout(() => finish(false), ms);
        onMessage = () => {
          if (ok()) finish(true);
        };
        void closed.then(() => finish(ok()));
      });
    const sendText = (text: string) => new Promise<void>((done) => (open() ? ws.send(text, () => done()) : done()));
    const step = async (s: WsStep) => {
      if (s.kind === 'wait') return void (await Promise.race([sleep(s.ms), closed]));
      if (s.kind === 'expect') return void (await until(() => outcome.messages.some((m) => m.includes(s.text)), s.ms));
      if (!open()) return;
      if (s.kind === 'init') {
        const payload = inInit ? Object.entries(credentials) : [];
        const extra = s.extra !== null && typeof s.extra === 'object' && !Array.isArray(s.extra) && 'entries' in s.extra ? s.extra.entries : [];
        const before = outcome.messages.length;
        await sendText(jsonText({ entries: [['type', 'connection_init'], ['payload', { entries: [...payload, ...extra] }]] }));
        if (s.awaitAck) await until(() => outcome.messages.slice(before).some((m) => m.includes('"connection_ack"')), ackWaitMs);
      } else if (s.kind === 'subscribe') {
        await sendText(`{"id":${JSON.stringify(s.id)},"type":"subscribe","payload":${resolveRefs(s.payload, refs)}}`);
      } else if (s.kind === 'text') {
        await sendText(resolveRefs(s.text, refs));
      } else {
        await new Promise<void>((done) => ws.send(Buffer.from(s.bytes), { binary: s.binary }, () => done()));
      }
    };
    ws.on('open', () => {
      opened = true;
      (async () => {
        for (const s of c.steps) await step(s);
        const change = c.change && open() ? changeRecord(session, c.change) : null;
        await Promise.race([sleep(c.readMs), closed]);
        const changeProblem = await change;
        if (changeProblem) outcome.notes.push(changeProblem);
        if (open()) {
          clientClosing = true;
          if (c.leave === 'terminate') ws.terminate();
          else {
            if (c.leave === 'complete') for (const s of c.steps) if (s.kind === 'subscribe') await sendText(`{"id":${JSON.stringify(s.id)},"type":"complete"}`);
            ws.close(1000, 'bye');
          }
        }
        // The server's side of the close, bounded: a server that never closes is cut off.
        if (!(await Promise.race([closed.then(() => true), sleep(closeWaitMs).then(() => false)]))) {
          ws.terminate();
          outcome.notes.push(`the server did not close the connection within ${closeWaitMs} ms`);
        }
        resolve(outcome);
      })().catch((error: unknown) => {
        // The client's own failure: said, never left unhandled (the harness would count it as the server's).
        outcome.notes.push(`the fuzz client failed: ${(error as Error).message}`);
        ws.terminate();
        resolve(outcome);
      });
    });
    // A connection that never opened (refused over HTTP, by the client, reset): its close ends the case.
    void closed.then(() => {
      if (!opened) resolve(outcome);
    });
  });
}

/** What is wrong with what a case saw. */
function outcomeProblems(session: FuzzSession, c: WsCase, outcome: WsOutcome, sent: string): string[] {
  const problems: string[] = [];
  if (outcome.status !== null && outcome.status !== 101) {
    if (outcome.status >= 500) problems.push(`the upgrade was answered ${outcome.status}: ${outcome.refusal.slice(0, 300)}`);
    else {
      try {
        const body = JSON.parse(outcome.refusal) as { success?: unknown; error?: unknown };
        if (body.success !== false || typeof body.error !== 'string') problems.push(`the upgrade's refusal (${outcome.status}) is not the failure envelope: ${outcome.refusal.slice(0, 300)}`);
      } catch {
        problems.push(`the upgrade's refusal (${outcome.status}) is not JSON: ${outcome.refusal.slice(0, 300)}`);
      }
    }
  }
  const leak = leakIn([outcome.refusal, outcome.closed?.reason ?? '', ...outcome.messages].join('\n'), sent);
  if (leak) problems.push(`the server's answer shows ${leak}`);
  for (const text of outcome.messages) {
    let message: { type?: unknown; id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      problems.push(`a message that is not JSON: ${text.slice(0, 200)}`);
      continue;
    }
    if (typeof message !== 'object' || message === null || !serverMessageTypes.has(message.type as string)) {
      problems.push(`a message of no type the protocol has: ${text.slice(0, 200)}`);
      continue;
    }
    const payload = message.payload as Record<string, unknown> | unknown[] | undefined;
    if (message.type === 'next' && (typeof payload !== 'object' || payload === null || Array.isArray(payload) || (!('data' in payload) && !Array.isArray(payload.errors)))) problems.push(`a next message that is no GraphQL result: ${text.slice(0, 300)}`);
    if (message.type === 'error' && (!Array.isArray(payload) || !payload.length || payload.some((e) => typeof (e as { message?: unknown })?.message !== 'string'))) problems.push(`an error message without GraphQL errors: ${text.slice(0, 300)}`);
  }
  const code = outcome.closed?.code;
  // 1006 (no close frame) is the client's own word for a connection it gave up on (its error is judged below).
  if (outcome.closed?.byServer && code !== undefined && !expectedCloses.has(code) && !(code === 1006 && (outcome.status !== 101 || outcome.clientErrors.length))) {
    problems.push(`the server closed the connection with ${code} ${JSON.stringify(outcome.closed.reason)}${code === 4500 || code === 1011 || code === 1013 ? ' (its own failure)' : code === 1006 ? ' (without a close frame)' : ''}`);
  }
  for (const error of outcome.clientErrors) {
    // What the client can meet from a server that is right: a reset while it still wrote (the server closed on a message too big), no subprotocol when it offered only unknown ones.
    if (/ECONNRESET|EPIPE|socket hang up|WebSocket was closed before the connection was established/i.test(error)) continue;
    if (/subprotocol/i.test(error) && !c.protocols.includes('graphql-transport-ws')) continue;
    problems.push(`the client: ${error}`);
  }
  problems.push(...outcome.notes);
  if (c.private && c.caller !== 'wildcardKey') {
    const data = outcome.messages.filter((m) => m.includes('"next"')).join('\n');
    for (const [name, value] of session.world.refs) if (name.startsWith('victim.') && name.endsWith('Id') && data.includes(value)) problems.push(`the subscription carries the victim's ${name.slice('victim.'.length)}: ${data.slice(Math.max(0, data.indexOf(value) - 200), data.indexOf(value) + 100)}`);
  }
  return problems;
}

/** Whether another connection works: a new socket (the fuzzing caller's session) runs `{ __typename }`. */
async function canary(session: FuzzSession): Promise<string | null> {
  const outcome = await play(session, {
    route: 'canary',
    caller: 'session',
    keyHeader: 'authorization',
    credentialsAt: 'init',
    protocols: ['graphql-transport-ws'],
    path: '/graphql',
    headers: [],
    steps: [
      { kind: 'init', extra: null, awaitAck: true },
      { kind: 'subscribe', id: 'canary', payload: '{"query":"{ __typename }"}' },
      { kind: 'expect', text: '"complete"', ms: 10_000 },
    ],
    readMs: 0,
    leave: 'close',
  });
  const answered = outcome.messages.some((m) => m.includes('"__typename":"Query"'));
  if (answered) return null;
  return `another connection no longer works (a new socket's { __typename }): status ${outcome.status}, messages ${JSON.stringify(outcome.messages).slice(0, 300)}, closed ${JSON.stringify(outcome.closed)}, ${outcome.clientErrors.join('; ')}`;
}

/** Plays one case and judges it and what followed. */
async function exerciseCase(session: FuzzSession, c: WsCase): Promise<{ status: number | null; problems: string[] }> {
  const sent = JSON.stringify(c);
  const outcome = await play(session, c);
  const { stats } = session;
  stats.requests++;
  const key = outcome.status === null ? 'ws-none' : String(outcome.status);
  stats.byStatus[key] = (stats.byStatus[key] ?? 0) + 1;
  if (outcome.status !== null && outcome.status >= 500) stats.serverErrors++;
  const problems = outcomeProblems(session, c, outcome, sent);
  // The server's side of a dropped connection (its subscriptions ending) before the checks; the
  // fuzzing caller's session and keys back if an operation revoked them (a logout, a key revoked).
  await sleep(50);
  await session.world.heal();
  const other = await canary(session);
  if (other) problems.push(other);
  // Operations over the socket may be mutations: the victim's rows are compared after every case.
  problems.push(...(await aftermath(session, { mayWrite: true })));
  return { status: outcome.status, problems };
}

/** Runs `runs` cases of `arbitrary` with `seed` (or only the one at `path`), returning the findings. */
export async function fuzzWebSocket(session: FuzzSession, suite: string, arbitrary: fc.Arbitrary<WsCase>, options: { seed: number; runs: number; path?: string; verbose?: boolean }): Promise<Finding[]> {
  const findings: Finding[] = [];
  let index = options.path ? Number(options.path.split(':')[0]) : 0;
  const property = fc.asyncProperty(arbitrary, async (c) => {
    const at = index++;
    const started = performance.now();
    const logsBefore = session.target.logs.length;
    const { status, problems } = await exerciseCase(session, c);
    const ms = Math.round(performance.now() - started);
    session.stats.slowest.push({ route: `${c.route} (path ${at})`, ms });
    session.stats.slowest.sort((a, b) => b.ms - a.ms);
    session.stats.slowest.length = Math.min(session.stats.slowest.length, 5);
    if (options.path) for (const line of session.target.logs.slice(logsBefore)) if (/"level":(4|5|6)0/.test(line)) console.log(`  log: ${line.slice(0, 2000)}`);
    if (options.verbose || options.path) console.log(`[${suite} ${at}] ${status ?? 'no answer'} in ${ms} ms: ${describeCase(c)}`);
    for (const problem of problems) findings.push({ suite, seed: options.seed, path: String(at), route: c.route, status, problem, request: describeCase(c), replay: '(a WebSocket: replay it by seed and path)' });
    if (at % 50 === 49) await session.world.heal();
  });
  await fc.assert(property, { seed: options.seed, numRuns: options.path ? 1 : options.runs, path: options.path, endOnFailure: true });
  return findings;
}
