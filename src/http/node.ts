// node:http ↔ the app: an IncomingMessage becomes an HttpRequest, the app's HttpResponse is written
// with one writeHead and one end, compressed as the client accepts (compression.ts). Behind a trusted
// proxy the URL takes X-Forwarded-Proto/-Host.
import { STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { compressed } from './compression.js';
import { bodyLength, PushBody, type HttpRequest, type HttpResponse, type PushSink } from './exchange.js';

export interface NodeHandlerOptions {
  trustProxy: boolean;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim() || undefined;
}

function requestUrl(req: IncomingMessage, trustProxy: boolean): URL {
  const proto = (trustProxy && firstValue(req.headers['x-forwarded-proto'])) === 'https' ? 'https' : 'http';
  const host = (trustProxy && firstValue(req.headers['x-forwarded-host'])) || req.headers.host || 'localhost';
  try {
    return new URL(req.url ?? '/', `${proto}://${host}`);
  } catch {
    // A Host header that is not a host: answer for the path alone.
    return new URL(req.url?.startsWith('/') ? req.url : '/', `${proto}://localhost`);
  }
}

/** `req` as the app's request; with `res`, its signal says when the client left before the answer was sent whole. */
export function fromNodeRequest(req: IncomingMessage, trustProxy: boolean, res?: ServerResponse): HttpRequest {
  let left: AbortSignal | undefined;
  return {
    // Made when first asked for (the fetch-API handoff to yoga): most requests never ask.
    get signal() {
      return res && (left ??= clientLeft(res));
    },
    method: req.method ?? 'GET',
    url: requestUrl(req, trustProxy),
    header(name) {
      // node:http lower-cases the names it received; a caller's name may be in any case.
      const value = req.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
    headerEntries() {
      const entries: [string, string][] = [];
      const raw = req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) entries.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
      return entries;
    },
    remoteAddress: req.socket.remoteAddress ?? null,
    // Leaving a read early (a body over the limit) must not destroy the socket the answer goes out on.
    body: req.iterator({ destroyOnReturn: false }),
  };
}

/** A signal aborted when `res`'s connection closes before `res` ended (at once if it has closed already). */
function clientLeft(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (res.destroyed) controller.abort();
  else res.once('close', () => void (res.writableFinished || controller.abort()));
  return controller.signal;
}

export function writeNodeResponse(res: ServerResponse, response: HttpResponse, method: string): void {
  const { body } = response;
  const headers = response.headers;
  if (body instanceof PushBody) return writePushBody(res, response.status, headers, body, method);
  if (body instanceof Readable) {
    res.writeHead(response.status, headers);
    if (method === 'HEAD') {
      body.destroy();
      res.end();
      return;
    }
    // A client that goes away mid-file ends the pipeline; the file is closed, nothing else to do.
    pipeline(body, res).catch(() => {});
    return;
  }
  if (body !== null && headers['content-length'] === undefined) {
    headers['content-length'] = String(bodyLength(body));
  }
  res.writeHead(response.status, headers);
  res.end(method === 'HEAD' || body === null ? undefined : body);
}

/**
 * A push body: no chunked framing (each write one buffer on the socket), the end of the body is the
 * end of the connection. Nothing is written once the client left or the body ended.
 */
function writePushBody(res: ServerResponse, status: number, headers: HttpResponse['headers'], body: PushBody, method: string): void {
  res.removeHeader('transfer-encoding');
  res.writeHead(status, { ...headers, connection: 'close' });
  if (method === 'HEAD') {
    res.end();
    return;
  }
  // The client may have left while the handler ran (a subscription opens after reading): then the
  // body is stopped as soon as it starts, and what it holds let go.
  let closed = res.destroyed || !res.socket || res.socket.destroyed;
  let wake: (() => void) | null = null;
  const woken = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  const sink: PushSink = {
    write: (text) => !closed && !res.writableEnded && res.write(text),
    drained: () => (closed ? Promise.resolve() : new Promise((resolve) => (wake = resolve))),
    get closed() {
      return closed || res.writableEnded;
    },
    end: () => {
      if (!res.writableEnded) res.end();
    },
  };
  res.on('drain', woken);
  // A failed write means the client is gone: the connection goes, and 'close' follows.
  res.on('error', () => res.destroy());
  res.once('close', () => {
    closed = true;
    woken();
    stop();
  });
  const stop = body.start(sink);
  if (closed) stop();
}

/**
 * How long and how much of an unwanted body is read and dropped after an early answer (nginx's
 * lingering close): enough for the uploads a refusal usually meets, bounded for the rest.
 */
export const lingerLimits = { bytes: 8 * 1024 * 1024, ms: 10_000 };

/**
 * Answers a request whose body was not read whole (refused early: 401, 403, 413, 415…) and closes the
 * connection. Closing at once, with the client still writing, makes the client's kernel reset the
 * connection and drop the answer unread (Node's fetch then fails with EPIPE); so the answer is sent,
 * then the rest of the body is read and dropped (up to `lingerLimits`) before the connection ends.
 * Past the bounds the connection is destroyed: the client may then miss the answer.
 */
function answerEarly(req: IncomingMessage, res: ServerResponse, response: HttpResponse, method: string): void {
  response.headers.connection = 'close';
  const { body } = response;
  if (body instanceof Readable || body instanceof PushBody) return writeNodeResponse(res, response, method);
  if (body !== null && response.headers['content-length'] === undefined) {
    response.headers['content-length'] = String(bodyLength(body));
  }
  res.writeHead(response.status, response.headers);
  if (method !== 'HEAD' && body !== null) res.write(body);
  let drained = 0;
  let ended = false;
  const end = (destroy: boolean) => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    req.off('data', count);
    res.end();
    if (destroy) res.once('finish', () => req.socket.destroy());
  };
  const count = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > lingerLimits.bytes) end(true);
  };
  const timer = setTimeout(() => end(true), lingerLimits.ms);
  req.on('data', count);
  req.once('end', () => end(false));
  req.once('error', () => end(true));
  req.socket.once('close', () => end(false));
  req.resume();
}

/** A node:http request listener for `handle`; `handle` never rejects (the app answers its own errors). */
export function nodeHandler(handle: (request: HttpRequest) => Promise<HttpResponse>, options: NodeHandlerOptions): RequestListener {
  return (req, res) => {
    const request = fromNodeRequest(req, options.trustProxy, res);
    handle(request)
      .then((response) => compressed(response, request.header('accept-encoding'), request.method))
      .then(
        (response) => {
          // An answer sent before the body was read whole (too large, refused early) closes the
          // connection rather than receiving the rest of an unwanted upload, after a bounded linger.
          if (!req.complete) answerEarly(req, res, response, request.method);
          else writeNodeResponse(res, response, request.method);
        },
        () => {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end('{"success":false,"error":"Internal server error","code":"INTERNAL_ERROR"}');
        },
      );
  };
}

/**
 * Answers what node:http's own parser refuses before the app sees a request (a byte HTTP forbids in a
 * header, headers too large, a broken chunked body) in the contract's envelope, instead of node's
 * empty 400; the connection then closes.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({ success: false, error: `Malformed HTTP request (${status} ${STATUS_CODES[status]})`, code: 'BAD_REQUEST' });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
}
