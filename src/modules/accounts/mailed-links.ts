// Single-use links mailed to a user (a password reset, an e-mail verification): a random 256-bit token
// of which only the SHA-256 is stored, with its purpose and an expiry. The link is mailed with no
// transaction open (an SMTP server may take its time) and recorded in the outbox after; using it takes
// it up in the same transaction as what it does, so two uses at once let one through.
import { hashToken, newToken } from '../../auth/secret-token.js';
import type { Tx } from '../../db/request-db.js';
import { appLink, type Mail } from '../../mail/outbox.js';
import type { RequestScope } from '../../auth/request-scope.js';
import * as repo from './repository.js';
import type { TokenPurpose } from './repository.js';

/** A new single-use token of `purpose` for the user, valid `ttlMs`: stored as its hash, answered once. */
export async function issueAccountToken(scope: RequestScope, userId: string, purpose: TokenPurpose, ttlMs: number): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken();
  const expiresAt = new Date(scope.now().getTime() + ttlMs);
  await scope.runAs(userId, (tx) => repo.insertAccountToken(tx, { userId, purpose, tokenHash: hashToken(token), expiresAt }));
  return { token, expiresAt };
}

/** Makes a link's token for the user and mails what `compose` writes with it. */
export async function mailLink(
  scope: RequestScope,
  user: { id: string; email: string },
  purpose: TokenPurpose,
  ttlMs: number,
  compose: (link: { token: string; url: (path: string) => string; expiresAt: Date }) => Omit<Mail, 'to'>,
): Promise<void> {
  const { token, expiresAt } = await issueAccountToken(scope, user.id, purpose, ttlMs);
  const mail = { to: user.email, ...compose({ token, expiresAt, url: (path) => appLink(scope.config.mail, `${path}?token=${token}`) }) };
  const delivery = await scope.mail.deliver(mail);
  await scope.runAs(user.id, (tx) => scope.mail.record(tx, mail, delivery));
}

/** A live link's token, found: its user, and how to use it up. */
export interface OpenLink {
  userId: string;
  /** As the user: takes the token up and runs `then` in the same transaction; if it is gone meanwhile, throws. */
  use<T>(then: (tx: Tx) => Promise<T>): Promise<T>;
  /** Takes the token up in `tx` (a transaction of the caller's); if it is gone meanwhile, throws. */
  spend(tx: Tx): Promise<void>;
}

/**
 * Finds a link's live token (a cheap read, before any costly work such as hashing a new password).
 * Unknown, used, expired or of another purpose: `invalid()` is thrown, here or when it is used.
 */
export async function openLink(scope: RequestScope, purpose: TokenPurpose, token: string, invalid: () => Error): Promise<OpenLink> {
  const tokenHash = hashToken(token);
  const userId = await repo.accountTokenUser(scope.system(`${purpose}: token owner`), purpose, tokenHash, scope.now());
  if (!userId) throw invalid();
  const spend = async (tx: Tx) => {
    if (!(await repo.useAccountToken(tx, purpose, tokenHash, scope.now()))) throw invalid();
  };
  return {
    userId,
    spend,
    use: (then) =>
      scope.runAs(userId, async (tx) => {
        await spend(tx);
        return then(tx);
      }),
  };
}
