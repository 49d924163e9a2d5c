// E-mail verification (REQUIRE_EMAIL_VERIFICATION): a public signup gets a single-use link by e-mail and
// signs in only once it is followed. Following it marks the address verified and starts a session; a
// new link can be asked for, with the same answer whether or not the account exists or needs one.
// Signups by invitation are verified already (the invitation reached the address), as are accounts an
// operator creates.
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import type { ResendVerificationInput, VerifyEmailInput } from './inputs.js';
import { mailLink, openLink } from './mailed-links.js';
import * as repo from './repository.js';
import { startSession, type StartedSession, type ThrottledScope } from './session-start.js';

const invalidToken = () => new AppError('INVALID_TOKEN', 'This verification link is invalid, used or expired: ask for a new one');

/** Mails `user` a link that verifies their address. */
export function mailVerificationLink(scope: RequestScope, user: { id: string; email: string }): Promise<void> {
  return mailLink(scope, user, 'email_verification', scope.config.emailVerificationTtlMs, ({ url, token, expiresAt }) => ({
    subject: 'Verify your e-mail address',
    text: [
      'Welcome! Confirm that this address is yours to finish signing up.',
      '',
      `Verify: ${url('/verify-email')}`,
      `Or send this token: ${token}`,
      '',
      `The link works once, until ${expiresAt.toISOString()}. If you did not sign up, ignore this e-mail.`,
    ].join('\n'),
  }));
}

/** Follows a verification link: the address is verified, the user's other open links end, and a session starts. */
export async function verifyEmail(scope: RequestScope, input: VerifyEmailInput): Promise<StartedSession> {
  const link = await openLink(scope, 'email_verification', input.token, invalidToken);
  return link.use(async (tx) => {
    const now = scope.now();
    await repo.markEmailVerified(tx, link.userId, now);
    await repo.useAccountTokensOf(tx, link.userId, 'email_verification', now);
    const user = await tx.user.findUniqueOrThrow({ where: { id: link.userId }, select: repo.userView });
    return startSession(scope, tx, user, await repo.firstTeamId(tx, user.id), 'verification link');
  });
}

/**
 * Asks for a new verification link. Answered before the account is looked up (the same answer and
 * timing for an unknown, verified or unverified address); only an unverified account is mailed.
 * Throttled with the other mailed links (429).
 */
export async function resendVerification(scope: ThrottledScope, input: ResendVerificationInput): Promise<void> {
  await scope.signIns.assertMailLinkAllowed(input.email, scope.client.ip);
  scope.afterAnswer(async () => {
    const account = await repo.findCredentials(scope.system('e-mail verification: account by e-mail'), input.email);
    if (account && !account.emailVerifiedAt) await mailVerificationLink(scope, account);
  });
}
