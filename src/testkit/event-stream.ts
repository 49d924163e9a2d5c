// An SSE client for tests, over Node's fetch: the events of a text/event-stream answer as they
// arrive (id, event name, data parsed as JSON), waited for one by one.

export interface SseEvent {
  id: string | null;
  event: string | null;
  data: any;
}

export interface SseClient {
  status: number;
  headers: Headers;
  /** Events received and not yet taken. */
  readonly pending: SseEvent[];
  /** The next event (waiting up to `ms`); rejects on timeout or when the stream ended without one. */
  next(ms?: number): Promise<SseEvent>;
  /** Every event until none arrives for `quietMs`. */
  drain(quietMs?: number): Promise<SseEvent[]>;
  /** Resolves when the server ends the stream. */
  readonly closed: Promise<void>;
  close(): void;
}

/** Opens `url` as an event stream; the answer's status is known once it resolves (a refusal's body is in `refusal`). */
export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<SseClient & { refusal: any }> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const pending: SseEvent[] = [];
  let wake = null as (() => void) | null;
  let ended = false;
  let refusal: any = null;
  if (response.status !== 200) {
    const text = await response.text();
    refusal = text ? JSON.parse(text) : null;
  }
  const closed = (async () => {
    if (response.status !== 200 || !response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      const reader = response.body.getReader();
      for (;;) {
        const { value: chunk, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(chunk, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const event: SseEvent = { id: null, event: null, data: undefined };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const [name, value] = colon === -1 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
            if (name === 'id') event.id = value;
            else if (name === 'event') event.event = value;
            else if (name === 'data') data.push(value);
          }
          if (!data.length) continue;
          event.data = JSON.parse(data.join('\n'));
          pending.push(event);
          (wake as (() => void) | null)?.();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      ended = true;
      (wake as (() => void) | null)?.();
    }
  })();
  const next = async (ms = 10_000): Promise<SseEvent> => {
    const deadline = Date.now() + ms;
    while (!pending.length) {
      if (ended) throw new Error('the stream ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${ms} ms`);
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
    status: response.status,
    headers: response.headers,
    refusal,
    pending,
    next,
    async drain(quietMs = 500) {
      const events: SseEvent[] = [];
      for (;;) {
        try {
          events.push(await next(quietMs));
        } catch {
          return events;
        }
      }
    },
    closed,
    close: () => abort.abort(),
  };
}
