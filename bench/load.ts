// One load run with autocannon's JS API, in this process (no workers: on two cores they would take
// CPU from the server). Any response that is not a verified 2xx makes the run fail.
import autocannon from 'autocannon';
import type { EventEmitter } from 'node:events';
import { percentile } from './stats.js';
import type { HttpRequest } from './scenarios.js';

export interface LoadRun {
  baseUrl: string;
  request: HttpRequest;
  verify: (body: string) => boolean;
  connections: number;
  seconds: number;
}

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

export async function runLoad(run: LoadRun): Promise<LoadResult> {
  const latencies = new Latencies();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${run.baseUrl}${run.request.path}`,
        method: run.request.method,
        headers: run.request.headers,
        body: run.request.body,
        connections: run.connections,
        pipelining: 1,
        duration: run.seconds,
        verifyBody: (body) => typeof body === 'string' && run.verify(body),
      },
      (error, result) => (error ? reject(error as Error) : resolve(result)),
    );
    // autocannon keeps latencies in whole milliseconds; sub-millisecond latencies (the one-connection
    // runs) need the exact time it emits per response. Its typings omit the leading client argument.
    (instance as EventEmitter).on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
  });

  const problems: string[] = [];
  if (result.non2xx) problems.push(`${result.non2xx} non-2xx (status codes: ${JSON.stringify(result.statusCodeStats)})`);
  if (result.errors) problems.push(`${result.errors} errors (${result.timeouts} timeouts)`);
  if (result.mismatches) problems.push(`${result.mismatches} bodies failed verification`);
  if (!result.requests.total) problems.push('no responses');
  if (problems.length) throw new LoadFailure(`${run.request.method} ${run.request.path}: ${problems.join('; ')}`);

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
