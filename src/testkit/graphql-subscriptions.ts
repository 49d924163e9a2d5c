// GraphQL subscriptions as clients open them, for tests: over Server-Sent Events (graphql-yoga's
// protocol: POST /graphql with Accept: text/event-stream, `event: next` / `event: complete`), and over
// WebSocket with the graphql-ws client (subprotocol graphql-transport-ws, what Apollo and urql use) on
// `ws`. Both give the same handle: results waited for one by one, and how the subscription ended.
import { createClient, type Client, type ClientOptions } from 'graphql-ws';
import WebSocket from 'ws';

export interface Result {
  data?: any;
  errors?: { message: string; extensions?: Record<string, any> }[];
}

export interface Subscription {
  /** The HTTP status of the answer (SSE only; 101 for a WebSocket). */
  status: number;
  /** The next result (waiting up to `ms`); rejects on timeout or when the subscription ended without one. */
  next(ms?: number): Promise<Result>;
  /** Every result until none arrives for `quietMs`. */
  drain(quietMs?: number): Promise<Result[]>;
  /** Resolves when the server completes the subscription: 'complete', or the error it ended with. */
  readonly ended: Promise<'complete' | { error: unknown }>;
  /** Leaves (the client unsubscribes or disconnects). */
  close(): void;
}

/** A queue of results with the waiting `next` and `drain` both transports share. */
function resultQueue() {
  const pending: Result[] = [];
  let wake: (() => void) | null = null;
  let over = false;
  let end!: (how: 'complete' | { error: unknown }) => void;
  const ended = new Promise<'complete' | { error: unknown }>((resolve) => (end = resolve));
  const next = async (ms = 10_000): Promise<Result> => {
    const deadline = Date.now() + ms;
    while (!pending.length) {
      if (over) throw new Error('the subscription ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no result within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          wake = null;
          resolve();
        };
      });
    }
    return pending.shift()!;
  };
  return {
    push(result: Result) {
      pending.push(result);
      wake?.();
    },
    finish(how: 'complete' | { error: unknown }) {
      over = true;
      end(how);
      wake?.();
    },
    ended,
    next,
    async drain(quietMs = 500) {
      const results: Result[] = [];
      for (;;) {
        try {
          results.push(await next(quietMs));
        } catch {
          return results;
        }
      }
    },
  };
}

/** Subscribes over SSE (POST /graphql, Accept: text/event-stream); the answer's status is in `status`, a body that is no stream in `body`. */
export async function subscribeOverSse(origin: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Subscription & { body: string }> {
  const abort = new AbortController();
  const response = await fetch(new URL('/graphql', origin), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  const queue = resultQueue();
  let body = '';
  // yoga answers a refused subscription as a stream too (one result with the errors), with the refusal's status.
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    body = await response.text();
    queue.finish({ error: new Error(`not a stream: ${response.status} ${body}`) });
  } else {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        const reader = response.body!.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let at: number;
          while ((at = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            let event = 'message';
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) continue;
              const colon = line.indexOf(':');
              const [name, value] = colon === -1 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
              if (name === 'event') event = value;
              else if (name === 'data') data.push(value);
            }
            if (event === 'complete') return queue.finish('complete');
            if (event === 'next') queue.push(JSON.parse(data.join('\n')));
          }
        }
        queue.finish({ error: new Error('the stream ended without `complete`') });
      } catch (error) {
        queue.finish({ error });
      }
    })();
  }
  return { status: response.status, body, next: queue.next, drain: queue.drain, ended: queue.ended, close: () => abort.abort() };
}

export interface WsOptions {
  /** Headers of the upgrade request (cookie, origin). */
  headers?: Record<string, string>;
  /** The graphql-ws connection_init payload (authorization, x-api-key). */
  connectionParams?: Record<string, unknown>;
  /** The socket's close event (code and reason), e.g. a refused connection. */
  onClosed?: ClientOptions['on'] extends infer O ? (O extends { closed?: infer C } ? C : never) : never;
}

/** A graphql-ws client of the server at `origin` (ws://…/graphql); `dispose()` closes its socket. */
export function wsClient(origin: string, options: WsOptions = {}): Client {
  const headers = options.headers ?? {};
  class WebSocketWithHeaders extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  }
  return createClient({
    url: `${origin.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocketWithHeaders,
    connectionParams: options.connectionParams,
    lazy: true,
    retryAttempts: 0,
    on: options.onClosed ? { closed: options.onClosed } : undefined,
  });
}

/** Subscribes over a graphql-ws client. */
export function subscribeOverWs(client: Client, query: string, variables: Record<string, unknown> = {}): Subscription {
  const queue = resultQueue();
  const unsubscribe = client.subscribe(
    { query, variables },
    {
      next: (result) => queue.push(result as Result),
      error: (error) => queue.finish({ error }),
      complete: () => queue.finish('complete'),
    },
  );
  return { status: 101, next: queue.next, drain: queue.drain, ended: queue.ended, close: unsubscribe };
}
