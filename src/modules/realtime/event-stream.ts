// A subscription as a Server-Sent Events body: each change an unnamed event (`id:` its event id,
// `data:` the change as JSON) so that EventSource's onmessage gets them all, a comment every
// heartbeat so that proxies keep an idle stream open, and, when the server ends the stream, a last
// `END` event saying why. It pulls the next change only once the client has read what was sent: a
// client that reads too slowly leaves changes waiting in its bounded stream, which ends it.
import { Readable } from 'node:stream';
import type { Stream } from '../../realtime/stream.js';
import type { Change } from './service.js';

/** How long an EventSource waits before reconnecting (it then sends Last-Event-ID). */
const retryMs = 2_000;

// A change goes alike to every subscriber of its group (hub.ts): its frame is made once.
const frames = new WeakMap<Change, string>();
function frame(change: Change): string {
  let text = frames.get(change);
  if (text === undefined) frames.set(change, (text = `id: ${change.eventId}\ndata: ${JSON.stringify(change)}\n\n`));
  return text;
}

export function eventStreamBody(stream: Stream<Change>, heartbeatMs: number): Readable {
  let wanted: (() => void) | null = null;
  const body = new Readable({
    read() {
      wanted?.();
      wanted = null;
    },
    destroy(error, callback) {
      clearInterval(heartbeat);
      stream.end({ by: 'client' });
      callback(error);
    },
  });
  const heartbeat = setInterval(() => body.push(': heartbeat\n\n'), heartbeatMs);
  heartbeat.unref();
  body.push(`retry: ${retryMs}\n\n`);

  async function pump(): Promise<void> {
    for await (const change of stream) {
      if (body.destroyed) return;
      // What the hub delivered with it (one batch) goes in the same write: a busy server writes less often, not later.
      const text = [change, ...stream.takeWaiting()].map(frame).join('');
      if (!body.push(text)) await new Promise<void>((resolve) => (wanted = resolve));
    }
    clearInterval(heartbeat);
    if (body.destroyed) return;
    const reason = stream.reason;
    if (reason?.by === 'server') body.push(`data: ${JSON.stringify({ type: 'END', code: reason.code, message: reason.message })}\n\n`);
    body.push(null);
  }
  pump().catch((error: unknown) => body.destroy(error as Error));
  return body;
}
