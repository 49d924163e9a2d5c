// Starting a browser session: a new random token (only its hash is stored) for a user who just proved
// who they are (sign-in, signup, a followed verification link). The edge puts the token in the cookie.
import { hashToken, newToken } from '../../auth/secret-token.js';
import type { SignInThrottle } from '../../auth/sign-in-throttle.js';
import type { Tx } from '../../db/request-db.js';
import { AppError, unauthenticated } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { recordAudit } from '../audit/service.js';
import * as repo from './repository.js';
import type { UserView } from './repository.js';

export interface SessionInfo {
  user: UserView;
  activeTeamId: string | null;
}

/** A session just started: what the client sees, plus the token for its cookie (never stored). */
export interface StartedSession extends SessionInfo {
  token: string;
  expiresAt: Date;
}

/** The request scope of public sign-ins and signups: with the throttle of password guessing and signup floods. */
export type ThrottledScope = RequestScope & { signIns: SignInThrottle };

/** The refusal of a sign-in to a disabled account (told only to whoever proved who they are: right password, provider, second factor). */
export const accountDisabled = () => new AppError('ACCOUNT_DISABLED', 'This account is disabled: ask an operator of this platform');

/** How a user signed in, as their audit trail's `sign_in.succeeded` names it. */
export type SignInMethod = 'password' | 'password and second factor' | 'provider' | 'verification link' | 'signup' | 'invitation signup';

/**
 * Starts a session for `user` (a new token: sign-in, signup, verified e-mail, provider, second factor),
 * recording the sign-in in their audit trail (`how`; null: a session renewed, no sign-in). Every way in
 * passes here, so a disabled account (CLI `user disable`) is refused here, in the unit of work that
 * would insert the session: a disable that committed first is always seen.
 */
export async function startSession(scope: RequestScope, tx: Tx, user: UserView, activeTeamId: string | null, how: SignInMethod | null): Promise<StartedSession> {
  if (await repo.isDisabled(tx, user.id)) throw accountDisabled();
  if (how) await recordAudit(scope, tx, { userId: user.id, action: 'sign_in.succeeded', target: { type: 'user', id: user.id }, details: { method: how } }, { userId: user.id });
  const token = newToken();
  const session = await repo.insertSession(tx, {
    userId: user.id,
    tokenHash: hashToken(token),
    activeTeamId,
    expiresAt: new Date(scope.now().getTime() + scope.config.sessionTtlMs),
    ipAddress: scope.client.ip,
    userAgent: scope.client.userAgent,
  });
  return { user, activeTeamId, token, expiresAt: session.expiresAt };
}

/** The user a signed-in actor is, as answers show them. */
export function userOf(actor: { userId: string; email: string; role: string; profile: Omit<UserView, 'id' | 'email' | 'role'> }): UserView {
  return { id: actor.userId, email: actor.email, role: actor.role, ...actor.profile };
}

/** Ends the caller's session and starts it anew with a new token (a credential changed: password, two-factor). */
export async function renewSession(scope: RequestScope, tx: Tx, actor: ReturnType<typeof signedInBySession>): Promise<StartedSession> {
  await repo.deleteSession(tx, actor.sessionId);
  return startSession(scope, tx, userOf(actor), actor.activeTeamId, null);
}

/** The caller, signed in with a session cookie (not an API key): who may manage their own account. */
export function signedInBySession(scope: RequestScope) {
  const { actor } = scope;
  if (actor.kind !== 'user' || !actor.sessionId) throw unauthenticated();
  return { ...actor, sessionId: actor.sessionId };
}
