// Passwords: a forgotten one reset through a single-use link sent by e-mail, a known one changed by
// its signed-in user. Either ends the user's other sessions and uses up their open reset links.
import { hashPassword, verifyPassword } from '../../auth/password.js';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../shared/request-scope.js';
import type { ChangePasswordInput, PasswordResetInput, RequestPasswordResetInput } from './inputs.js';
import { mailLink, openLink } from './mailed-links.js';
import * as repo from './repository.js';
import { signedInBySession, startSession, type StartedSession, type ThrottledScope } from './session-start.js';

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
    ].join('\n'),
  }));
}

/**
 * Sets a new password with a reset link's token: the token is used up (a second use, even at the same
 * moment, is refused), every session of the user ends but the caller's own, and the user's other open
 * links stop working. Does not sign in: the user signs in with the new password.
 */
export async function resetPassword(scope: RequestScope, input: PasswordResetInput): Promise<void> {
  const link = await openLink(scope, 'password_reset', input.token, invalidToken);
  const passwordHash = await hashPassword(input.password);
  await link.use(async (tx) => {
    await repo.setPasswordHash(tx, link.userId, passwordHash);
    await repo.useAccountTokensOf(tx, link.userId, 'password_reset', scope.now());
    await repo.deleteSessionsExcept(tx, link.userId, ownSessionOf(scope, link.userId));
  });
}

/** Checks the signed-in user's password again (a sensitive change); a wrong one counts as a failed sign-in. */
export async function assertCurrentPassword(scope: ThrottledScope, user: { userId: string; email: string }, password: string): Promise<void> {
  const { ip } = scope.client;
  await scope.signIns.assertSignInAllowed(user.email, ip);
  const found = await repo.findCredentials(scope.system('current password check'), user.email);
  if (!found || found.id !== user.userId || !(await verifyPassword(found.passwordHash, password))) {
    await scope.signIns.signInFailed(user.email, ip);
    throw new AppError('INVALID_CREDENTIALS', 'The current password is not correct');
  }
}

/**
 * Changes the signed-in user's password, the current one required (a wrong one counts as a failed
 * sign-in: 429 once blocked). Every session of the user ends; this one starts anew with a new token.
 */
export async function changePassword(scope: ThrottledScope, input: ChangePasswordInput): Promise<{ endedSessions: number; session: StartedSession }> {
  const actor = signedInBySession(scope);
  await assertCurrentPassword(scope, actor, input.currentPassword);
  const passwordHash = await hashPassword(input.newPassword);
  const tx = await scope.db.tx();
  await repo.setPasswordHash(tx, actor.userId, passwordHash);
  await repo.useAccountTokensOf(tx, actor.userId, 'password_reset', scope.now());
  const endedSessions = (await repo.deleteSessionsExcept(tx, actor.userId, null)) - 1;
  const user = { id: actor.userId, email: actor.email, role: actor.role, ...actor.profile };
  return { endedSessions, session: await startSession(scope, tx, user, actor.activeTeamId) };
}

/** The caller's session when the caller is `userId` signed in by cookie: the one a password change keeps. */
function ownSessionOf(scope: RequestScope, userId: string): string | null {
  const { actor } = scope;
  return actor.kind === 'user' && actor.userId === userId ? (actor.sessionId ?? null) : null;
}
