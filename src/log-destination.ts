// Where the server's logs go: stdout, written so that a stdout nobody reads can neither block the
// process nor throw. A parent that went away leaves either a closed pipe (writes fail with EPIPE) or a
// full one (writes wait forever); with pino's default destination the latter made the exit flush wait
// forever, and SIGTERM never ended the server.
import pino from 'pino';

/** pino's asynchronous file-descriptor destination (sonic-boom). */
export type LogDestination = ReturnType<typeof pino.destination>;

/**
 * stdout, written asynchronously (off the event loop) with at most `maxQueuedBytes` waiting: beyond that,
 * lines are dropped rather than held in memory. A broken pipe silences it (pino's own handling); any other
 * write error is ignored too: losing log lines must not end the server.
 */
export function stdoutDestination(maxQueuedBytes = 16 * 1024 * 1024): LogDestination {
  const destination = pino.destination({ dest: 1, sync: false, maxLength: maxQueuedBytes });
  destination.on('error', () => {});
  return destination;
}

/**
 * Writes out what is queued within `ms`, then closes the destination; what a stuck stdout did not take by
 * then is dropped, so that the exit that follows does not wait for it (pino flushes open destinations
 * synchronously on exit).
 */
export async function closeDestination(destination: LogDestination, ms: number): Promise<void> {
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    destination.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    try {
      destination.end();
    } catch {
      clearTimeout(timer); // already closed
      resolve(true);
    }
  });
  if (!closed) destination.destroy();
}
