// Passwords: a forgotten one reset through a single-use link sent by e-mail, a known one changed by
// its signed-in user. Either ends the user's other sessions and uses up their open reset links. A
// reset is account recovery, what ends a compromise: it also revokes every API key of the user. A
// change revokes the keys minted by the sessions it ends (whoever held one may have minted a key to
// stay); keys minted by this session, by sessions ended before, or before keys recorded their session
// stay, listed by GET /api-keys for the user to revoke. A reset of an account whose e-mail was never
// verified proves the address: its owner claims the account bare (account-takeover.ts), as a provider
// sign-in would, so nothing its maker set up (members, webhooks, a provider identity) outlives it.
import { hashPassword, verifyPassword } from '../../auth/password.js';
import type { Tx } from '../../db/request-db.js';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { revokeKeysOf } from '../api-keys/service.js';
import { recordAudit } from '../audit/service.js';
import { claimAccount } from './account-takeover.js';
import type { ChangePasswordInput, PasswordResetInput, RequestPasswordResetInput } from './inputs.js';
import { mailLink, openLink } from './mailed-links.js';
import * as repo from './repository.js';
import { renewSession, signedInBySession, type StartedSession, type ThrottledScope } from './session-start.js';

const invalidToken = () => new AppError('INVALID_TOKEN', 'This password reset link is invalid, used or expired: ask for a new one');

/**
 * Asks for a reset link. The answer is decided before the account is looked up, so that it and its
 * timing are the same whether or not the e-mail has an account: the link is made and mailed after the
 * answer. Throttled per e-mail and per address (429).
 */
export async function requestPasswordReset(scope: ThrottledScope, input: RequestPasswordResetInput): Promise<void> {
  await scope.signIns.assertMailLinkAllowed(input.email, scope.client.ip);
  scope.afterAnswer(() => mailResetLink(scope, input.email));
}

/** What a reset does to an account whose address was never verified (account-takeover.ts), said before it is done. */
const unverifiedNotice =
  'This account’s e-mail address was never verified, so someone else may have made it with your address. Setting a password with this link verifies the address and makes the account yours alone: its other sessions, API keys, linked sign-in providers, two-factor setup, the other members and pending invitations of its teams and their webhooks are removed.';

async function mailResetLink(scope: RequestScope, email: string): Promise<void> {
  const account = await repo.findCredentials(scope.system('password reset: account by e-mail'), email);
  if (!account) return;
  await mailLink(scope, account, 'password_reset', scope.config.passwordResetTtlMs, ({ url, token, expiresAt }) => ({
    subject: 'Reset your password',
    text: [
      'Someone (hopefully you) asked to reset the password of this account.',
      '',
      `Choose a new password: ${url('/reset-password')}`,
      `Or send this token with the new password: ${token}`,
      '',
      `The link works once, until ${expiresAt.toISOString()}. If you did not ask, ignore this e-mail: your password stays as it is.`,
      ...(account.emailVerifiedAt ? [] : ['', unverifiedNotice]),
    ].join('\n'),
  }));
}

/**
 * Sets a new password with a reset link's token: the token is used up (a second use, even at the same
 * moment, is refused), every session of the user ends but the caller's own, the user's other open
 * links stop working and every API key of the user is revoked (refused from the answer on, on every
 * instance). An account whose e-mail was never verified is claimed instead (every session ends, and
 * everything its maker set up goes: account-takeover.ts). Does not sign in: the user signs in with the new password.
 */
export async function resetPassword(scope: RequestScope, input: PasswordResetInput): Promise<void> {
  const link = await openLink(scope, 'password_reset', input.token, invalidToken);
  const passwordHash = await hashPassword(input.password);
  const account = await repo.findAccount(scope.system('password reset: the link owner'), link.userId);
  const proof = { purpose: 'password reset: claim an account whose e-mail was never verified', before: link.spend, after: (tx: Tx) => repo.setPasswordHash(tx, link.userId, passwordHash) };
  if (account && !account.emailVerifiedAt && (await claimAccount(scope, account, proof))) return;
  await link.use(async (tx) => {
    const ended = await replacePassword(tx, link.userId, passwordHash, scope.now(), ownSessionOf(scope, link.userId));
    await recordAudit(scope, tx, { userId: link.userId, action: 'sessions.revoked', target: { type: 'user', id: link.userId }, details: { count: ended.length, reason: 'password reset' } }, { userId: link.userId });
    await revokeKeysOf(scope, tx, link.userId, 'password reset');
  });
}

/**
 * Stores a user's new password: their open reset links stop working and every session but `keep`
 * ends (the ids of those that ended). A reset, a change and an operator all go through here. The
 * user's row is locked first, so a key minted at the same moment by a session ending here is either
 * seen by what follows or refused (api-keys createKey).
 */
export async function replacePassword(tx: Tx, userId: string, passwordHash: string, now: Date, keep: string | null): Promise<string[]> {
  await repo.lockUser(tx, userId);
  await repo.setPasswordHash(tx, userId, passwordHash);
  await repo.useAccountTokensOf(tx, userId, 'password_reset', now);
  return repo.endSessionsExcept(tx, userId, keep);
}

/**
 * Checks the signed-in user's password again (a sensitive change): an attempt of a sign-in, taken
 * before the check (429 once blocked); a wrong one stays counted as a failed sign-in.
 */
export async function assertCurrentPassword(scope: ThrottledScope, user: { userId: string; email: string }, password: string): Promise<void> {
  const attempt = await scope.signIns.beginSignIn(user.email, scope.client.ip);
  const found = await repo.findCredentials(scope.system('current password check'), user.email);
  if (!found || found.id !== user.userId || !(await verifyPassword(found.passwordHash, password))) throw new AppError('INVALID_CREDENTIALS', 'The current password is not correct');
  await attempt.succeeded();
}

/**
 * Changes the signed-in user's password, the current one required (a wrong one counts as a failed
 * sign-in: 429 once blocked). Every session of the user ends, and the API keys those sessions minted
 * are revoked; this one starts anew with a new token (its keys stay).
 */
export async function changePassword(scope: ThrottledScope, input: ChangePasswordInput): Promise<{ endedSessions: number; session: StartedSession }> {
  const actor = signedInBySession(scope);
  await assertCurrentPassword(scope, actor, input.currentPassword);
  const passwordHash = await hashPassword(input.newPassword);
  const tx = await scope.db.tx();
  const ended = await replacePassword(tx, actor.userId, passwordHash, scope.now(), actor.sessionId);
  await recordAudit(scope, tx, { userId: actor.userId, action: 'sessions.revoked', target: { type: 'user', id: actor.userId }, details: { count: ended.length, reason: 'password change' } });
  await revokeKeysOf(scope, tx, actor.userId, 'password change', ended);
  return { endedSessions: ended.length, session: await renewSession(scope, tx, actor) };
}

/** The caller's session when the caller is `userId` signed in by cookie: the one a password change keeps. */
function ownSessionOf(scope: RequestScope, userId: string): string | null {
  const { actor } = scope;
  return actor.kind === 'user' && actor.userId === userId ? (actor.sessionId ?? null) : null;
}
