// A bare HTTP/1.1 client over a TCP socket. The fuzzer needs to send what fetch refuses to send
// (control characters and NUL in headers, a GET with a body, any method, duplicate headers, bytes
// as given), and to tell an answer from a connection closed without one. One request per
// connection (Connection: close): the answer is everything the server writes until it closes, or,
// for an event stream (which never ends by itself), what it wrote in a bounded time after its head;
// then the client leaves, mid-stream, as a browser closing its tab does.
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** The request target as sent: path and query, already encoded. */
  target: string;
  headers: [string, string][];
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The client left before the answer ended (an event stream read for a bounded time). */
  cut?: boolean;
}

/** How long an event stream is read after its head (ms) before the client closes the connection. */
export const defaultStreamMs = 2_000;

/** The body of a chunked response; what is there when it is cut short. */
function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses what the server wrote; null when it is not an HTTP answer (nothing, or cut before its headers). */
export function parseResponse(data: Buffer, method: string): RawResponse | null {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const [statusLine, ...lines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (!match) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) {
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
  }
  const rest = data.subarray(headEnd + 4);
  const body = method === 'HEAD' ? Buffer.alloc(0) : /chunked/i.test(headers['transfer-encoding'] ?? '') ? dechunk(rest) : rest;
  return { status: Number(match[1]), headers, body };
}

/** Whether `data` holds a whole answer: its headers, then its Content-Length's worth or the last chunk (or no body at all). */
function isComplete(data: Buffer, method: string): boolean {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const head = data.subarray(0, headEnd).toString('latin1');
  if (method === 'HEAD' || /^HTTP\/1\.[01] (1\d\d|204|304)/.test(head)) return true;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) return data.length - headEnd - 4 >= Number(length[1]);
  return /\r\ntransfer-encoding:[^\r]*chunked/i.test(head) && data.subarray(data.length - 5).toString('latin1') === '0\r\n\r\n';
}

/** Whether `data` starts with the head of an event stream (text/event-stream), which ends only when the client leaves. */
function isEventStream(data: Buffer): boolean {
  const headEnd = data.indexOf('\r\n\r\n');
  return headEnd >= 0 && /\r\ncontent-type:\s*text\/event-stream/i.test(data.subarray(0, headEnd).toString('latin1'));
}

/**
 * Sends `request` to host:port; resolves with the answer, or rejects with why there was none (within
 * `timeoutMs`). An event stream is read for `streamMs` after its head, then the client closes the
 * connection and the answer is what came (`cut`).
 */
export function sendRaw(host: string, port: number, request: RawRequest, timeoutMs: number, streamMs = defaultStreamMs): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const received: Buffer[] = [];
    let writeError: Error | undefined;
    let streaming: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      // A server may keep the connection open whatever we asked (an explicit keep-alive): a complete answer is enough.
      const data = Buffer.concat(received);
      if (isComplete(data, request.method)) {
        clearTimeout(timer);
        clearTimeout(streaming);
        socket.destroy();
        resolve(parseResponse(data, request.method)!);
      } else if (streaming === undefined && isEventStream(data)) {
        streaming = setTimeout(() => {
          clearTimeout(timer);
          socket.destroy();
          resolve({ ...parseResponse(Buffer.concat(received), request.method)!, cut: true });
        }, streamMs);
      }
    });
    // A server that answers early and closes may reset the connection while the body is still going
    // out: what it wrote before is still the answer.
    socket.on('error', (error) => void (writeError ??= error));
    socket.on('close', () => {
      clearTimeout(timer);
      clearTimeout(streaming);
      const response = parseResponse(Buffer.concat(received), request.method);
      if (response) resolve(response);
      else reject(new Error(`connection closed without an answer${writeError ? ` (${writeError.message})` : ''}`));
    });
    socket.on('connect', () => {
      const body = request.body ?? Buffer.alloc(0);
      const names = new Set(request.headers.map(([name]) => name.toLowerCase()));
      const head = [`${request.method} ${request.target} HTTP/1.1`, `Host: ${host}:${port}`, 'Connection: close'];
      for (const [name, value] of request.headers) head.push(`${name}: ${value}`);
      if (!names.has('content-length') && !names.has('transfer-encoding') && (body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(request.method))) head.push(`Content-Length: ${body.length}`);
      socket.write(Buffer.from(head.join('\r\n') + '\r\n\r\n', 'latin1'));
      if (body.length) socket.write(body);
    });
  });
}

/** Sends `request` and closes the connection `ms` later, whatever came by then: a client gone before its answer. */
export function sendAndLeave(host: string, port: number, request: RawRequest, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.on('error', () => {});
    socket.on('close', () => resolve());
    socket.on('connect', () => {
      socket.write(Buffer.from([`${request.method} ${request.target} HTTP/1.1`, `Host: ${host}:${port}`, 'Connection: close', ...request.headers.map(([n, v]) => `${n}: ${v}`)].join('\r\n') + '\r\n\r\n', 'latin1'));
      if (request.body?.length) socket.write(request.body);
      setTimeout(() => socket.destroy(), ms);
    });
  });
}
