// GraphQL over WebSocket on /graphql: graphql-ws's protocol (subprotocol graphql-transport-ws, what
// Apollo Client and urql speak), for subscriptions above all; queries and mutations run too. Nothing
// here authenticates or limits on its own: every operation (and the connection's first message) is a
// request of the one pipeline (pipeline.ts), made from the upgrade request (its cookie, Origin, address)
// with the credentials the client sent in connection_init (`authorization`, `x-api-key`, `x-team-id`)
// in place of headers a browser's WebSocket cannot set. So a subscription's context, its transaction
// (committed once it is open), rate limits, CSRF and credential rechecks are those of an HTTP request.
// A cross-site page is refused at the upgrade when the cookie would authenticate it (csrf.ts). Socket
// errors (malformed frames, oversized messages, a client that vanishes mid-event) end that socket only.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { CloseCode, handleProtocols, makeServer } from 'graphql-ws';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Config } from '../config/config.js';
import type { GraphQLEndpoint, GraphQLParams, SocketOutcome } from '../graphql/endpoint.js';
import { toClientError } from '../graphql/errors.js';
import { activeTracing } from '../telemetry/tracing.js';
import { isCrossSiteForgery } from './csrf.js';
import { reply, type HttpRequest, type HttpResponse } from '../http/exchange.js';
import { fromNodeRequest } from '../http/node.js';
import type { Pipeline } from './pipeline.js';

export interface WebSocketGateway {
  /** node:http's `upgrade` listener. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every socket (1001 going away): node:http's close() waits for upgraded connections. */
  close(): Promise<void>;
}

interface GatewayDeps {
  schema: GraphQLSchema;
  config: Config;
  logger: Logger;
  pipeline: Pipeline;
  graphql: GraphQLEndpoint;
}

/** What the protocol keeps per connection: the upgrade request. */
interface Extra {
  upgrade: HttpRequest;
}

/** Credentials a client may send in connection_init, standing for the headers of the same names. */
const paramHeaders = new Set(['authorization', 'x-api-key', 'x-team-id']);
/** Headers of the upgrade that are not the operation's. */
const upgradeOnly = /^(connection|upgrade|sec-websocket-.*|content-length|content-type|transfer-encoding)$/;

/** The request an operation (or the connection itself) runs as: a POST to /graphql with the socket's credentials. */
function operationRequest(upgrade: HttpRequest, connectionParams: Readonly<Record<string, unknown>> | undefined): HttpRequest {
  const given = new Map<string, string>();
  for (const [name, value] of Object.entries(connectionParams ?? {})) {
    if (paramHeaders.has(name.toLowerCase()) && typeof value === 'string') given.set(name.toLowerCase(), value);
  }
  const header = (name: string) => {
    const lower = name.toLowerCase();
    return given.get(lower) ?? (upgradeOnly.test(lower) ? null : upgrade.header(lower));
  };
  return {
    method: 'POST',
    url: upgrade.url,
    header,
    headerEntries: () => [...upgrade.headerEntries().filter(([name]) => !upgradeOnly.test(name) && !given.has(name)), ...given],
    remoteAddress: upgrade.remoteAddress,
    body: (async function* () {})(),
  };
}

/** An answer of the pipeline that refused (401, 403 CSRF, 429…) as a GraphQL error. */
function refusalOf(response: HttpResponse): GraphQLError {
  let message = STATUS_CODES[response.status] ?? 'Refused';
  let code = response.status === 429 ? 'RATE_LIMITED' : 'FORBIDDEN';
  try {
    const body = JSON.parse(String(response.body)) as { error?: unknown; code?: unknown };
    if (typeof body.error === 'string') message = body.error;
    if (typeof body.code === 'string') code = body.code;
  } catch {
    // no envelope: the status says it
  }
  const retryAfter = response.headers['retry-after'];
  return new GraphQLError(message, { extensions: { code, http: { status: response.status, ...(typeof retryAfter === 'string' && { headers: { 'retry-after': retryAfter } }) } } });
}

/** The close code a refused connection gets: 4401 and 4403 as graphql-ws uses them, 4429 rate limited, 1013 try again later. */
function closeCodeFor(status: number): number {
  if (status === 401) return CloseCode.Unauthorized;
  if (status === 403) return CloseCode.Forbidden;
  if (status === 429) return 4429;
  return status >= 500 ? 1013 : CloseCode.BadRequest;
}

/** A close reason is at most 123 bytes (ws throws past that): a longer one is cut between characters, with `…` (3 bytes). */
function closeReason(message: string): string {
  if (Buffer.byteLength(message) <= 123) return message;
  let cut = '';
  for (const char of message) {
    if (Buffer.byteLength(cut + char) > 120) break;
    cut += char;
  }
  return `${cut}…`;
}

/** The operation's outcome with its stream closed (an operation refused after it opened). */
function discard(outcome: SocketOutcome | undefined): void {
  if (outcome && 'result' in outcome && Symbol.asyncIterator in outcome.result) void outcome.result[Symbol.asyncIterator]().return?.();
}

