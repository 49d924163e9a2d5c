// Prisma access to the audit trail (audit_events). Reads run as the caller (RLS shows owners and admins
// their teams' entries and their members' user-level ones); the sweep runs as named system work.
import type { SystemDb, Tx } from '../../db/request-db.js';
import type { Prisma } from '../../generated/prisma/client.js';

/** An entry as it is written. */
export interface NewEntry {
  teamId: string | null;
  userId: string | null;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Prisma.InputJsonObject;
  ipAddress: string | null;
  userAgent: string | null;
}

const entrySelect = {
  id: true,
  teamId: true,
  userId: true,
  actorUserId: true,
  actorApiKeyId: true,
  action: true,
  targetType: true,
  targetId: true,
  details: true,
  ipAddress: true,
  userAgent: true,
  createdAt: true,
} as const;

export type EntryRow = Prisma.AuditEventGetPayload<{ select: typeof entrySelect }>;

/** Which entries of a team's log a read wants. */
export interface EntryFilter {
  teamId: string;
  /** A user or API key id: entries it acted in. */
  actor?: string;
  /** An action, or a family of them (`member.*`). */
  action?: string;
  from?: Date;
  to?: Date;
}

/**
 * Writes one entry in `tx` (the change's own transaction, or a system one). createMany: an INSERT
 * without RETURNING, as the writer (a member accepting an invitation) may not be one who reads the log.
 */
export async function insertEntry(tx: Tx, entry: NewEntry): Promise<void> {
  await tx.auditEvent.createMany({ data: [entry] });
}

/** The caller's role in the team, or null when not a member (read through RLS). */
export async function roleIn(tx: Tx, teamId: string, userId: string): Promise<string | null> {
  const row = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { role: true } });
  return row?.role ?? null;
}

function whereOf(f: EntryFilter): Prisma.AuditEventWhereInput {
  // The team's own entries, and the user-level entries of whoever is a member now.
  const belongs: Prisma.AuditEventWhereInput = { OR: [{ teamId: f.teamId }, { teamId: null, user: { memberships: { some: { teamId: f.teamId } } } }] };
  const and: Prisma.AuditEventWhereInput[] = [belongs];
  if (f.actor) and.push({ OR: [{ actorUserId: f.actor }, { actorApiKeyId: f.actor }] });
  if (f.action) and.push(f.action.endsWith('.*') ? { action: { startsWith: f.action.slice(0, -1) } } : { action: f.action });
  if (f.from || f.to) and.push({ createdAt: { ...(f.from && { gte: f.from }), ...(f.to && { lt: f.to }) } });
  return { AND: and };
}

/** One page of a team's log, newest first, and how many entries match. */
export async function listEntries(tx: Tx, filter: EntryFilter, page: { skip: number; take: number }): Promise<{ rows: EntryRow[]; total: number }> {
  const where = whereOf(filter);
  const rows = await tx.auditEvent.findMany({ where, select: entrySelect, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.skip, take: page.take });
  const total = await tx.auditEvent.count({ where });
  return { rows, total };
}

/** Deletes entries written before `before`; how many. */
export async function deleteOlderThan(system: SystemDb, before: Date): Promise<number> {
  return (await system.prisma.auditEvent.deleteMany({ where: { createdAt: { lt: before } } })).count;
}
