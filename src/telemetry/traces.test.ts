// OpenTelemetry traces as an operator turns them on: the real server in its own process (the run's
// build of src/main.ts, so the SDK hooks node:http as in production), on PGlite or on a fresh PostgreSQL database
// under TEST_DATABASE_URL, exporting OTLP over HTTP (JSON) to a receiver this test runs. One REST call
// yields one trace: the HTTP server span (with the request id of the answer's x-request-id), the span of
// the GraphQL operation the route runs, and the spans of its SQL statements under them (Prisma's own,
// through @prisma/instrumentation: a `db_query` span per statement); the request's log line names the trace. With traces off (OTEL_SDK_DISABLED) nothing is exported.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracesRequested } from '../config/tracing.js';
import { signUp } from '../testkit/accounts.js';
import { createTestDatabase, seedDataDir, testDatabaseUrl, type TestDatabase } from '../testkit/database.js';
import { subscribeOverWs, wsClient } from '../testkit/graphql-subscriptions.js';
import { freePort, spawnEntry, waitForHealthz, type Spawned } from '../testkit/processes.js';
import { httpClient, type TestApp } from '../testkit/test-app.js';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string } | undefined;
  resource: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: OtlpValue[] } };
type OtlpAttribute = { key: string; value: OtlpValue };

