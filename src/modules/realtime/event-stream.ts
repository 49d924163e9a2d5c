// A subscription as a Server-Sent Events body: each change an unnamed event (`id:` its event id,
// `data:` the change as JSON) so that EventSource's onmessage gets them all, a comment every
// heartbeat so that proxies keep an idle stream open, and, when the server ends the stream, a last
// `END` event saying why. It pulls the next change only once the client has read what was sent: a
// client that reads too slowly leaves changes waiting in its bounded stream, which ends it. Written
// straight to the connection (a push body): one write per subscriber and batch.
import { PushBody, type PushSink } from '../../http/exchange.js';
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

export function eventStreamBody(stream: Stream<Change>, heartbeatMs: number): PushBody {
  return new PushBody((sink) => {
    const heartbeat = setInterval(() => sink.write(': heartbeat\n\n'), heartbeatMs);
    heartbeat.unref();
    sink.write(`retry: ${retryMs}\n\n`);
    pump(stream, sink).catch(() => sink.end());
    return () => {
      clearInterval(heartbeat);
      stream.end({ by: 'client' });
    };
  });
}

async function pump(stream: Stream<Change>, sink: PushSink): Promise<void> {
  for await (const change of stream) {
    // What the hub delivered with it (one batch) goes in the same write: a busy server writes less often, not later.
    if (!sink.write([change, ...stream.takeWaiting()].map(frame).join(''))) await sink.drained();
  }
  if (sink.closed) return;
  const reason = stream.reason;
  if (reason?.by === 'server') sink.write(`data: ${JSON.stringify({ type: 'END', code: reason.code, message: reason.message })}\n\n`);
  sink.end();
}
