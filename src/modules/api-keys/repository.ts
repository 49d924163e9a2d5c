// API keys, their hourly usage and audit records, through the request's RLS transaction: a user only
// ever reaches their own keys. The hash never leaves this file.
import type { Tx } from '../../db/request-db.js';

export const keyView = {
  id: true,
  keyPrefix: true,
  name: true,
  scopes: true,
  status: true,
  expiresAt: true,
  lastUsedAt: true,
  totalRequests: true,
  createdAt: true,
} as const;

export interface KeyRecord {
  id: string;
  keyPrefix: string;
  name: string;
  scopes: string[];
  status: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  totalRequests: bigint;
  createdAt: Date;
}

export function insertKey(tx: Tx, data: { userId: string; name: string; keyPrefix: string; keyHash: string; scopes: string[]; expiresAt: Date | null; createdBySessionId?: string | null }): Promise<KeyRecord> {
  return tx.apiKey.create({ data, select: keyView });
}

export function listKeys(tx: Tx, userId: string): Promise<KeyRecord[]> {
  return tx.apiKey.findMany({ where: { userId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: keyView });
}

export function findKey(tx: Tx, id: string): Promise<KeyRecord | null> {
  return tx.apiKey.findUnique({ where: { id }, select: keyView });
}

/** Marks a key inactive for good; returns its hash (to evict caches), or null when it is not the caller's. */
export async function revokeKey(tx: Tx, id: string, at: Date): Promise<string | null> {
  const rows = await tx.apiKey.updateManyAndReturn({ where: { id, status: { not: 'inactive' } }, data: { status: 'inactive', revokedAt: at }, select: { keyHash: true } });
  if (rows[0]) return rows[0].keyHash;
  const existing = await tx.apiKey.findUnique({ where: { id }, select: { keyHash: true } });
  return existing?.keyHash ?? null;
}

/** Marks the user's active keys inactive for good (only those minted by one of `sessionIds` when given); their ids. */
export async function revokeKeysOf(tx: Tx, userId: string, at: Date, sessionIds?: readonly string[]): Promise<string[]> {
  const rows = await tx.apiKey.updateManyAndReturn({
    where: { userId, status: 'active', ...(sessionIds && { createdBySessionId: { in: [...sessionIds] } }) },
    data: { status: 'inactive', revokedAt: at },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/** Whether the session still exists (a key minted by a session that ended meanwhile must not stay). */
export async function sessionExists(tx: Tx, sessionId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<unknown[]>`SELECT 1 FROM sessions WHERE id = ${sessionId}::uuid`;
  return rows.length > 0;
}

/** Stored requests of the key in the hour buckets that overlap the last 24 hours. */
export async function requestsSince(tx: Tx, keyId: string, since: Date): Promise<number> {
  const { _sum } = await tx.apiKeyUsage.aggregate({ where: { keyId, hour: { gt: new Date(since.getTime() - 3_600_000) } }, _sum: { requests: true } });
  return _sum.requests ?? 0;
}

export function insertAudit(tx: Tx, data: { keyId: string; action: string; reason?: string | null; ipAddress: string | null; userAgent: string | null }) {
  return tx.apiKeyAudit.create({ data });
}

/** Several audit records in one statement. */
export async function insertAudits(tx: Tx, rows: { keyId: string; action: string; reason: string | null; ipAddress: string | null; userAgent: string | null }[]): Promise<void> {
  if (rows.length) await tx.apiKeyAudit.createMany({ data: rows });
}

export function listAudit(tx: Tx, keyId: string, limit: number) {
  return tx.apiKeyAudit.findMany({
    where: { keyId },
    orderBy: [{ timestamp: 'desc' }, { id: 'desc' }],
    take: limit,
    select: { id: true, keyId: true, action: true, reason: true, ipAddress: true, userAgent: true, timestamp: true },
  });
}
