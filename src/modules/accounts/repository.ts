// Users and sessions in the database. Selects name what callers may see: the password hash leaves
// this file only through findCredentials.
import type { SystemDb, Tx } from '../../db/request-db.js';

export const userView = { id: true, email: true, role: true, firstName: true, lastName: true, image: true } as const;

export interface UserView {
  id: string;
  email: string;
  role: string;
  firstName: string;
  lastName: string;
  image: string | null;
}

export function insertUser(tx: Tx, data: { id: string; email: string; passwordHash: string; firstName: string; lastName: string; role: string; emailVerifiedAt?: Date }): Promise<UserView> {
  return tx.user.create({ data, select: userView });
}

/** The user and password hash for an e-mail, looked up before anyone is signed in. */
export function findCredentials(system: SystemDb, email: string) {
  return system.prisma.user.findUnique({ where: { email }, select: { ...userView, passwordHash: true, emailVerifiedAt: true, disabledAt: true, totp: { select: { enabledAt: true } } } });
}

/** A mailed link's owner, with whether their e-mail was ever verified, looked up before anyone is signed in. */
export function findAccount(system: SystemDb, userId: string) {
  return system.prisma.user.findUnique({ where: { id: userId }, select: { id: true, email: true, firstName: true, emailVerifiedAt: true } });
}

export function insertSession(tx: Tx, data: { userId: string; tokenHash: string; activeTeamId: string | null; expiresAt: Date; ipAddress: string | null; userAgent: string | null }) {
  return tx.session.create({ data, select: { id: true, expiresAt: true } });
}

export async function deleteSession(tx: Tx, id: string): Promise<boolean> {
  const { count } = await tx.session.deleteMany({ where: { id } });
  return count > 0;
}

/** The user's live sessions (RLS: the caller's own), most recently seen first. */
export function liveSessions(tx: Tx, userId: string, now: Date) {
  return tx.session.findMany({
    where: { userId, expiresAt: { gt: now } },
    orderBy: [{ lastSeenAt: 'desc' }, { createdAt: 'desc' }],
    select: { id: true, ipAddress: true, userAgent: true, createdAt: true, lastSeenAt: true, expiresAt: true },
  });
}

/** Ends every session of the user but `keep` (the caller's own, when it is one of them); how many ended. */
export async function deleteSessionsExcept(tx: Tx, userId: string, keep: string | null): Promise<number> {
  return (await endSessionsExcept(tx, userId, keep)).length;
}

/** Ends every session of the user but `keep`, as deleteSessionsExcept does; the ids of those that ended. */
export async function endSessionsExcept(tx: Tx, userId: string, keep: string | null): Promise<string[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>`DELETE FROM sessions WHERE user_id = ${userId}::uuid AND id IS DISTINCT FROM ${keep}::uuid RETURNING id::text`;
  return rows.map((r) => r.id);
}

/**
 * Locks the user's row until the unit of work ends (a credential change): a key being minted for the
 * user at the same moment (its row's foreign-key lock) waits for it; null when there is no such user.
 */
export async function lockUser(tx: Tx, userId: string): Promise<{ emailVerifiedAt: Date | null } | null> {
  const [row] = await tx.$queryRaw<{ email_verified_at: Date | null }[]>`SELECT email_verified_at FROM users WHERE id = ${userId}::uuid FOR UPDATE`;
  return row ? { emailVerifiedAt: row.email_verified_at } : null;
}

export async function setPasswordHash(tx: Tx, userId: string, passwordHash: string): Promise<void> {
  await tx.user.update({ where: { id: userId }, data: { passwordHash }, select: { id: true } });
}

/** What a mailed link is for. */
export type TokenPurpose = 'password_reset' | 'email_verification' | 'sign_in_challenge' | 'recovery_code';

export function insertAccountToken(tx: Tx, data: { userId: string; purpose: TokenPurpose; tokenHash: string; expiresAt: Date }) {
  return tx.accountToken.create({ data, select: { id: true } });
}

/** The user a live (unused, unexpired) token of this purpose belongs to, looked up before anyone is signed in. */
export async function accountTokenUser(system: SystemDb, purpose: TokenPurpose, tokenHash: string, now: Date): Promise<string | null> {
  const token = await system.prisma.accountToken.findFirst({ where: { tokenHash, purpose, usedAt: null, expiresAt: { gt: now } }, select: { userId: true } });
  return token?.userId ?? null;
}

/**
 * Uses up a live token; false when it is no longer live. Two requests with the same token: the second
 * waits on the first's row lock, then finds it used.
 */
