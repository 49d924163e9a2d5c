// The words of tracing as the app uses them: a GraphQL operation, an SQL statement, the request being
// answered, the ids a log line carries. When traces are off (the default) nothing is installed, the
// app checks for `undefined` and calls nothing: no OpenTelemetry package is loaded. When they are on,
// main.ts starts the SDK (start.ts) before it imports the app, and start.ts installs the Tracing here.

/** A GraphQL operation about to run: its type and name, never its document or variables. */
export interface TracedOperation {
  type: 'query' | 'mutation' | 'subscription';
  name: string | undefined;
}

export interface Tracing {
  /** Runs a GraphQL operation in a span of its own, the ancestor of the spans of its SQL. */
  operation<T>(operation: TracedOperation, run: () => Promise<T>): Promise<T>;
  /** Runs one SQL statement that bypasses Prisma (the hot lookups) in a span, when it runs within a traced request (or operation); Prisma traces its own. */
  statement<T>(sql: string, run: () => Promise<T>): Promise<T>;
  /**
   * Runs what a graphql-ws message asks (the connection's `connection_init`, an operation's
   * `subscribe`) in a server span of its own: a WebSocket's messages are requests no HTTP span covers.
   */
  socket<T>(message: 'connection_init' | 'subscribe', requestId: string, run: () => Promise<T>): Promise<T>;
  /** Marks the HTTP request being answered (the active server span) with its request id and route. */
  answered(requestId: string, method: string, route: string): void;
  /** The active span's trace and span ids, for a log line (pino's mixin); empty outside any span. */
  logFields(): { trace_id?: string; span_id?: string };
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

/** The process's tracing, or undefined when traces are off. */
export function activeTracing(): Tracing | undefined {
  return installed;
}

/** Called once by start.ts, before the app is imported. */
export function installTracing(tracing: Tracing): void {
  installed = tracing;
}
