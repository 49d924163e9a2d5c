// One subscriber's stream: what the hub delivers waits here until the transport (an SSE response,
// a graphql-ws socket) pulls it. It is bounded: a subscriber that lets more than `limit` events wait
// is a slow consumer and its stream ends, rather than the process buffering without bound.

/** Why a stream ended: the client left, or the server ended it (with a reason the client is told). */
export type EndReason = { by: 'client' } | { by: 'server'; code: 'UNAUTHENTICATED' | 'FORBIDDEN' | 'SLOW_CONSUMER' | 'RESTARTING' | 'RESYNC'; message: string };

export interface Stream<T> extends AsyncIterableIterator<T> {
  /** Adds an item, or ends the stream as a slow consumer when `limit` items already wait. */
  push(item: T): void;
  /** Takes every item already waiting (none: empty), without waiting: a transport sends them at once, in one write. */
  takeWaiting(): T[];
  /** Ends the stream: items still waiting are dropped, and the iterator finishes. */
  end(reason: EndReason): void;
  /** Set once the stream ended. */
  readonly reason: EndReason | null;
  /** Resolves with the reason when the stream ends. */
  readonly ended: Promise<EndReason>;
}

/** A bounded stream; `onEnd` runs once, when it ends (the hub forgets it then). */
export function createStream<T>(limit: number, onEnd: (reason: EndReason) => void): Stream<T> {
  const waiting: T[] = [];
  let pull: ((result: IteratorResult<T>) => void) | null = null;
  let reason: EndReason | null = null;
  let settle!: (reason: EndReason) => void;
  const ended = new Promise<EndReason>((resolve) => (settle = resolve));
  const done = (): IteratorResult<T> => ({ value: undefined, done: true });

  const stream: Stream<T> = {
    push(item) {
      if (reason) return;
      if (pull) {
        const resolve = pull;
        pull = null;
        resolve({ value: item, done: false });
        return;
      }
      if (waiting.length >= limit) {
        stream.end({ by: 'server', code: 'SLOW_CONSUMER', message: `More than ${limit} events waited to be sent: the client reads too slowly` });
        return;
      }
      waiting.push(item);
    },
    end(why) {
      if (reason) return;
      reason = why;
      waiting.length = 0;
      pull?.(done());
      pull = null;
      settle(why);
      onEnd(why);
    },
    takeWaiting() {
      return waiting.splice(0);
    },
    get reason() {
      return reason;
    },
    ended,
    next() {
      if (waiting.length) return Promise.resolve({ value: waiting.shift()!, done: false });
      if (reason) return Promise.resolve(done());
      return new Promise((resolve) => (pull = resolve));
    },
    return() {
      stream.end({ by: 'client' });
      return Promise.resolve(done());
    },
    throw(error?: unknown) {
      stream.end({ by: 'client' });
      return Promise.reject(error);
    },
    [Symbol.asyncIterator]() {
      return stream;
    },
  };
  return stream;
}
