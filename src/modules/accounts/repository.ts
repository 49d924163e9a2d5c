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
  return system.prisma.user.findUnique({ where: { email }, select: { ...userView, passwordHash: true } });
}

export function insertSession(tx: Tx, data: { userId: string; tokenHash: string; activeTeamId: string | null; expiresAt: Date; ipAddress: string | null; userAgent: string | null }) {
  return tx.session.create({ data, select: { id: true, expiresAt: true } });
}

export async function deleteSession(tx: Tx, id: string): Promise<boolean> {
  const { count } = await tx.session.deleteMany({ where: { id } });
  return count > 0;
}

/** The first team the user joined: the active team of a new session. */
export async function firstTeamId(tx: Tx, userId: string): Promise<string | null> {
  const membership = await tx.teamMember.findFirst({ where: { userId }, orderBy: { joinedAt: 'asc' }, select: { teamId: true } });
  return membership?.teamId ?? null;
}

export { isUniqueViolation } from '../../db/errors.js';
