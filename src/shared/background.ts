// Work a request starts and does not wait for: what must not show in the answer or its timing (the
// e-mail of a password reset, whose account may not exist). It runs after the answer, a failure is
// logged, and the app waits for what is still running when it closes, so a shutdown loses none of it.

export interface Background {
  /** Runs `work` on a later turn, beside the request; `onFailure` hears of its error. */
  run(work: () => Promise<void>, onFailure: (error: unknown) => void): void;
  /** Resolves once nothing started here is running (work started meanwhile included). */
  drain(): Promise<void>;
}

export function createBackground(): Background {
  const running = new Set<Promise<void>>();
  return {
    run(work, onFailure) {
      const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(work)
        .catch(onFailure)
        .finally(() => running.delete(done));
      running.add(done);
    },
    async drain() {
      while (running.size) await Promise.all(running);
    },
  };
}
