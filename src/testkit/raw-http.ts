// HTTP/1.1 over a plain socket (node:net), for requests no well-behaved client sends: malformed
// bodies, lying Content-Length, a body cut off mid-way. Reads one answer (or notes that none came).
import { connect } from 'node:net';

export interface RawAnswer {
  /** The status line's code; null when the connection closed (or the wait ended) before an answer. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (after answering, or without answering). */
  closed: boolean;
}

export interface RawRequestOptions {
  /** Half-close the socket after writing (the client sends nothing more); default false. */
  endWrite?: boolean;
  /** How long to wait for a whole answer; default 20 s. */
  timeoutMs?: number;
}

/** Builds a request's bytes: the request line, the headers (Host and Content-Length added when missing) and the body. */
export function rawRequestBytes(method: string, path: string, headers: Record<string, string>, body: Buffer | string = '', contentLength = true): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'latin1') : body;
  const all: Record<string, string> = { host: 'localhost', ...headers };
  if (contentLength && !Object.keys(all).some((name) => name.toLowerCase() === 'content-length')) all['content-length'] = String(bytes.length);
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), bytes]);
}

/** Sends `bytes` to the server at `origin` and reads one answer (by Content-Length, chunked, or to the close). */
export function rawExchange(origin: string, bytes: Buffer, options: RawRequestOptions = {}): Promise<RawAnswer> {
  const { port, hostname } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let closed = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseAnswer(Buffer.concat(chunks)), closed });
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 20_000);
    socket.on('error', () => {}); // a reset after the answer, or a refused write: what was read is the answer
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (parseAnswer(Buffer.concat(chunks)).complete) finish();
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.write(bytes, () => {
      if (options.endWrite) socket.end();
    });
  });
}

function parseAnswer(data: Buffer): Omit<RawAnswer, 'closed'> & { complete: boolean } {
  const text = data.toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return { status: null, headers: {}, body: '', complete: false };
  const [statusLine, ...lines] = text.slice(0, headEnd).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(headEnd + 4);
  let complete = false;
  if (headers['content-length'] !== undefined) {
    complete = Buffer.byteLength(body, 'latin1') >= Number(headers['content-length']);
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    complete = /(^|\r\n)0\r\n\r\n$/.test(body);
    if (complete) body = dechunk(body);
  }
  return { status: Number.isNaN(status) ? null : status, headers, body: Buffer.from(body, 'latin1').toString('utf8'), complete };
}

function dechunk(body: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = parseInt(body.slice(at, lineEnd), 16);
    if (!size) return out;
    out += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