export function createWebSocketGateway({ schema, config, logger, pipeline, graphql }: GatewayDeps): WebSocketGateway {
  const log = logger.child({ transport: 'graphql-ws' });
  const tracing = activeTracing();
  /** A message's work as one request of the pipeline, in a span of its own when traces are on. */
  const asRequest = (message: 'connection_init' | 'subscribe', request: HttpRequest, handle: Parameters<Pipeline>[3]) => {
    const requestId = randomUUID();
    const work = () => pipeline(request, requestId, {}, handle);
    return tracing ? tracing.socket(message, requestId, work) : work();
  };
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.bodyLimitBytes, handleProtocols: (protocols) => handleProtocols(protocols) });

  /** Runs `params` as one request of the pipeline; a refusal comes back as GraphQL errors. */
  async function run(request: HttpRequest, params: GraphQLParams): Promise<SocketOutcome> {
    let outcome: SocketOutcome | undefined;
    try {
      const response = await asRequest('subscribe', request, async (ctx) => {
        outcome = await graphql.overSocket(params, ctx);
        return reply(200, null);
      });
      if (response.status < 400 && outcome) return outcome;
      discard(outcome);
      return { refused: [refusalOf(response)] };
    } catch (error) {
      discard(outcome);
      return { refused: [toClientError(error, log)] };
    }
  }

  const server = makeServer<Record<string, unknown>, Extra>({
    // The connection's credentials are checked (and counted) once, as a request: a revoked key or an
    // unknown session is refused here rather than at each operation.
    async onConnect({ connectionParams, extra }) {
      let refusal: GraphQLError | null = null;
      try {
        const response = await asRequest('connection_init', operationRequest(extra.upgrade, connectionParams), async () => reply(204, null));
        if (response.status >= 400) refusal = refusalOf(response);
      } catch (error) {
        refusal = toClientError(error, log);
      }
      if (!refusal) return true;
      const status = (refusal.extensions.http as { status?: number } | undefined)?.status ?? 500;
      connections.get(extra)?.close(closeCodeFor(status), closeReason(refusal.message));
      return false;
    },
    async onSubscribe({ connectionParams, extra }, _id, payload) {
      const outcome = await run(operationRequest(extra.upgrade, connectionParams), payload as GraphQLParams);
      if ('refused' in outcome) return [...outcome.refused];
      // graphql-ws runs what onSubscribe returns: the outcome rides in rootValue, and execute/subscribe hand it over.
      return { schema, document: outcome.document, operationName: payload.operationName, rootValue: outcome } satisfies ExecutionArgs;
    },
    execute: (args) => (args.rootValue as Extract<SocketOutcome, { result: unknown }>).result as never,
    subscribe: (args) => (args.rootValue as Extract<SocketOutcome, { result: unknown }>).result as never,
  });

  const connections = new Map<Extra, WebSocket>();
  const keepAliveMs = 12_000;

  function serve(socket: WebSocket, extra: Extra): void {
    connections.set(extra, socket);
    // ws reports protocol violations (bad frames, a message over maxPayload) here and closes the socket itself.
    socket.on('error', (error) => log.debug({ err: error }, 'WebSocket error'));
    let alive = true;
    socket.on('pong', () => (alive = true));
    const ping = setInterval(() => {
      if (!alive) return void socket.terminate();
      alive = false;
      socket.ping();
    }, keepAliveMs);
    ping.unref();
    const closed = server.opened(
      {
        protocol: socket.protocol,
        // A socket gone mid-event drops what is sent; its close ends the subscriptions.
        send: (data) => new Promise<void>((resolve) => (socket.readyState === socket.OPEN ? socket.send(data, () => resolve()) : resolve())),
        // graphql-ws's reasons may name a client's id (`Subscriber for <id> already exists`): ws refuses reasons past 123 bytes.
        close: (code, reason) => socket.close(code, reason === undefined ? undefined : closeReason(reason)),
        onMessage: (receive) =>
          socket.on('message', (data) => {
            receive(String(data)).catch((error: unknown) => {
              // A message the protocol has but only a server sends (connection_ack, next, error): graphql-ws
              // throws for it; the protocol says 4400 for a message out of place, and it is the client's doing.
              if (error instanceof Error && error.message.startsWith('Unexpected message of type ')) {
                log.debug({ err: error }, 'graphql-ws: a message a client may not send');
                return socket.close(CloseCode.BadRequest, closeReason(error.message));
              }
              log.error({ err: error }, 'graphql-ws: a message could not be handled');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      extra,
    );
    socket.once('close', (code, reason) => {
      clearInterval(ping);
      connections.delete(extra);
      closed(code, String(reason)).catch((error: unknown) => log.error({ err: error }, 'graphql-ws: closing a connection failed'));
    });
  }

  /** Refuses an upgrade with a plain HTTP answer. */
  function refuse(socket: Duplex, status: number, message: string): void {
    const body = JSON.stringify({ success: false, error: message, code: status === 403 ? 'CSRF_REJECTED' : 'NOT_FOUND' });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  }

  return {
    upgrade(req, socket, head) {
      socket.on('error', () => socket.destroy());
      const request = fromNodeRequest(req, config.trustProxy);
      if (request.url.pathname !== '/graphql') return refuse(socket, 404, `No WebSocket endpoint at ${request.url.pathname}: use /graphql`);
      // A browser on another site would open it with our cookie: refused as a cross-site POST is.
      if (isCrossSiteForgery({ ...request, method: 'POST' }, config)) return refuse(socket, 403, 'Cross-site WebSocket refused');
      wss.handleUpgrade(req, socket, head, (ws) => serve(ws, { upgrade: request }));
    },
    async close() {
      const sockets = [...connections.values()];
      for (const socket of sockets) socket.close(1001, 'The server is shutting down: reconnect');
      const gone = Promise.all(sockets.map((socket) => new Promise<void>((resolve) => (socket.readyState === socket.CLOSED ? resolve() : socket.once('close', () => resolve())))));
      const timer = setTimeout(() => sockets.forEach((socket) => socket.terminate()), 1_000);
      await gone;
      clearTimeout(timer);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