const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? v.arrayValue?.values?.map(valueOf);
const attributesOf = (list: OtlpAttribute[] | undefined) => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
/** Ids as hex, whether the exporter wrote them as hex or base64. */
const hex = (id: string | undefined) => (!id ? undefined : /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex'));

/** An OTLP/HTTP receiver (JSON, POST /v1/traces) keeping every span it is sent. */
async function otlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => void (body += chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const request = JSON.parse(body) as { resourceSpans?: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: Array<{ spans?: any[] }> }> };
        for (const rs of request.resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({ traceId: hex(s.traceId)!, spanId: hex(s.spanId)!, parentSpanId: hex(s.parentSpanId), name: s.name, kind: s.kind, attributes: attributesOf(s.attributes), status: s.status, resource });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1/traces`, spans, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

interface Booted {
  origin: string;
  server: Spawned;
  /** The server's JSON log lines so far. */
  logs(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** The server with `env`, its logs at info on stdout, on its own database. */
async function boot(env: Record<string, string>): Promise<Booted> {
  const dir = await mkdtemp(path.join(tmpdir(), 'traces-test-'));
  let db: TestDatabase | undefined;
  if (testDatabaseUrl) db = await createTestDatabase();
  else await seedDataDir(path.join(dir, 'data')); // the run's migrated template
  const port = await freePort();
  const database: Record<string, string> = db ? { DATABASE_URL: db.url! } : { DATA_DIR: path.join(dir, 'data') };
  const server = spawnEntry('src/main.ts', [], { stdout: 'pipe', env: { PORT: String(port), LOG_LEVEL: 'info', UPLOAD_DIR: path.join(dir, 'uploads'), RATE_LIMIT_ENABLED: 'false', ...database, ...env } });
  const stop = async () => {
    await server.kill();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  };
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitForHealthz(origin, server);
  } catch (error) {
    await stop();
    throw error;
  }
  const logs = () =>
    server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { origin, server, logs, stop };
}

/** Signs up, mints a key for tasks and creates a task with it: the REST call's answer, and the key. */
async function createTaskWithKey(origin: string): Promise<{ status: number; requestId: string; key: string }> {
  const client = httpClient(origin) as TestApp;
  const user = await signUp(client);
  const minted = await client.json('POST', '/api/v1/api-keys', { name: 'traces', scopes: ['tasks:*'] }, { cookie: user.cookie });
  expect(minted.status).toBe(201);
  const created = await client.json('POST', '/api/v1/tasks', { title: 'traced' }, { authorization: `Bearer ${minted.body.data.key}` });
  return { status: created.status, requestId: created.headers.get('x-request-id')!, key: minted.body.data.key };
}

/** Whether `span` descends from `ancestor` within `spans`. */
function descendsFrom(spans: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let at = byId.get(span.parentSpanId ?? ''); at; at = byId.get(at.parentSpanId ?? '')) if (at.spanId === ancestor.spanId) return true;
  return false;
}

async function until<T>(what: string, found: () => T | undefined, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = found();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${ms / 1000} s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('tracesRequested (which variables turn traces on)', () => {
  it('is off by default and on with an exporter or an OTLP endpoint, never with OTEL_SDK_DISABLED=true', () => {
    expect(tracesRequested({})).toBe(false);
    expect(tracesRequested({ OTEL_SERVICE_NAME: 'platform' })).toBe(false);
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'false' })).toBe(true);
  });
});

describe('traces on (OTLP over HTTP, JSON)', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let booted: Booted;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    booted = await boot({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'platform-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
  }, 180_000);
  afterAll(async () => {
    await booted?.stop();
    await receiver?.close();
  });

  it('export one trace for a REST call: its HTTP span, its GraphQL operation and its SQL', async () => {
    const { status, requestId } = await createTaskWithKey(booted.origin);
    expect(status).toBe(201);
    const trace = await until('the spans of the REST call', () => {
      const root = receiver.spans.find((s) => s.attributes['request.id'] === requestId);
      if (!root) return undefined;
      const spans = receiver.spans.filter((s) => s.traceId === root.traceId);
      return spans.some((s) => /^INSERT INTO "public"\."tasks"/.test(String(s.attributes['db.query.text']))) && spans.some((s) => s.attributes['graphql.operation.type']) ? { root, spans } : undefined;
    });
    const { root, spans } = trace;
    // The HTTP server span: the root, named by its route, carrying the request id of the answer.
    expect(root).toMatchObject({ name: 'POST /api/v1/tasks', kind: 2, parentSpanId: undefined });
    expect(root.attributes).toMatchObject({ 'request.id': requestId, 'http.route': '/api/v1/tasks', 'http.request.method': 'POST', 'http.response.status_code': 201, 'url.path': '/api/v1/tasks' });
    expect(root.resource['service.name']).toBe('platform-under-test');
    // The route's GraphQL operation, under it.
    const operation = spans.find((s) => s.attributes['graphql.operation.type'])!;
    expect(operation).toMatchObject({ parentSpanId: root.spanId, kind: 1 });
    expect(operation.attributes).toMatchObject({ 'graphql.operation.type': 'mutation' });
    expect(operation.name).toBe(`mutation ${operation.attributes['graphql.operation.name']}`);
    expect(operation.status?.code ?? 0).not.toBe(2);
    // Its SQL: Prisma's client spans with the parameterised statement, the insert under the operation.
    const insert = spans.find((s) => /^INSERT INTO "public"\."tasks"/.test(String(s.attributes['db.query.text'])))!;
    expect(insert).toMatchObject({ name: 'prisma:client:db_query', kind: 3 });
    expect(descendsFrom(spans, insert, operation)).toBe(true);
    expect(insert.attributes).toMatchObject({ 'db.system.name': 'postgresql' });
    expect(String(insert.attributes['db.query.text'])).toContain('$1');
    expect(String(insert.attributes['db.query.text'])).not.toContain('traced'); // values never reach a span
    const sql = spans.filter((s) => s.attributes['db.query.text'] !== undefined);
    expect(sql.length).toBeGreaterThan(2);
    // Every span of the trace descends from the HTTP span (the key's lookup before the operation included).
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const span of spans) {
      let at: ReceivedSpan | undefined = span;
      while (at?.parentSpanId) at = byId.get(at.parentSpanId);
      expect(at?.spanId, `${span.name} reaches the HTTP span`).toBe(root.spanId);
    }
    // The request's log line names the trace and the HTTP span.
    const line = await until('the request log line', () => booted.logs().find((l) => l.msg === 'request' && l.requestId === requestId));
    expect(line).toMatchObject({ trace_id: root.traceId, span_id: root.spanId, route: '/api/v1/tasks', status: 201 });
  });

  it("export a span for an operation sent to /graphql (yoga's plugin), its SQL under it", async () => {
    const { key } = await createTaskWithKey(booted.origin);
    const answer = await httpClient(booted.origin).graphql('query TracedTasks { tasks { items { id title } } }', {}, { authorization: `Bearer ${key}` });
    expect(answer.status).toBe(200);
    expect(answer.body.data.tasks.items).toHaveLength(1);
    const requestId = answer.headers.get('x-request-id')!;
    const { root, spans } = await until('the spans of the /graphql call', () => {
      const root = receiver.spans.find((s) => s.attributes['request.id'] === requestId);
      if (!root) return undefined;
      const spans = receiver.spans.filter((s) => s.traceId === root.traceId);
      return spans.some((s) => /FROM "public"\."tasks"/.test(String(s.attributes['db.query.text']))) ? { root, spans } : undefined;
    });
    expect(root).toMatchObject({ name: 'POST /graphql', kind: 2 });
    const operation = spans.find((s) => s.name === 'query TracedTasks')!;
    expect(operation).toMatchObject({ parentSpanId: root.spanId, attributes: { 'graphql.operation.type': 'query', 'graphql.operation.name': 'TracedTasks' } });
    const select = spans.find((s) => /FROM "public"\."tasks"/.test(String(s.attributes['db.query.text'])))!;
    expect(select).toMatchObject({ name: 'prisma:client:db_query', kind: 3 });
    expect(descendsFrom(spans, select, operation)).toBe(true);
  });

  it('export a server span per graphql-ws message run as a request, the subscription opening under it', async () => {
    const { key } = await createTaskWithKey(booted.origin);
    const client = wsClient(booted.origin, { connectionParams: { authorization: `Bearer ${key}` } });
    try {
      const subscription = subscribeOverWs(client, 'subscription TracedBoard { taskEvents { type record { title } } }');
      // Open once a change written after it arrives.
      let received = false;
      for (let i = 0; i < 40 && !received; i++) {
        const created = await httpClient(booted.origin).json('POST', '/api/v1/tasks', { title: `over ws ${i}` }, { authorization: `Bearer ${key}` });
        expect(created.status).toBe(201);
        received = await subscription.next(500).then(
          () => true,
          () => false,
        );
      }
      expect(received).toBe(true);
      subscription.close();
    } finally {
      await client.dispose();
    }
    const { socket, operation, spans } = await until('the spans of the graphql-ws subscription', () => {
      const operation = receiver.spans.find((s) => s.name === 'subscription TracedBoard');
      const socket = operation && receiver.spans.find((s) => s.spanId === operation.parentSpanId);
      return socket ? { socket, operation, spans: receiver.spans.filter((s) => s.traceId === socket.traceId) } : undefined;
    });
    expect(socket).toMatchObject({ name: 'WebSocket /graphql subscribe', kind: 2, parentSpanId: undefined });
    expect(socket.attributes).toMatchObject({ 'network.protocol.name': 'websocket', 'url.path': '/graphql', 'graphql_ws.message.type': 'subscribe', 'request.id': expect.any(String) });
    expect(operation.attributes).toMatchObject({ 'graphql.operation.type': 'subscription', 'graphql.operation.name': 'TracedBoard' });
    // Whatever the opening traced (SQL included) descends from the message's span.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const span of spans) {
      let at: ReceivedSpan | undefined = span;
      while (at?.parentSpanId) at = byId.get(at.parentSpanId);
      expect(at?.spanId, `${span.name} reaches the message's span`).toBe(socket.spanId);
    }
    // The connection's first message is a request of its own.
    expect(receiver.spans.some((s) => s.name === 'WebSocket /graphql connection_init' && s.kind === 2)).toBe(true);
  });

  it('export no span for probes (/healthz)', async () => {
    expect((await fetch(`${booted.origin}/healthz`)).status).toBe(200);
    expect(receiver.spans.filter((s) => s.attributes['url.path'] === '/healthz')).toEqual([]);
  });
});

describe('traces off (OTEL_SDK_DISABLED=true, an endpoint configured)', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let booted: Booted;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    booted = await boot({
      OTEL_SDK_DISABLED: 'true',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  }, 180_000);
  afterAll(async () => {
    await booted?.stop();
    await receiver?.close();
  });

  it('export nothing, and log lines carry no trace id', async () => {
    const { status, requestId } = await createTaskWithKey(booted.origin);
    expect(status).toBe(201);
    const line = await until('the request log line', () => booted.logs().find((l) => l.msg === 'request' && l.requestId === requestId));
    expect(line).not.toHaveProperty('trace_id');
    // Spans would be sent within the 100 ms batch delay; give them ample time to (not) arrive.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.spans).toEqual([]);
  });
});
