// API keys: minted for the signed-in user (session only), listed, read with usage, revoked for good.
// The full key exists only in the create answer; storage keeps its SHA-256 hash and first 12 characters.
import { randomBytes } from 'node:crypto';
import { hashToken } from '../../auth/secret-token.js';
import { scopeRefusal, scopeResourcesKey } from '../../auth/scopes.js';
import type { Tx } from '../../db/request-db.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { AppError, unauthenticated } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { recordAudit } from '../audit/service.js';
import { assertWithinLimit } from '../teams/plan-usage.js';
import type { CreateApiKeyInput } from './inputs.js';
import * as repo from './repository.js';

export type ApiKeyStatus = 'active' | 'inactive' | 'expired';

export interface ApiKeyView {
  id: string;
  keyPrefix: string;
  name: string;
  scopes: string[];
  status: ApiKeyStatus;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

export interface ApiKeyDetail extends ApiKeyView {
  totalRequests: number;
  requestsLast24h: number;
}

export interface CreatedApiKey extends ApiKeyView {
  /** The full key: shown once, in this answer only. */
  key: string;
}

export const keyPrefixLength = 12;

/** `sk_<env>_` + 40 characters of base64url (30 random bytes: 240 bits). */
export function mintKey(environment: 'live' | 'test'): string {
  return `sk_${environment}_${randomBytes(30).toString('base64url')}`;
}

function signedInUser(scope: RequestScope) {
  if (scope.actor.kind !== 'user') throw unauthenticated();
  return scope.actor;
}

function view(record: repo.KeyRecord, now: Date): ApiKeyView {
  const expired = record.status === 'expired' || (record.status === 'active' && record.expiresAt !== null && record.expiresAt <= now);
  const status: ApiKeyStatus = record.status === 'inactive' ? 'inactive' : expired ? 'expired' : 'active';
  const { totalRequests: _total, ...fields } = record;
  return { ...fields, status };
}

export async function createKey(scope: RequestScope, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const user = signedInUser(scope);
  const resources = scope.services.get(scopeResourcesKey);
  const problems = [...new Set(input.scopes)].map((s) => scopeRefusal(resources, s, user.role)).filter((p): p is string => p !== null);
  if (problems.length) throw new AppError('VALIDATION_ERROR', `Invalid scopes: ${problems.join('; ')}`, { scopes: problems });
  const now = scope.now();
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  if (expiresAt && expiresAt <= now) throw new AppError('VALIDATION_ERROR', 'expiresAt must be in the future', { expiresAt: 'must be in the future' });
  const key = mintKey(scope.config.apiKeys.environment);
  const tx = await scope.db.tx();
  // A key acts in any team of its owner, so each counts it against its plan's `api_keys` (the members'
  // usable keys together): one more must fit in every one. Teams in one order, so that mints by
  // members of the same teams queue on their locks without deadlock (api_key_plan_limit migration).
  for (const teamId of user.teams.map((t) => t.teamId).sort()) await assertWithinLimit(scope, tx, teamId, 'api_keys', 1);
  const record = await repo.insertKey(tx, {
    userId: user.userId,
    name: input.name,
    keyPrefix: key.slice(0, keyPrefixLength),
    keyHash: hashToken(key),
    scopes: [...new Set(input.scopes)],
    expiresAt,
    createdBySessionId: user.sessionId ?? null,
  });
  // A password change, a reset or a provider's takeover ending this session at this very moment locks
  // the user's row first, so the insert above waited for it; a session gone since may leave no key.
  if (user.sessionId && !(await repo.sessionExists(tx, user.sessionId))) throw unauthenticated();
  await repo.insertAudit(tx, { keyId: record.id, action: 'created', ipAddress: scope.client.ip, userAgent: scope.client.userAgent });
  // A key is its user's, not a team's: a user-level entry, shown in each of the user's teams.
  const details = { name: record.name, keyPrefix: record.keyPrefix, scopes: record.scopes, expiresAt: expiresAt?.toISOString() ?? null };
  await recordAudit(scope, tx, { userId: user.userId, action: 'api_key.created', target: { type: 'api_key', id: record.id }, details });
  return { ...view(record, now), key };
}

export async function listKeys(scope: RequestScope): Promise<ApiKeyView[]> {
  const user = signedInUser(scope);
  const now = scope.now();
  return (await repo.listKeys(await scope.db.tx(), user.userId)).map((record) => withPendingUse(scope, view(record, now)));
}

async function ownKey(scope: RequestScope, id: string): Promise<repo.KeyRecord> {
  signedInUser(scope);
  if (!isUuid(id)) throw new AppError('NOT_FOUND', 'API key not found');
  // RLS hides other users' keys: someone else's key is "not found", exactly like a missing one.
  const record = await repo.findKey(await scope.db.tx(), id);
  if (!record) throw new AppError('NOT_FOUND', 'API key not found');
  return record;
}

/** lastUsedAt as this instance knows it, counting uses not yet written. */
function withPendingUse<T extends ApiKeyView>(scope: RequestScope, key: T): T {
  const pending = scope.credentials.pendingUsage(key.id);
  if (pending.lastUsedAt && (!key.lastUsedAt || pending.lastUsedAt > key.lastUsedAt)) return { ...key, lastUsedAt: pending.lastUsedAt };
  return key;
}

export async function getKey(scope: RequestScope, id: string): Promise<ApiKeyDetail> {
  const record = await ownKey(scope, id);
  const now = scope.now();
  const stored24h = await repo.requestsSince(await scope.db.tx(), id, new Date(now.getTime() - 24 * 3_600_000));
  const pending = scope.credentials.pendingUsage(id);
  return {
    ...withPendingUse(scope, view(record, now)),
    totalRequests: Number(record.totalRequests) + pending.count,
    requestsLast24h: stored24h + pending.last24h,
  };
}

/**
 * Revokes a key: inactive for good, refused on the next request on every instance. The eviction is
 * queued by the request's credentials and runs once the revocation is committed, before the answer.
 */
export async function revokeKey(scope: RequestScope, id: string): Promise<ApiKeyView> {
  await ownKey(scope, id);
  const tx = await scope.db.tx();
  const at = scope.now();
  const keyHash = await repo.revokeKey(tx, id, at);
  if (!keyHash) throw new AppError('NOT_FOUND', 'API key not found');
  await repo.insertAudit(tx, { keyId: id, action: 'revoked', ipAddress: scope.client.ip, userAgent: scope.client.userAgent });
  await scope.credentials.forgetKey(keyHash);
  const revoked = view((await repo.findKey(tx, id))!, at);
  await recordAudit(scope, tx, { userId: signedInUser(scope).userId, action: 'api_key.revoked', target: { type: 'api_key', id }, details: { name: revoked.name, keyPrefix: revoked.keyPrefix } });
  return revoked;
}

/**
 * Revokes the user's active keys in `tx`, the unit of work of the change that calls for it (a password
 * reset or change, an account taken over): all of them, or those minted by one of `sessionIds`. Each
 * gets an audit record with `reason`; the user's cached keys are evicted on every instance once the
 * request commits (after `tx`, which commits within it). How many were revoked.
 */
export async function revokeKeysOf(scope: RequestScope, tx: Tx, userId: string, reason: string, sessionIds?: readonly string[]): Promise<number> {
  if (sessionIds?.length === 0) return 0;
  const revoked = await repo.revokeKeysOf(tx, userId, scope.now(), sessionIds);
  await repo.insertAudits(tx, revoked.map((keyId) => ({ keyId, action: 'revoked', reason, ipAddress: scope.client.ip, userAgent: scope.client.userAgent })));
  for (const keyId of revoked) await recordAudit(scope, tx, { userId, action: 'api_key.revoked', target: { type: 'api_key', id: keyId }, details: { reason } });
  if (revoked.length) await scope.credentials.forgetUser(userId);
  return revoked.length;
}

export interface AuditEntry {
  id: string;
  keyId: string;
  action: string;
  reason: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  timestamp: Date;
}

export async function keyAudit(scope: RequestScope, id: string, limit = 100): Promise<AuditEntry[]> {
  await ownKey(scope, id);
  return repo.listAudit(await scope.db.tx(), id, Math.min(Math.max(limit, 1), 500));
}
