// What an operator does for a user from the CLI, with no request and no session: set a new password
// (every session of the user ends, as do their open reset links) and turn two-factor sign-in off (for a
// user who lost both their authenticator and their recovery codes), each as that user, through RLS;
// set the user's global role, disable and enable them, under the rule that an enabled superadmin
// remains (named system access: that rule reads every user).
import type { GlobalRole } from '../../auth/actor.js';
import type { Database } from '../../db/database.js';
import { runAsUser, systemDb, type Tx } from '../../db/request-db.js';
import type { Credentials } from '../../auth/request-scope.js';
import { hashPassword } from '../../auth/password.js';
import { AppError } from '../../shared/errors.js';
import { recordOperatorAudit } from '../audit/service.js';
import { replacePassword } from './passwords.js';
import * as repo from './repository.js';

async function userByEmail(database: Database, email: string) {
  const user = await repo.findCredentials(systemDb(database, 'cli: user by e-mail'), email.trim().toLowerCase());
  if (!user) throw new AppError('NOT_FOUND', `No user with e-mail ${email}`);
  return user;
}

/** Sets the user's password; answers how many sessions ended. */
export async function setPassword(database: Database, email: string, password: string): Promise<{ id: string; email: string; endedSessions: number }> {
  const user = await userByEmail(database, email);
  const passwordHash = await hashPassword(password);
  const ended = await runAsUser(database, user.id, async (tx) => {
    const ended = await replacePassword(tx, user.id, passwordHash, new Date(), null);
    await recordOperatorAudit(tx, { userId: user.id, action: 'sessions.revoked', target: { type: 'user', id: user.id }, details: { count: ended.length, reason: 'password set by an operator' } });
    return ended;
  });
  return { id: user.id, email: user.email, endedSessions: ended.length };
}

/** Turns the user's two-factor sign-in off (and ends their recovery codes); whether it was on or being set up. */
export async function turnOffTwoFactor(database: Database, email: string): Promise<{ id: string; email: string; wasOn: boolean }> {
  const user = await userByEmail(database, email);
  const wasOn = await runAsUser(database, user.id, async (tx) => {
    const wasOn = await repo.removeTwoFactor(tx, user.id, new Date());
    if (wasOn) await recordOperatorAudit(tx, { userId: user.id, action: 'two_factor.disabled', target: { type: 'user', id: user.id }, details: { by: 'operator' } });
    return wasOn;
  });
  return { id: user.id, email: user.email, wasOn };
}

/** What ends a user's cached credentials on every running server (their API keys), once a change is committed. */
export type Evictions = Pick<Credentials, 'forgetUser'>;

export interface OperatedUser {
  id: string;
  email: string;
  role: string;
  disabledAt: Date | null;
}

const operated = { id: true, email: true, role: true, disabledAt: true } as const;

/**
 * Changes a user under the rule that the platform keeps an enabled superadmin: a change that would
 * leave it with none (demoting or disabling the last one) is refused. The superadmins' rows are locked
 * first, so two operators demoting the last two at once cannot both pass. Named system access: the
 * rule reads every user, not only the target's own row.
 */
async function changeUser(database: Database, email: string, change: (tx: Tx, user: OperatedUser) => Promise<{ wasSuperadminKept: boolean }>): Promise<OperatedUser> {
  const user = await userByEmail(database, email);
  return systemDb(database, 'cli: change a user').prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM users WHERE role = 'superadmin' AND disabled_at IS NULL ORDER BY id FOR UPDATE`;
    const current = await tx.user.findUniqueOrThrow({ where: { id: user.id }, select: operated });
    const { wasSuperadminKept } = await change(tx, current);
    if (current.role === 'superadmin' && !current.disabledAt && !wasSuperadminKept) {
      const others = await tx.user.count({ where: { role: 'superadmin', disabledAt: null, id: { not: current.id } } });
      if (others === 0) throw new AppError('CONFLICT', `${current.email} is the last enabled superadmin: make another user superadmin first`);
    }
    return tx.user.findUniqueOrThrow({ where: { id: user.id }, select: operated });
  });
}

/** Sets the user's global role; their cached API keys are evicted (a key's scopes are cut to the role). */
export async function setRole(database: Database, evictions: Evictions, email: string, role: GlobalRole): Promise<OperatedUser & { previousRole: string }> {
  let previousRole = '';
  const user = await changeUser(database, email, async (tx, current) => {
    previousRole = current.role;
    await tx.user.update({ where: { id: current.id }, data: { role }, select: { id: true } });
    return { wasSuperadminKept: role === 'superadmin' };
  });
  await evictions.forgetUser(user.id);
  return { ...user, previousRole };
}

/**
 * Disables the user: their sessions end, their open single-use links (password reset, sign-in
 * challenges) are used up, and their API keys stop authenticating on every server (evicted once
 * committed); no sign-in works until they are enabled again. Keys are not revoked: enabling the user
 * brings them back. Disabling a disabled user changes nothing.
 */
export async function disableUser(database: Database, evictions: Evictions, email: string): Promise<OperatedUser & { endedSessions: number; wasDisabled: boolean }> {
  let endedSessions = 0;
  let wasDisabled = false;
  const user = await changeUser(database, email, async (tx, current) => {
    wasDisabled = current.disabledAt !== null;
    const now = new Date();
    if (!wasDisabled) await tx.user.update({ where: { id: current.id }, data: { disabledAt: now }, select: { id: true } });
    endedSessions = await repo.deleteSessionsExcept(tx, current.id, null);
    if (!wasDisabled || endedSessions > 0) await recordOperatorAudit(tx, { userId: current.id, action: 'sessions.revoked', target: { type: 'user', id: current.id }, details: { count: endedSessions, reason: 'account disabled by an operator' } });
    for (const purpose of ['password_reset', 'sign_in_challenge', 'email_verification'] as const) await repo.useAccountTokensOf(tx, current.id, purpose, now);
    return { wasSuperadminKept: false };
  });
  await evictions.forgetUser(user.id);
  return { ...user, endedSessions, wasDisabled };
}

/** Enables a disabled user: they may sign in again and their (unrevoked) API keys work again. */
export async function enableUser(database: Database, email: string): Promise<OperatedUser & { wasDisabled: boolean }> {
  const found = await userByEmail(database, email);
  const rows = await systemDb(database, 'cli: enable a user').prisma.user.updateManyAndReturn({ where: { id: found.id, disabledAt: { not: null } }, data: { disabledAt: null }, select: operated });
  const user = rows[0] ?? (await systemDb(database, 'cli: enable a user').prisma.user.findUniqueOrThrow({ where: { id: found.id }, select: operated }));
  return { ...user, wasDisabled: rows.length > 0 };
}
