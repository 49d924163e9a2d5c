// What an operator does for a user from the CLI, with no request and no session: set a new password
// (every session of the user ends, as do their open reset links) and turn two-factor sign-in off (for a
// user who lost both their authenticator and their recovery codes). Each runs as that user, through RLS.
import type { Database } from '../../db/database.js';
import { runAsUser, systemDb } from '../../db/request-db.js';
import { hashPassword } from '../../auth/password.js';
import { AppError } from '../../shared/errors.js';
import { replacePassword } from './passwords.js';
import * as repo from './repository.js';
import { removeTwoFactor } from './two-factor.js';

async function userByEmail(database: Database, email: string) {
  const user = await repo.findCredentials(systemDb(database, 'cli: user by e-mail'), email.trim().toLowerCase());
  if (!user) throw new AppError('NOT_FOUND', `No user with e-mail ${email}`);
  return user;
}

/** Sets the user's password; answers how many sessions ended. */
export async function setPassword(database: Database, email: string, password: string): Promise<{ id: string; email: string; endedSessions: number }> {
  const user = await userByEmail(database, email);
  const passwordHash = await hashPassword(password);
  const endedSessions = await runAsUser(database, user.id, (tx) => replacePassword(tx, user.id, passwordHash, new Date(), null));
  return { id: user.id, email: user.email, endedSessions };
}

/** Turns the user's two-factor sign-in off (and ends their recovery codes); whether it was on or being set up. */
export async function turnOffTwoFactor(database: Database, email: string): Promise<{ id: string; email: string; wasOn: boolean }> {
  const user = await userByEmail(database, email);
  const wasOn = await runAsUser(database, user.id, (tx) => removeTwoFactor(tx, user.id, new Date()));
  return { id: user.id, email: user.email, wasOn };
}
