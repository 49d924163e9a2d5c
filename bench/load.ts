// Load runs with autocannon's JS API, in this process (no workers: on two cores they would take CPU
// from the server). A run either lasts its seconds or, as background load, until it is stopped. Any
// response that is not a verified 2xx (or the expected status, for deliberate failures) fails the run.
import autocannon from 'autocannon';
import type { EventEmitter } from 'node:events';
import { percentile } from './stats.js';
import type { HttpRequest } from './scenarios.js';

export interface LoadRun {
  baseUrl: string;
  /** Sent in turn, each connection cycling through them; autocannon builds each one once. */
  requests: readonly HttpRequest[];
  verify: (body: string) => boolean;
  connections: number;
  seconds: number;
  /** The status every answer must have; any 2xx when absent. */
  status?: number;
  /** Paths never sent before: request n of the process (over every run, every connection) goes to fresh(n), with the first request's method and headers. */
  fresh?: (n: number) => string;
  /** Bodies never sent before, like `fresh` paths: request n carries freshBody(n) (copied into the request at once). */
  freshBody?: (n: number) => Buffer;
  /** A warm-up: its figures are never reported, so a slow path may end it before any response. */
  warmup?: boolean;
}

/** Requests sent with `fresh` paths or bodies so far, by every run: none is sent twice. */
let freshSent = 0;

/** The next fresh number, for a request sent outside a load run (a full check). */
export const takeFresh = () => freshSent++;

export interface LoadResult {
  connections: number;
  seconds: number;
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export class LoadFailure extends Error {}

/** Load that runs until stopped; stopping returns its result (and fails like a run would). */
export interface RunningLoad {
  stop(): Promise<LoadResult>;
}

/** Growable buffer of latencies, so recording a response costs no allocation. */
class Latencies {
  private values = new Float64Array(1 << 16);
  private length = 0;
  push(ms: number): void {
    if (this.length === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.length++] = ms;
  }
  sorted(): Float64Array {
    return this.values.slice(0, this.length).sort();
  }
}

interface Launched {
  instance: autocannon.Instance;
  finished: Promise<autocannon.Result>;
  latencies: Latencies;
}

/** Request n of a run with fresh paths or bodies: autocannon builds it into a buffer as soon as this returns. */
function freshRequest(run: LoadRun, request: object, n: number): object {
  return { ...request, ...(run.fresh && { path: run.fresh(n) }), ...(run.freshBody && { body: run.freshBody(n) }) };
}

function launch(run: LoadRun): Launched {
  const [first] = run.requests;
  if (!first) throw new Error('a load run needs at least one request');
  const latencies = new Latencies();
  let instance!: autocannon.Instance;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: `${run.baseUrl}${first.path}`,
        method: first.method,
        headers: first.headers,
        body: first.body,
        // Fresh objects: autocannon writes its built buffer onto each request.
        requests:
          run.fresh || run.freshBody
            ? [{ method: first.method, headers: first.headers, setupRequest: (request: object) => freshRequest(run, request, freshSent++) }]
            : run.requests.length > 1 ? run.requests.map(({ method, path, headers, body }) => ({ method, path, headers, body })) : undefined,
        connections: run.connections,
        pipelining: 1,
        duration: run.seconds,
        verifyBody: (body) => typeof body === 'string' && run.verify(body),
      },
      (error, result) => (error ? reject(error as Error) : resolve(result)),
    );
  });
  // autocannon keeps latencies in whole milliseconds; sub-millisecond latencies (the one-connection
  // runs) need the exact time it emits per response. Its typings omit the leading client argument.
  (instance as EventEmitter).on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
  return { instance, finished, latencies };
}

function unexpectedStatuses(result: autocannon.Result, status: number | undefined): number {
  if (status === undefined) return result.non2xx;
  const counts = result.statusCodeStats as Record<string, { count: number } | undefined>;
  return Object.entries(counts).reduce((sum, [code, stat]) => sum + (code === String(status) ? 0 : (stat?.count ?? 0)), 0);
}

function summarizeRun(run: LoadRun, result: autocannon.Result, latencies: Latencies): LoadResult {
  const problems: string[] = [];
  const unexpected = unexpectedStatuses(result, run.status);
  const wanted = run.status === undefined ? '2xx' : String(run.status);
  if (unexpected) problems.push(`${unexpected} answers other than ${wanted} (status codes: ${JSON.stringify(result.statusCodeStats)})`);
  if (result.errors) problems.push(`${result.errors} errors (${result.timeouts} timeouts)`);
  if (result.mismatches) problems.push(`${result.mismatches} bodies failed verification`);
  if (!result.requests.total && !run.warmup) problems.push('no responses');
  const first = run.requests[0];
  if (problems.length) throw new LoadFailure(`${first?.method} ${first?.path}: ${problems.join('; ')}`);

  const sorted = latencies.sorted();
  return {
    connections: run.connections,
    seconds: result.duration,
    requests: result.requests.total,
    reqPerSec: result.requests.total / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export async function runLoad(run: LoadRun): Promise<LoadResult> {
  const { finished, latencies } = launch(run);
  return summarizeRun(run, await finished, latencies);
}

/** Starts `run` without waiting for it; `run.seconds` only bounds a load nobody stops. */
export function startLoad(run: LoadRun): RunningLoad {
  const { instance, finished, latencies } = launch(run);
  let stopped: Promise<LoadResult> | undefined;
  return {
    stop() {
      if (!stopped) {
        // autocannon ends at its next one-second sampling tick, with the result so far.
        instance.stop();
        stopped = finished.then((result) => summarizeRun(run, result, latencies));
      }
      return stopped;
    },
  };
}
