// An account whose e-mail was never verified, claimed by whoever proves the address: a provider that
// vouches for it (provider-sign-in.ts), or a password reset link mailed to it (passwords.ts: what an
// attacker's account would otherwise hand over to the owner who merely reset its password, with the
// attacker's own provider identity, members and webhooks left in place). Whoever made the account never proved the address, so nothing
// they set up in it may outlive the claim: with REQUIRE_EMAIL_VERIFICATION off, anyone can sign up
// with someone else's address, mint keys, invite accounts of their own into its team and add webhooks,
// then wait for the address's owner to sign in with a provider and write there. The claim links the
// identity and strips the account bare in one transaction: its sessions end, its other identities are
// unlinked, its password, two-factor and recovery codes go, every API key is revoked, the teams it owns
// keep it alone (other members, pending invitations and webhook endpoints go), it leaves the teams it
// does not own, and the actions it scheduled are cancelled. What is left is its profile, its own teams
// and their records. The user's row is locked first, so a key minted at that moment by one of its
// sessions either is revoked here or is refused (api-keys createKey). Cached keys of the account and of
// every member removed are evicted on every instance once the request commits (after this transaction).
//
// Named system access, not RLS as the account: the account may not, as a user, leave a team it does not
// manage nor cancel actions RLS hides from it; this is the platform acting on the provider's word.
import { noPassword } from '../../auth/password.js';
import type { Tx } from '../../db/request-db.js';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { revokeKeysOf } from '../api-keys/service.js';
import { cancelActionsCreatedBy } from '../scheduled-actions/service.js';
import { releaseTeamsOf } from '../teams/account-takeover.js';
import { createPersonalTeam } from '../teams/service.js';
import { deleteEndpointsOfTeams } from '../webhooks/service.js';
import * as repo from './repository.js';

// As a request's transaction (db/request-db.ts): waiting for PGlite's one connection may take a while under load.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 } as const;

/** How the owner of the address proved it, within the claim's transaction. */
export interface Proof {
  /** Why the platform acts (named system access). */
  purpose: string;
  /** Before the account is stripped: what proves the address (a reset link used up); throws when it no longer does. */
  before?(tx: Tx): Promise<void>;
  /** Once it is stripped: what the owner gets (the identity linked, the new password set). */
  after(tx: Tx): Promise<void>;
  /** The address turned out verified (read under the row's lock): what is done instead of the claim; none, nothing is. */
  verified?(tx: Tx): Promise<void>;
}

/**
 * If the e-mail of `user`'s account was never verified (read again under the row's lock), takes the
 * account over as the top of the file says, with `proof` in the same transaction: the address counts
 * as verified from then on. Whether it was taken over (if not, only `proof.verified` ran).
 */
export async function claimAccount(scope: RequestScope, user: { id: string; email: string; firstName: string }, proof: Proof): Promise<boolean> {
  const system = scope.system(proof.purpose);
  const evict = await system.prisma.$transaction(async (tx) => {
    const locked = await repo.lockUser(tx, user.id);
    if (!locked) throw new AppError('SIGN_IN_FAILED', 'The account of this e-mail was deleted meanwhile: sign in again');
    // Verified meanwhile (a verification link followed): treated as any verified account is.
    if (locked.emailVerifiedAt) {
      await proof.verified?.(tx);
      return null;
    }
    await proof.before?.(tx);
    const evicted = await strip(scope, tx, user);
    await proof.after(tx);
    return evicted;
  }, transactionOptions);
  if (!evict) return false;
  for (const userId of evict) await scope.credentials.forgetUser(userId);
  return true;
}

/** Everything the maker of the account set up goes; the users whose cached keys to evict. */
async function strip(scope: RequestScope, tx: Tx, user: { id: string; email: string; firstName: string }): Promise<string[]> {
  const now = scope.now();
  await repo.endSessionsExcept(tx, user.id, null);
  await repo.deleteIdentitiesOf(tx, user.id);
  await repo.setPasswordHash(tx, user.id, noPassword);
  await repo.removeTwoFactor(tx, user.id, now);
  for (const purpose of ['password_reset', 'sign_in_challenge', 'email_verification'] as const) await repo.useAccountTokensOf(tx, user.id, purpose, now);
  await revokeKeysOf(scope, tx, user.id, 'account claimed by the owner of its e-mail');
  const teams = await releaseTeamsOf(tx, user.id);
  await deleteEndpointsOfTeams(tx, teams.ownedTeamIds);
  await cancelActionsCreatedBy(scope, tx, user.id);
  // An account that owned no team (its maker deleted it) gets a personal team, as a signup would.
  if (!teams.ownedTeamIds.length && scope.config.teams.mode === 'multi-tenant') await createPersonalTeam(tx, user);
  await repo.markEmailVerified(tx, user.id, now);
  return [user.id, ...teams.removedUserIds];
}
