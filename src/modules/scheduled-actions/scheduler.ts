// The built-in scheduler (beyond the contract): with CRON_INTERVAL_SECONDS the server processes a batch
// itself on that interval, so a single host needs no external cron. One batch at a time per process
// (a tick that finds the previous batch still running is skipped); several instances may all run it,
// since the claim decides in the database who runs what.
import type { Logger } from 'pino';

export interface Scheduler {
  /** Stops the timer and waits for a batch in progress. */
  stop(): Promise<void>;
}

export function startScheduler(intervalMs: number, runBatch: () => Promise<unknown>, log: Logger): Scheduler {
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = runBatch()
      .then(() => undefined, (error: unknown) => log.error({ err: error }, 'scheduled actions batch failed'))
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
