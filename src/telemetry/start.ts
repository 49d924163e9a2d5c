// OpenTelemetry's Node SDK, started by main.ts only when traces are asked for (config/tracing.ts),
// before the app is imported: node:http is instrumented as it is imported (an ESM import goes through
// import-in-the-middle's loader hook, registered here for the instrumented modules only). The SDK
// takes its exporter, endpoint, protocol, sampler, propagators and resource from the standard OTEL_*
// variables; traces only (metrics stay Prometheus's, on /metrics; logs stay pino's, on stdout).
//
// Spans: the HTTP server span of each request (instrumentation-http), a server span per graphql-ws
// message that runs as a request (Tracing.socket), a span per GraphQL operation (yoga's plugin and
// the REST routes' compiled operations, through Tracing.operation; a subscription's while it opens) and
// Prisma's own spans (@prisma/instrumentation): its operations and transactions, and a `db_query` span
// per SQL statement with its parameterised text, the same on PGlite and PostgreSQL (the pg
// instrumentation would see PostgreSQL only). The hot lookups that bypass Prisma get theirs through
// Tracing.statement (db/database.ts).
import { register } from 'node:module';
import { context, INVALID_SPAN_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type SpanOptions, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PrismaInstrumentation, registerInstrumentations } from '@prisma/instrumentation';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { installTracing, type TracedOperation, type Tracing } from './tracing.js';

/** Probes and scrapes, every few seconds: no trace for them. */
const untraced = new Set(['/healthz', '/readyz', '/metrics']);

/** Query parameters whose values never reach a span (OAuth's code and state, invitations), beside the SDK's own list. */
const redactedQueryParams = ['code', 'state', 'inviteToken', 'token', 'sig', 'Signature', 'AWSAccessKeyId', 'X-Goog-Signature'];

/** A code that says what failed without quoting anything (an SQLSTATE, a domain code, an error's class). */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown; cause?: { originalCode?: unknown } } | null)?.cause?.originalCode ?? (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code)) return code;
  return error instanceof Error ? error.name : 'Error';
}

/** The codes of a GraphQL result's errors (extensions.code, as the client gets them, else the original error's). */
function graphqlErrorCodes(result: unknown): string[] {
  const errors = (result as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors) || !errors.length) return [];
  const codes = errors.map((error: { extensions?: { code?: unknown }; originalError?: unknown }) =>
    typeof error?.extensions?.code === 'string' ? error.extensions.code : error?.originalError ? errorType(error.originalError) : 'GRAPHQL_ERROR',
  );
  return [...new Set(codes)];
}

/** The statement's first keyword (SELECT, INSERT, COMMIT …), its span's name. */
function operationOf(sql: string): string {
  return /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
}

function failed(span: Span, error: unknown): void {
  const type = errorType(error);
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** Runs `run` in `span`, ended after it (failed when it throws); `settled` may mark the span from the result. */
async function within<T>(span: Span, run: () => Promise<T>, settled?: (result: T) => void): Promise<T> {
  try {
    const result = await run();
    settled?.(result);
    return result;
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * `provider`, whose spans start only within a traced request or operation: start-up, the scheduler and
 * the sweeper run Prisma's statements outside any request, and those alone would be noise.
 */
function withinTraces(provider: TracerProvider): TracerProvider {
  const untracedSpan = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  return {
    getTracer(name, version, options) {
      const tracer = provider.getTracer(name, version, options);
      const traced: Tracer = {
        startSpan: (spanName: string, spanOptions?: SpanOptions, parent: Context = context.active()) => (trace.getSpan(parent) ? tracer.startSpan(spanName, spanOptions, parent) : untracedSpan),
        startActiveSpan: ((spanName: string, ...rest: unknown[]) => {
          const run = rest.pop() as (span: Span) => unknown;
          const [spanOptions = {}, parent = context.active()] = rest as [SpanOptions?, Context?];
          return trace.getSpan(parent) ? tracer.startActiveSpan(spanName, spanOptions, parent, run) : run(untracedSpan);
        }) as Tracer['startActiveSpan'],
      };
      return traced;
    },
  };
}

/** Starts the SDK and installs the app's Tracing (telemetry/tracing.ts); resolves once node:http is hooked. */
export async function startTracing(): Promise<Tracing> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const sdk = new NodeSDK({
    // service.name is `platform` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise (they are merged over this).
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': 'platform' })),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => untraced.has((request.url ?? '/').split('?')[0]!),
        redactedQueryParamsServer: redactedQueryParams,
        // An outgoing call (S3, a webhook) is traced within a traced request or operation, not on its own.
        requireParentforOutgoingSpans: true,
      }),
    ],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  registerInstrumentations({ instrumentations: [new PrismaInstrumentation()], tracerProvider: withinTraces(trace.getTracerProvider()) });
  await waitForAllMessagesAcknowledged();
  const tracer = trace.getTracer('platform');

  const tracing: Tracing = {
    operation<T>(operation: TracedOperation, run: () => Promise<T>): Promise<T> {
      const attributes = { 'graphql.operation.type': operation.type, ...(operation.name && { 'graphql.operation.name': operation.name }) };
      return tracer.startActiveSpan(operation.name ? `${operation.type} ${operation.name}` : operation.type, { attributes }, (span) =>
        within(span, run, (result) => {
          const codes = graphqlErrorCodes(result);
          if (codes.length) {
            span.setAttribute('graphql.error.codes', codes);
            span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(', ') });
          }
        }),
      );
    },

    socket<T>(message: 'connection_init' | 'subscribe', requestId: string, run: () => Promise<T>): Promise<T> {
      const attributes = { 'network.protocol.name': 'websocket', 'url.path': '/graphql', 'graphql_ws.message.type': message, 'request.id': requestId };
      return tracer.startActiveSpan(`WebSocket /graphql ${message}`, { kind: SpanKind.SERVER, attributes }, (span) => within(span, run));
    },

    async statement<T>(sql: string, run: () => Promise<T>): Promise<T> {
      const parent = context.active();
      // Start-up, the scheduler and the sweeper run outside any request: their statements alone would be noise.
      if (!trace.getSpan(parent)) return run();
      const operation = operationOf(sql);
      const attributes = { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.text': sql };
      return within(tracer.startSpan(operation, { kind: SpanKind.CLIENT, attributes }, parent), run);
    },

    answered(requestId, method, route) {
      const span = trace.getActiveSpan();
      if (!span) return;
      span.setAttribute('request.id', requestId);
      if (route.startsWith('/')) {
        span.setAttribute('http.route', route);
        span.updateName(`${method} ${route}`);
      }
    },

    logFields() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },

    shutdown: () => sdk.shutdown(),
  };
  installTracing(tracing);
  return tracing;
}
