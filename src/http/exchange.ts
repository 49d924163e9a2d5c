// The app's own request and response: plain objects over node:http, so the hot path builds no
// fetch-API Request/Response (their streams, abort signals and header classes cost more than the
// work of a cached GraphQL query). Fetch objects are made only where a library needs them (yoga's
// full pipeline for GraphiQL and unusual GraphQL requests), with the converters below.
import { Readable } from 'node:stream';

export interface HttpRequest {
  method: string;
  url: URL;
  /** A header's value by its name in any case; repeated headers are joined with ", ". */
  header(name: string): string | null;
  /** All request headers, for handing the request on to a fetch-API library. */
  headerEntries(): [string, string][];
  /** The peer's address (the proxy's, behind one). */
  remoteAddress: string | null;
  /** The raw body bytes, read once. */
  body: AsyncIterable<Uint8Array>;
  /**
   * Aborted when the client's connection closes before the answer was sent whole: the client left
   * (a stream's subscriber gone). Absent where no answer is written (a WebSocket upgrade).
   */
  readonly signal?: AbortSignal;
}

/**
 * A stream body (a stored file) is piped out; its response sets content-length itself. A push body
 * (Server-Sent Events) is written as it comes.
 */
export type HttpBody = string | Uint8Array | Readable | PushBody | null;

/** Where a push body writes, while its client stays. */
export interface PushSink {
  /** Sends `text`; false when the client's socket is full (wait for `drained`) or the client left. */
  write(text: string): boolean;
  /** Resolves once the client can take more, or has left. */
  drained(): Promise<void>;
  /** Whether the client has left, or the body ended. */
  readonly closed: boolean;
  /** Ends the body, and the connection with it. */
  end(): void;
}

/**
 * A body written as it comes, for as long as its client stays (Server-Sent Events). Once the headers
 * are out, `start` is given the sink; what it returns runs once, when the client leaves or the body
 * ended. Each write goes straight to the connection, with no stream or chunked framing between (a
 * change fans out to every subscriber at once: the less each write costs, the sooner the last
 * subscriber has it); the body ends with the connection, as HTTP/1.1 allows, which is not kept alive.
 */
export class PushBody {
  constructor(readonly start: (sink: PushSink) => () => void) {}
}

export interface HttpResponse {
  status: number;
  /** Lower-case names; `set-cookie` may carry several values. */
  headers: Record<string, string | string[]>;
  body: HttpBody;
}

/** The length in bytes of a whole body (a string as UTF-8). */
export const bodyLength = (body: string | Uint8Array): number => (typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);

/** A response; header names are lower-cased here, so later look-ups by lower-case name find them. */
export function reply(status: number, body: HttpBody, headers: Record<string, string | string[]> = {}): HttpResponse {
  return { status, headers: lowerCaseHeaders(headers), body };
}

/**
 * The same headers under lower-case names (HTTP names are case-insensitive; the app looks them up in
 * lower case). Values of names that differ only in case are joined as appendHeader joins them.
 */
export function lowerCaseHeaders(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  let lower = true;
  for (const name in headers) if (name !== name.toLowerCase()) lower = false;
  if (lower) return headers;
  const response: HttpResponse = { status: 0, headers: {}, body: null };
  for (const [name, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : [value]) appendHeader(response, name, one);
  }
  return response.headers;
}

/** Adds one value to a header that may repeat (set-cookie, vary); `name` in any case. */
export function appendHeader(response: HttpResponse, anyCaseName: string, value: string): void {
  const name = anyCaseName.toLowerCase();
  const current = response.headers[name];
  if (current === undefined) response.headers[name] = value;
  else response.headers[name] = Array.isArray(current) ? [...current, value] : name === 'set-cookie' ? [current, value] : `${current}, ${value}`;
}

/** A fetch-API Request with the same method, URL and headers, and `body` (or the unread body stream). */
export function toFetchRequest(request: HttpRequest, body?: string): Request {
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method: request.method, headers: request.headerEntries(), signal: request.signal ?? null };
  if (hasBody) {
    init.body = body ?? (Readable.toWeb(Readable.from(request.body)) as ReadableStream<Uint8Array>);
    init.duplex = 'half';
  }
  return new Request(request.url, init);
}

/** Media types whose bodies are streams that last (GraphQL subscriptions over SSE, incremental delivery). */
const streamedMediaType = /^\s*(text\/event-stream|multipart\/mixed)\b/i;

/**
 * The fetch-API Response as the app's response: read whole (small bodies), or, for a stream that lasts
 * (a subscription's text/event-stream), piped on as it comes; a client that leaves cancels it.
 */
export async function fromFetchResponse(response: Response): Promise<HttpResponse> {
  const answer = reply(response.status, null);
  // Some fetch implementations (yoga's @whatwg-node ponyfill) keep the case a header was set with:
  // appendHeader lower-cases the name.
  response.headers.forEach((value, name) => {
    if (name.toLowerCase() !== 'set-cookie') appendHeader(answer, name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) answer.headers['set-cookie'] = cookies;
  if (response.body && streamedMediaType.test(response.headers.get('content-type') ?? '')) {
    answer.body = readableOf(response.body);
    return answer;
  }
  answer.body = response.body ? new Uint8Array(await response.arrayBuffer()) : null;
  return answer;
}

/**
 * A fetch-API body as a node Readable, pulled as the client reads; destroying it (the client left)
 * cancels the body. By hand: yoga's fetch ponyfill makes streams Readable.fromWeb does not take.
 */
function readableOf(body: ReadableStream<Uint8Array>): Readable {
  const reader = body.getReader();
  return new Readable({
    read() {
      reader.read().then(
        ({ value, done }) => void this.push(done ? null : value),
        (error: unknown) => this.destroy(error as Error),
      );
    },
    destroy(error, callback) {
      reader.cancel(error ?? undefined).catch(() => {});
      callback(error);
    },
  });
}