export async function useAccountToken(tx: Tx, purpose: TokenPurpose, tokenHash: string, now: Date): Promise<boolean> {
  const { count } = await tx.accountToken.updateMany({ where: { tokenHash, purpose, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  return count === 1;
}

/** Uses up every live token of this purpose of the user (what they were for is done). */
export async function useAccountTokensOf(tx: Tx, userId: string, purpose: TokenPurpose, now: Date): Promise<void> {
  await tx.accountToken.updateMany({ where: { userId, purpose, usedAt: null }, data: { usedAt: now } });
}

/** Marks the user's e-mail address verified (if it was not). */
/** Turns the user's two-factor off (on or being set up) and ends their recovery codes; whether there was any. */
export async function removeTwoFactor(tx: Tx, userId: string, now: Date): Promise<boolean> {
  const { count } = await tx.userTotp.deleteMany({ where: { userId } });
  await useAccountTokensOf(tx, userId, 'recovery_code', now);
  return count > 0;
}

export async function markEmailVerified(tx: Tx, userId: string, now: Date): Promise<void> {
  await tx.user.updateMany({ where: { id: userId, emailVerifiedAt: null }, data: { emailVerifiedAt: now } });
}

/** Whether an operator disabled the user (read in a unit of work as them: a session must not start then). */
export async function isDisabled(tx: Tx, userId: string): Promise<boolean> {
  const user = await tx.user.findUnique({ where: { id: userId }, select: { disabledAt: true } });
  return Boolean(user?.disabledAt);
}

/** The first team the user joined: the active team of a new session. */
export async function firstTeamId(tx: Tx, userId: string): Promise<string | null> {
  const membership = await tx.teamMember.findFirst({ where: { userId }, orderBy: { joinedAt: 'asc' }, select: { teamId: true } });
  return membership?.teamId ?? null;
}

/** The identity of a provider's account and its user, looked up before anyone is signed in. */
export function linkedIdentity(system: SystemDb, provider: string, subject: string) {
  return system.prisma.userIdentity.findUnique({
    where: { provider_subject: { provider, subject } },
    select: { id: true, user: { select: { ...userView, disabledAt: true, totp: { select: { enabledAt: true } } } } },
  });
}

export async function insertIdentity(tx: Tx, data: { userId: string; provider: string; subject: string; email: string }): Promise<void> {
  await tx.userIdentity.create({ data, select: { id: true } });
}

/** Unlinks every identity of the user (an account taken over: its maker's providers sign in no more). */
export async function deleteIdentitiesOf(tx: Tx, userId: string): Promise<number> {
  const { count } = await tx.userIdentity.deleteMany({ where: { userId } });
  return count;
}

/** Records a sign-in with a linked identity (and the e-mail the provider gives now). */
export async function touchIdentity(tx: Tx, id: string, email: string | null, now: Date): Promise<void> {
  await tx.userIdentity.update({ where: { id }, data: { lastSignInAt: now, ...(email && { email }) }, select: { id: true } });
}

/** The user's linked identities (RLS: the caller's own). */
export function identitiesOf(tx: Tx, userId: string) {
  return tx.userIdentity.findMany({ where: { userId }, orderBy: { createdAt: 'asc' }, select: { id: true, provider: true, email: true, createdAt: true, lastSignInAt: true } });
}

/** A provider sign-in under way, as stored (sign_in_flows). */
export interface SignInFlowRow {
  provider: string;
  state: string;
  codeVerifier: string;
  nonce: string;
  callbackUrl: string;
  redirectTo: string;
  inviteToken: string | null;
  expiresAt: Date;
}

/** Stores a new flow, and forgets the expired ones. */
export async function insertSignInFlow(system: SystemDb, idHash: string, flow: SignInFlowRow, now: Date): Promise<void> {
  await system.prisma.signInFlow.deleteMany({ where: { expiresAt: { lt: now } } });
  await system.prisma.signInFlow.create({ data: { idHash, ...flow }, select: { idHash: true } });
}

/** Takes a flow: deleted as it is read, so two callbacks with the same flow find it once. */
export async function takeSignInFlow(system: SystemDb, idHash: string): Promise<SignInFlowRow | null> {
  const rows = await system.prisma.$queryRaw<SignInFlowRow[]>`
    DELETE FROM sign_in_flows WHERE id_hash = ${idHash}
    RETURNING provider, state, code_verifier AS "codeVerifier", nonce, callback_url AS "callbackUrl",
              redirect_to AS "redirectTo", invite_token AS "inviteToken", expires_at AS "expiresAt"`;
  return rows[0] ?? null;
}

export { isUniqueViolation } from '../../db/errors.js';
