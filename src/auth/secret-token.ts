// Random bearer secrets (session tokens) and their stored form: only a SHA-256 hash is kept.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new random token: 32 bytes (256 bits), base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a token: hex SHA-256. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Whether a presented secret is the expected one, in time that does not depend on where they differ (their SHA-256s compared). */
export function sameSecret(expected: string, presented: string | null | undefined): boolean {
  return typeof presented === 'string' && sameHash(hashToken(expected), hashToken(presented));
}

/** The token of an `Authorization: Bearer <token>` header, or null for any other (or none). */
export function bearerToken(authorization: string | null): string | null {
  return authorization && /^bearer\s/i.test(authorization) ? authorization.slice(7).trim() : null;
}

/** Constant-time comparison of two hex hashes of equal length. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
