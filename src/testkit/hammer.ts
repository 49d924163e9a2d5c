// Callers of a credential in a loop while something revokes it (revocation races): every request
// that starts after the revoking answer must be refused, on every instance.
import { expect } from 'vitest';
import type { TestApp } from './test-app.js';

export interface Outcome {
  started: number;
  status: number;
}

export interface Hammered {
  outcomes: Outcome[];
  /** When `act` answered (performance.now()). */
  answered: number;
}

/**
 * Runs `workers` callers of `path` with `headers` in a loop (alternating over `apps`) while `act` runs
 * once they are under way; returns when `act` answered, `afterMs` passed and every request ended.
 * A request that starts after the answer and still gets in shows within moments (a cache not yet
 * evicted, a transaction not yet seen): 300 ms are hundreds of such requests, whose CPU is the test's.
 */
export async function hammer(apps: TestApp[], path: string, headers: Record<string, string>, act: () => Promise<void>, { workers = 16, afterMs = 300 } = {}): Promise<Hammered> {
  const outcomes: Outcome[] = [];
  let running = true;
  const loop = async (worker: number) => {
    for (let i = 0; running; i++) {
      const app = apps[(worker + i) % apps.length]!;
      const started = performance.now();
      const res = await app.fetch(path, { headers });
      await res.arrayBuffer();
      outcomes.push({ started, status: res.status });
    }
  };
  const loops = Array.from({ length: workers }, (_, w) => loop(w));
  await new Promise((resolve) => setTimeout(resolve, 150)); // every worker is under way, the credential cached
  await act();
  const answered = performance.now();
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  running = false;
  await Promise.all(loops);
  return { outcomes, answered };
}

/** The credential was in use before the answer, and every request started after it got `refusal`. */
export function expectRefusedAfter({ outcomes, answered }: Hammered, refusal = 401): void {
  const before = outcomes.filter((o) => o.started < answered);
  const after = outcomes.filter((o) => o.started > answered);
  expect(before.some((o) => o.status === 200)).toBe(true); // it was in use
  expect(after.length).toBeGreaterThan(5); // and the refusals kept coming
  expect(after.filter((o) => o.status !== refusal).map((o) => o.status)).toEqual([]);
}
