// A signed-in user's sessions: where they are signed in (browser, address, last seen), and ending one
// or all others. Sessions are never cached, so an ended session fails its very next request.
import Bowser from 'bowser';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { isUuid } from '../../shared/validation.js';
import { recordAudit } from '../audit/service.js';
import * as repo from './repository.js';
import { signedInBySession } from './session-start.js';

export interface SessionView {
  id: string;
  /** The session of this request. */
  current: boolean;
  ipAddress: string | null;
  userAgent: string | null;
  /** The user agent in words (`Chrome 120 on macOS`), null when it names no known browser. */
  device: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

export async function mySessions(scope: RequestScope): Promise<SessionView[]> {
  const { userId, sessionId } = signedInBySession(scope);
  const sessions = await repo.liveSessions(await scope.db.tx(), userId, scope.now());
  return sessions.map((s) => ({ ...s, current: s.id === sessionId, device: deviceName(s.userAgent) }));
}

/** `Chrome 120 on macOS`, `Safari 17 on iOS (iPhone)`; null for what is not a known browser (curl, an SDK). */
export function deviceName(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const { browser, os, platform } = Bowser.parse(userAgent);
  if (!browser.name) return null;
  const version = browser.version?.split('.')[0];
  const system = os.name ? ` on ${os.name}${platform.model ? ` (${platform.model})` : ''}` : '';
  return `${browser.name}${version ? ` ${version}` : ''}${system}`;
}

/** Ends one of the caller's sessions (this one included); another user's is not found (RLS). */
export async function revokeSession(scope: RequestScope, id: string): Promise<{ current: boolean }> {
  const { userId, sessionId } = signedInBySession(scope);
  const tx = await scope.db.tx();
  const found = isUuid(id) && (await repo.deleteSession(tx, id));
  if (!found) throw new AppError('NOT_FOUND', 'Session not found');
  await recordAudit(scope, tx, { userId, action: 'session.revoked', target: { type: 'session', id }, details: { current: id === sessionId } });
  return { current: id === sessionId };
}

/** Ends every session of the caller but this one; how many ended. */
export async function revokeOtherSessions(scope: RequestScope): Promise<number> {
  const { userId, sessionId } = signedInBySession(scope);
  const tx = await scope.db.tx();
  const ended = await repo.deleteSessionsExcept(tx, userId, sessionId);
  await recordAudit(scope, tx, { userId, action: 'sessions.revoked', target: { type: 'user', id: userId }, details: { count: ended, reason: 'sign out elsewhere' } });
  return ended;
}
