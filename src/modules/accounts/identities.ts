// Sign-in providers as users see them: the configured ones (what a sign-in page offers, public), the
// ones linked to the signed-in user's account, and unlinking one, never the last way to sign in.
import { noPassword } from '../../auth/password.js';
import type { Config } from '../../config/config.js';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { isUuid } from '../../shared/validation.js';
import { signInPath } from './provider-sign-in.js';
import * as repo from './repository.js';
import { signedInBySession } from './session-start.js';

export interface SignInProviderView {
  id: string;
  name: string;
  /** Where a sign-in button sends the browser (add `?redirectTo=` for where it comes back). */
  signInUrl: string;
}

export function signInProviders(config: Config): SignInProviderView[] {
  return config.signIn.providers.map(({ id, name }) => ({ id, name, signInUrl: signInPath(id) }));
}

export interface IdentityView {
  id: string;
  provider: string;
  email: string;
  createdAt: Date;
  lastSignInAt: Date;
}

export async function myIdentities(scope: RequestScope): Promise<IdentityView[]> {
  const { userId } = signedInBySession(scope);
  return repo.identitiesOf(await scope.db.tx(), userId);
}

/**
 * Unlinks one of the caller's identities. Refused when it is their last way to sign in (no password,
 * no other identity); the user's row is locked first, so two unlinks at once cannot both pass.
 */
export async function unlinkIdentity(scope: RequestScope, id: string): Promise<void> {
  const { userId } = signedInBySession(scope);
  const tx = await scope.db.tx();
  const [me] = await tx.$queryRaw<{ password_hash: string }[]>`SELECT password_hash FROM users WHERE id = ${userId}::uuid FOR UPDATE`;
  const identities = await repo.identitiesOf(tx, userId);
  if (!isUuid(id) || !identities.some((i) => i.id === id)) throw new AppError('NOT_FOUND', 'Identity not found');
  if (me?.password_hash === noPassword && identities.length === 1) {
    throw new AppError('CONFLICT', 'This is your only way to sign in: set a password first (password reset) or sign in with another provider');
  }
  await tx.userIdentity.delete({ where: { id }, select: { id: true } });
}
