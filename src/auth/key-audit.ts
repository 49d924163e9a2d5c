// Audit records of API keys written outside the owner's own requests (authentication failures,
// expiry, rate limiting), through the named system context. Action values: docs/api/api-keys.md.
import type { SystemDb } from '../db/request-db.js';

export interface KeyEventClient {
  ipAddress: string | null;
  userAgent: string | null;
}

export interface KeyEvent extends KeyEventClient {
  keyId: string;
  action: 'auth_failed' | 'expired' | 'rate_limited';
  reason: string | null;
}

export async function recordKeyEvent(system: SystemDb, event: KeyEvent): Promise<void> {
  await system.prisma.apiKeyAudit.create({
    data: { keyId: event.keyId, action: event.action, reason: event.reason, ipAddress: event.ipAddress, userAgent: event.userAgent },
  });
}
