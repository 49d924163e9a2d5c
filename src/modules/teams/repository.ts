// Teams, members, invitations and subscriptions in the database, always through the request's RLS
// transaction (or a named system context where noted): the rows a caller can reach are decided here
// and by the policies, never by a missing WHERE.
import { Prisma } from '../../generated/prisma/client.js';
import { escapeLike } from '../../db/like.js';
import type { SystemDb, Tx } from '../../db/request-db.js';

export { isUniqueViolation } from '../../db/errors.js';

export const teamView = {
  id: true,
  name: true,
  slug: true,
  description: true,
  ownerId: true,
  avatarUrl: true,
  settings: true,
  createdAt: true,
  updatedAt: true,
  _count: { select: { members: true } },
} as const;

export type TeamRow = Prisma.TeamGetPayload<{ select: typeof teamView }>;

export async function insertTeamWithOwner(tx: Tx, data: { name: string; slug: string; ownerId: string; description?: string | null }) {
  const team = await tx.team.create({ data, select: { id: true, name: true, slug: true } });
  await tx.teamMember.create({ data: { teamId: team.id, userId: data.ownerId, role: 'owner' }, select: { id: true } });
  await tx.subscription.create({ data: { teamId: team.id, plan: 'free' }, select: { id: true } });
  return team;
}

export interface TeamQuery {
  skip: number;
  take: number;
  search?: string;
  sort: 'createdAt' | 'updatedAt' | 'name';
  order: 'asc' | 'desc';
}

interface TeamListRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  owner_id: string;
  avatar_url: string | null;
  settings: unknown;
  created_at: Date;
  updated_at: Date;
  user_role: string;
  member_count: number;
  total: number;
}

const sortColumns = { createdAt: Prisma.raw('t.created_at'), updatedAt: Prisma.raw('t.updated_at'), name: Prisma.raw('t.name') };


/**
 * The caller's teams with their role, member count and the total, in one statement (each round trip
 * to the database costs more than the rows): search over name and description, sorted and paged.
 */
export async function listTeams(tx: Tx, userId: string, q: TeamQuery) {
  const pattern = q.search ? `%${escapeLike(q.search)}%` : null;
  const direction = Prisma.raw(q.order === 'asc' ? 'ASC' : 'DESC');
  const from = Prisma.sql`
      FROM teams t
      JOIN team_members m ON m.team_id = t.id AND m.user_id = ${userId}::uuid
     WHERE ${pattern}::text IS NULL OR t.name ILIKE ${pattern} OR t.description ILIKE ${pattern}`;
  const rows = await tx.$queryRaw<TeamListRow[]>`
    SELECT t.id::text, t.name, t.slug, t.description, t.owner_id::text, t.avatar_url, t.settings, t.created_at, t.updated_at,
           m.role AS user_role,
           (SELECT count(*)::int FROM team_members c WHERE c.team_id = t.id) AS member_count,
           count(*) OVER ()::int AS total
    ${from}
     ORDER BY ${sortColumns[q.sort]} ${direction}, t.id ${direction}
     LIMIT ${q.take} OFFSET ${q.skip}`;
  const total = rows[0]?.total ?? (q.skip > 0 ? await countOf(tx, from) : 0);
  return {
    total,
    rows: rows.map((r) => ({
      id: r.id,
      name: r.name,
      slug: r.slug,
      description: r.description,
      ownerId: r.owner_id,
      avatarUrl: r.avatar_url,
      settings: r.settings,
      createdAt: new Date(r.created_at),
      updatedAt: new Date(r.updated_at),
      userRole: r.user_role,
      memberCount: r.member_count,
    })),
  };
}

export function findTeam(tx: Tx, id: string): Promise<TeamRow | null> {
  return tx.team.findUnique({ where: { id }, select: teamView });
}

export function updateTeam(tx: Tx, id: string, data: { name?: string; description?: string | null; avatarUrl?: string | null }) {
  return tx.team.update({ where: { id }, data, select: { id: true, name: true, description: true, avatarUrl: true, updatedAt: true } });
}

/** Deletes the team; members, invitations and the subscription go with it (ON DELETE CASCADE). */
export async function deleteTeam(tx: Tx, id: string): Promise<boolean> {
  const { count } = await tx.team.deleteMany({ where: { id } });
  return count > 0;
}

export interface MemberRow {
  id: string;
  teamId: string;
  userId: string;
  role: string;
  joinedAt: Date;
  updatedAt: Date;
  user: { id: string; email: string; firstName: string; lastName: string; image: string | null };
}

interface MemberListRow {
  id: string;
  team_id: string;
  user_id: string;
  role: string;
  joined_at: Date;
  updated_at: Date;
  email: string;
  first_name: string;
  last_name: string;
  image: string | null;
  total: number;
}

/** Past the last page no row carries the window total: the same FROM/WHERE, counted (rare). */
async function countOf(tx: Tx, from: Prisma.Sql): Promise<number> {
  const [row] = await tx.$queryRaw<[{ total: number }]>`SELECT count(*)::int AS total ${from}`;
  return row.total;
}

