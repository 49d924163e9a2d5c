// The bench user's API keys, created through the product's own API (POST /api/v1/api-keys with the
// session cookie) as any client would, and well-formed keys the product never issued.
import { randomBytes } from 'node:crypto';
import { mapLimited } from './concurrency.js';

/**
 * `teams:read` has no scope-specific limit and is not the `*` wildcard, so the only limit on these
 * keys is the tier of the owner's team plan (`free` for the bench user's team).
 */
export const benchKeyScopes = ['teams:read'];
export const rotatingKeyCount = 1000;
/** Keys created at once: enough to overlap the round trips without swamping the server's pool of 8. */
const creationsInFlight = 8;
const keyPattern = /^sk_(live|test)_[A-Za-z0-9_-]{40}$/;
const keyBodyLength = 40;

export interface BenchKeys {
  /** One key, sent over and over (warm cache). */
  warm: string;
  /** Keys of the same user, rotated across requests. */
  rotating: string[];
  /** A fresh key per round for the rate-limit check, so that no earlier request counts against it. */
  rateLimited: string[];
}

/** Creates one key of the bench user and returns the full key (shown only in this answer). */
export async function createApiKey(baseUrl: string, cookie: string, name: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name, scopes: benchKeyScopes }),
  });
  const text = await response.text();
  let body: { success?: unknown; data?: { key?: unknown } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  const key = body?.data?.key;
  if (response.status !== 201 || body?.success !== true || typeof key !== 'string' || !keyPattern.test(key)) {
    throw new Error(`POST /api/v1/api-keys (${name}): ${response.status} ${text.slice(0, 500)}`);
  }
  return key;
}

/** Every key the scenarios use, all of the bench user. */
export async function createBenchKeys(baseUrl: string, cookie: string, rounds: number): Promise<BenchKeys> {
  const names = [
    'bench-warm',
    ...Array.from({ length: rotatingKeyCount }, (_, i) => `bench-rotating-${i + 1}`),
    ...Array.from({ length: rounds }, (_, i) => `bench-rate-limit-${i + 1}`),
  ];
  const keys = await mapLimited(names, creationsInFlight, (name) => createApiKey(baseUrl, cookie, name));
  return { warm: keys[0]!, rotating: keys.slice(1, 1 + rotatingKeyCount), rateLimited: keys.slice(1 + rotatingKeyCount) };
}

/** Keys of the same form as `issued` (`sk_<env>_` + 40 characters of its alphabet) that were never issued. */
export function unknownKeys(issued: string, count: number): string[] {
  const prefix = issued.slice(0, -keyBodyLength);
  // 30 random bytes are exactly 40 base64url characters ([A-Za-z0-9_-]).
  return Array.from({ length: count }, () => prefix + randomBytes(30).toString('base64url'));
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
