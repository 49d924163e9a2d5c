// Graceful stop on SIGTERM/SIGINT, bounded in every case by SHUTDOWN_TIMEOUT_MS: requests in flight get
// most of it, then their connections are closed; closing the app (Redis, scheduler, storage) and the
// database is raced against what remains, and the process exits whatever hangs. Logs are written out
// without waiting on a stdout nobody reads (log-destination.ts). A second signal exits at once.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { closeDestination, type LogDestination } from './log-destination.js';

export interface ShutdownParts {
  server: Server;
  logger: Logger;
  destination: LogDestination;
  timeoutMs: number;
  /** Ends WebSockets and open subscriptions at once: node:http's close() would wait for them (clients reconnect elsewhere). */
  closeStreams?: () => Promise<void>;
  /** Closed in order after the HTTP server, each within what remains of the timeout. */
  closers: Array<{ name: string; close: () => Promise<void> }>;
}

/** Installs the SIGTERM and SIGINT handlers. */
export function stopOnSignals(parts: ShutdownParts): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return void exitNow(parts, 1, `second ${signal}: exiting at once`);
    stopping = true;
    void stop(parts, signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function stop({ server, logger, destination, timeoutMs, closeStreams, closers }: ShutdownParts, signal: NodeJS.Signals): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // The last part of the budget is kept for writing out the logs, the rest for closing.
  const logBudget = Math.min(500, timeoutMs / 10);
  const remaining = () => Math.max(0, deadline - logBudget - Date.now());
  // Queued log lines get at most a second: a reader drains them in milliseconds, a stuck one never.
  const exit = (code: number) => closeDestination(destination, Math.min(1_000, Math.max(0, deadline - Date.now()))).finally(() => process.exit(code));
  const hardStop = setTimeout(() => {
    logger.warn({ timeoutMs }, 'shutdown timeout: exiting with parts still open');
    void exit(1);
  }, remaining());

  logger.info({ signal }, 'shutting down: finishing requests in flight');
  // Requests in flight get up to three quarters of the time left; then their connections are closed.
  const closeConnections = setTimeout(() => server.closeAllConnections(), remaining() * 0.75);
  void closeStreams?.().catch((error: unknown) => logger.warn({ err: error }, 'shutdown: ending WebSockets and subscriptions failed'));
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  clearTimeout(closeConnections);
  let clean = true;
  for (const part of closers) {
    const outcome = await within(part.close(), remaining());
    if (outcome !== 'closed') {
      clean = false;
      logger.warn({ part: part.name, outcome }, `shutdown: ${part.name} did not close cleanly`);
    }
  }
  clearTimeout(hardStop);
  logger.info(clean ? 'stopped' : 'stopped with parts left open');
  await exit(clean ? 0 : 1);
}

/** How a close ended within `ms`: closed, failed, or still pending when the time ran out. */
async function within(closing: Promise<void>, ms: number): Promise<'closed' | 'failed' | 'timed out'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timed out'>((resolve) => (timer = setTimeout(() => resolve('timed out'), ms)));
  try {
    return await Promise.race([closing.then(() => 'closed' as const, () => 'failed' as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function exitNow({ logger, destination }: ShutdownParts, code: number, message: string): void {
  logger.warn(message);
  void closeDestination(destination, 100).finally(() => process.exit(code));
}