/** A team's members with their user and the total, in one statement. */
export async function listMembers(tx: Tx, teamId: string, q: { skip: number; take: number; role?: string }): Promise<{ rows: MemberRow[]; total: number }> {
  const role = q.role ?? null;
  const from = Prisma.sql`
      FROM team_members m JOIN users u ON u.id = m.user_id
     WHERE m.team_id = ${teamId}::uuid AND (${role}::text IS NULL OR m.role = ${role})`;
  const rows = await tx.$queryRaw<MemberListRow[]>`
    SELECT m.id::text, m.team_id::text, m.user_id::text, m.role, m.joined_at, m.updated_at,
           u.email, u.first_name, u.last_name, u.image, count(*) OVER ()::int AS total
    ${from}
     ORDER BY m.joined_at ASC, m.id ASC
     LIMIT ${q.take} OFFSET ${q.skip}`;
  const total = rows[0]?.total ?? (q.skip > 0 ? await countOf(tx, from) : 0);
  return {
    total,
    rows: rows.map((r) => ({
      id: r.id,
      teamId: r.team_id,
      userId: r.user_id,
      role: r.role,
      joinedAt: new Date(r.joined_at),
      updatedAt: new Date(r.updated_at),
      user: { id: r.user_id, email: r.email, firstName: r.first_name, lastName: r.last_name, image: r.image },
    })),
  };
}

export function findMember(tx: Tx, teamId: string, memberId: string) {
  return tx.teamMember.findFirst({ where: { id: memberId, teamId }, select: { id: true, userId: true, role: true } });
}

export function findMembership(tx: Tx, teamId: string, userId: string) {
  return tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { id: true, role: true } });
}

export function countMembers(tx: Tx, teamId: string): Promise<number> {
  return tx.teamMember.count({ where: { teamId } });
}

export function setMemberRole(tx: Tx, memberId: string, role: string) {
  return tx.teamMember.update({ where: { id: memberId }, data: { role }, select: { id: true, role: true, updatedAt: true } });
}

export async function deleteMember(tx: Tx, memberId: string): Promise<void> {
  await tx.teamMember.delete({ where: { id: memberId } });
}

export function insertMember(tx: Tx, data: { teamId: string; userId: string; role: string }) {
  return tx.teamMember.create({ data, select: { id: true, teamId: true, role: true, joinedAt: true } });
}

export async function setActiveTeam(tx: Tx, sessionId: string, teamId: string): Promise<void> {
  await tx.session.update({ where: { id: sessionId }, data: { activeTeamId: teamId } });
}

/** The teams the user owns. */
export async function ownedTeamIds(tx: Tx, userId: string): Promise<string[]> {
  return (await tx.team.findMany({ where: { ownerId: userId }, select: { id: true } })).map((t) => t.id);
}

/** Removes every member of the teams but `keep`; the users removed. */
export async function deleteMembersExcept(tx: Tx, teamIds: readonly string[], keep: string): Promise<string[]> {
  if (!teamIds.length) return [];
  const rows = await tx.$queryRaw<{ user_id: string }[]>`
    DELETE FROM team_members WHERE team_id = ANY(${[...teamIds]}::uuid[]) AND user_id <> ${keep}::uuid RETURNING user_id::text`;
  return rows.map((r) => r.user_id);
}

/** Removes the user from every team but `keep`; how many memberships ended. */
export async function deleteMembershipsExcept(tx: Tx, userId: string, keep: readonly string[]): Promise<number> {
  const { count } = await tx.teamMember.deleteMany({ where: { userId, teamId: { notIn: [...keep] } } });
  return count;
}

// ---- invitations -----------------------------------------------------------------------------

/** Deletes the teams' pending invitations; how many. */
export async function deletePendingInvitations(tx: Tx, teamIds: readonly string[]): Promise<number> {
  if (!teamIds.length) return 0;
  const { count } = await tx.teamInvitation.deleteMany({ where: { teamId: { in: [...teamIds] }, status: 'pending' } });
  return count;
}

export const invitationView = { id: true, teamId: true, email: true, role: true, status: true, token: true, expiresAt: true, createdAt: true } as const;

export function pendingInvitation(tx: Tx, teamId: string, email: string) {
  return tx.teamInvitation.findFirst({ where: { teamId, email, status: 'pending' }, select: { id: true, expiresAt: true } });
}

export function countPendingInvitations(tx: Tx, teamId: string, now: Date): Promise<number> {
  return tx.teamInvitation.count({ where: { teamId, status: 'pending', expiresAt: { gt: now } } });
}

export async function deleteInvitation(tx: Tx, id: string): Promise<boolean> {
  const { count } = await tx.teamInvitation.deleteMany({ where: { id } });
  return count > 0;
}

export function insertInvitation(tx: Tx, data: { teamId: string; email: string; role: string; token: string; invitedById: string; expiresAt: Date }) {
  return tx.teamInvitation.create({ data, select: invitationView });
}

