// A clock tests control: the app takes it as its `now` (createTestApp's options), so recurrence,
// backoff, reclaim and retention are tested at chosen instants instead of by waiting.

export interface TestClock {
  now(): Date;
  set(at: Date | string): void;
  advance(ms: number): void;
}

export function testClock(start: Date | string = new Date()): TestClock {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    set: (at) => void (current = new Date(at).getTime()),
    advance: (ms) => void (current += ms),
  };
}
