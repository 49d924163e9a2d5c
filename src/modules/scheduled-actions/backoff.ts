// When a failed attempt runs again: linear backoff, pure arithmetic.

/** Attempt `attempts` (1-based, as counted by the claim) failed at `now`: the next one is due at `now + attempts × base`. */
export function retryAt(now: Date, attempts: number, baseMs: number): Date {
  return new Date(now.getTime() + attempts * baseMs);
}

/** Whether a failed attempt leaves another one: `maxRetries` is the total number of executions. */
export function mayRetry(attempts: number, maxRetries: number): boolean {
  return attempts < maxRetries;
}
