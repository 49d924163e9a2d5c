// Every answer's last steps: a request id (the caller's when well-formed), errors nothing else caught
// made into the envelope (a database refusal → its 4xx, an outage → 503 with Retry-After, anything
// else → a logged 500), security headers, the metrics observation, the request id and route on the
// request's span (when traces are on) and one log line.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { databaseRefusal } from '../db/errors.js';
import { databaseRetryAfterSeconds, databaseUnavailable, isDatabaseUnavailable, reportDatabaseOutage } from '../db/unavailable.js';
import { failure } from '../rest/envelope.js';
import { AppError } from '../shared/errors.js';
import { activeTracing } from '../telemetry/tracing.js';
import type { HttpRequest, HttpResponse } from '../http/exchange.js';
import { decorate } from '../http/headers.js';
import type { Metrics } from './metrics.js';

/** A dispatched request: its answer and the route it took (metrics and logs). */
export interface Handled {
  response: HttpResponse;
  route: string;
}

const requestIdPattern = /^[A-Za-z0-9._-]{8,128}$/;

/** The app's request handler around `dispatch`; never rejects. */
export function respondingWith(dispatch: (request: HttpRequest, requestId: string) => Promise<Handled>, config: Config, logger: Logger, metrics: Metrics | null) {
  const tracing = activeTracing();
  /** The answer to what `dispatch` threw. */
  function answerError(thrown: unknown, requestId: string): Handled {
    // A value the database cannot hold, a record already gone: the request's fault (db/errors.ts).
    const error = databaseRefusal(thrown) ?? thrown;
    if (error instanceof AppError) {
      const response = failure(error.status, error.code, error.message, error.details);
      // A throttle's refusal (sign-ins, signups, mailed links) says when to come back, as GraphQL's does.
      Object.assign(response.headers, error.headers);
      return { response, route: 'error' };
    }
    if (isDatabaseUnavailable(error)) {
      reportDatabaseOutage(logger, error);
      const unavailable = databaseUnavailable();
      return { response: failure(unavailable.status, unavailable.code, unavailable.message, unavailable.details), route: 'error' };
    }
    logger.error({ requestId, err: error }, 'unexpected error');
    return { response: failure(500, 'INTERNAL_ERROR', 'Internal server error'), route: 'error' };
  }

  return async (request: HttpRequest): Promise<HttpResponse> => {
    const started = performance.now();
    const incomingId = request.header('x-request-id');
    const requestId = incomingId && requestIdPattern.test(incomingId) ? incomingId : randomUUID();
    const { response, route } = await dispatch(request, requestId).catch((thrown: unknown) => answerError(thrown, requestId));
    // A 503 (database unreachable, starting, busy) always says when to come back.
    if (response.status === 503 && response.headers['retry-after'] === undefined) response.headers['retry-after'] = String(databaseRetryAfterSeconds);
    decorate(response, request, config, requestId, request.url.origin);
    const seconds = (performance.now() - started) / 1000;
    metrics?.observe(request.method, route, response.status, seconds);
    tracing?.answered(requestId, request.method, route);
    if (logger.isLevelEnabled('info')) {
      logger.info({ requestId, method: request.method, route, status: response.status, ms: Math.round(seconds * 10_000) / 10 }, 'request');
    }
    return response;
  };
}