/** Whether a user with this e-mail is already a member (through the team's own member list). */
export async function isMemberByEmail(tx: Tx, teamId: string, email: string): Promise<boolean> {
  return (await tx.teamMember.count({ where: { teamId, user: { email } } })) > 0;
}

interface PendingInvitationRow {
  id: string;
  team_id: string;
  email: string;
  role: string;
  status: string;
  token: string;
  expires_at: Date;
  created_at: Date;
  team_name: string;
  team_slug: string;
  inviter_first_name: string;
  inviter_last_name: string;
}

/** The caller's pending, unexpired invitations, list form (app_my_pending_invitations: theirs only). */
export async function invitationsForCaller(tx: Tx) {
  const rows = await tx.$queryRaw<PendingInvitationRow[]>`SELECT * FROM app_my_pending_invitations()`;
  return rows.map((r) => ({
    id: r.id,
    teamId: r.team_id,
    email: r.email,
    role: r.role,
    status: r.status,
    token: r.token,
    expiresAt: new Date(r.expires_at),
    createdAt: new Date(r.created_at),
    team: { id: r.team_id, name: r.team_name, slug: r.team_slug },
    invitedBy: { firstName: r.inviter_first_name, lastName: r.inviter_last_name },
  }));
}

export interface TeamInvitationRow {
  id: string;
  teamId: string;
  email: string;
  role: string;
  status: string;
  expiresAt: Date;
  createdAt: Date;
  /** Null when the inviter is no longer visible to the caller (they left every team the caller is in). */
  invitedBy: { firstName: string; lastName: string } | null;
}

interface TeamInvitationListRow {
  id: string;
  team_id: string;
  email: string;
  role: string;
  status: string;
  expires_at: Date;
  created_at: Date;
  inviter_first_name: string | null;
  inviter_last_name: string | null;
}

/**
 * A team's pending invitations unexpired at `now`, newest first, with the inviter's name; never the
 * token (the invitee's secret). The inviter is a LEFT JOIN: RLS hides a user who left the caller's teams.
 */
export async function pendingInvitationsOfTeam(tx: Tx, teamId: string, now: Date): Promise<TeamInvitationRow[]> {
  const rows = await tx.$queryRaw<TeamInvitationListRow[]>`
    SELECT i.id::text, i.team_id::text, i.email, i.role, i.status, i.expires_at, i.created_at,
           u.first_name AS inviter_first_name, u.last_name AS inviter_last_name
      FROM team_invitations i LEFT JOIN users u ON u.id = i.invited_by_id
     WHERE i.team_id = ${teamId}::uuid AND i.status = 'pending' AND i.expires_at > ${now}::timestamptz
     ORDER BY i.created_at DESC, i.id DESC`;
  return rows.map((r) => ({
    id: r.id,
    teamId: r.team_id,
    email: r.email,
    role: r.role,
    status: r.status,
    expiresAt: new Date(r.expires_at),
    createdAt: new Date(r.created_at),
    invitedBy: r.inviter_first_name === null ? null : { firstName: r.inviter_first_name, lastName: r.inviter_last_name ?? '' },
  }));
}

export function invitationByToken(tx: Tx, token: string) {
  return tx.teamInvitation.findUnique({ where: { token }, select: { id: true, teamId: true, email: true, role: true, status: true, expiresAt: true } });
}

/** An invitation by token before anyone is signed in (signup by invitation): named system access. */
export function invitationByTokenForSignup(system: SystemDb, token: string) {
  return system.prisma.teamInvitation.findUnique({ where: { token }, select: { id: true, teamId: true, email: true, role: true, status: true, expiresAt: true } });
}

export function findInvitation(tx: Tx, id: string) {
  return tx.teamInvitation.findUnique({ where: { id }, select: { id: true, teamId: true, email: true, role: true } });
}

export function answerInvitation(tx: Tx, id: string, status: 'accepted' | 'declined', at: Date) {
  return tx.teamInvitation.update({ where: { id }, data: { status, respondedAt: at }, select: { id: true, status: true } });
}

// ---- subscription ----------------------------------------------------------------------------

export function findSubscription(tx: Tx, teamId: string) {
  return tx.subscription.findUnique({
    where: { teamId },
    select: { id: true, teamId: true, plan: true, status: true, currentPeriodStart: true, currentPeriodEnd: true, createdAt: true, updatedAt: true },
  });
}

/**
 * Usable (active, unexpired) API keys owned by the team's members, only for the caller's teams. With
 * `atMost` (a mint's limit check): at most that many, counted once the team's concurrent mints have
 * committed, so that two at the limit never both pass (api_key_plan_limit migration).
 */
export async function countMemberApiKeys(tx: Tx, teamId: string, atMost?: number): Promise<number> {
  const [row] =
    atMost === undefined
      ? await tx.$queryRaw<[{ n: number }]>`SELECT app_team_active_api_keys(${teamId}::uuid) AS n`
      : await tx.$queryRaw<[{ n: number }]>`SELECT app_team_active_api_keys_for_create(${teamId}::uuid, ${atMost}::int) AS n`;
  return row.n;
}
