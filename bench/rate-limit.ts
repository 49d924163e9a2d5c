// S7, one key above its rate limit: the product runs with RATE_LIMIT_TIERS=free=<limit>, and one
// fresh key sends exactly limit + extra requests within the minute. Exactly `limit` of them must
// answer 200 (the session, as with the cookie) and every other one 429; any other answer fails the run.
import { isDeepStrictEqual } from 'node:util';
import { bearer } from './api-keys.js';
import { mapLimited } from './concurrency.js';
import type { SessionData } from './session.js';

export const rateLimit = { perMinute: 300, extra: 50 };
const inFlight = 10;
/** The limiter's window is one minute from the first request; a burst this slow would not test it. */
const maxBurstSeconds = 30;

export interface RateLimitCheck {
  round: number;
  limit: number;
  sent: number;
  /** Answers 200. */
  ok: number;
  /** Answers 429. */
  limited: number;
  seconds: number;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRateLimitAnswer(body: unknown): boolean {
  const b = body as { success?: unknown; error?: unknown; retryAfter?: unknown } | undefined;
  return b?.success === false && typeof b.error === 'string' && typeof b.retryAfter === 'number';
}

/** Sends limit + extra keyed GET /api/auth/session and counts the 200s and 429s. */
export async function burstAboveLimit(baseUrl: string, key: string, session: SessionData, round: number): Promise<RateLimitCheck> {
  const { perMinute, extra } = rateLimit;
  const expected = { success: true, data: session };
  const sends = Array.from({ length: perMinute + extra }, (_, i) => i);
  const started = performance.now();
  const statuses = await mapLimited(sends, inFlight, async (i) => {
    const response = await fetch(`${baseUrl}/api/auth/session`, { headers: bearer(key) });
    const text = await response.text();
    const fine = response.status === 200 ? isDeepStrictEqual(parse(text), expected) : response.status === 429 && isRateLimitAnswer(parse(text));
    if (!fine) throw new Error(`rate-limit request ${i + 1}: unexpected answer ${response.status} ${text.slice(0, 500)}`);
    return response.status;
  });
  const seconds = (performance.now() - started) / 1000;
  if (seconds > maxBurstSeconds) throw new Error(`rate-limit burst took ${seconds.toFixed(1)} s, too slow to stay within one window`);
  return {
    round,
    limit: perMinute,
    sent: sends.length,
    ok: statuses.filter((s) => s === 200).length,
    limited: statuses.filter((s) => s === 429).length,
    seconds,
  };
}
