// Teams: the caller's teams, their members and roles, invitations, the active team, plans and usage.
// Membership is checked against the database inside the request's RLS transaction; a team the caller
// does not belong to is "not found", exactly like a missing one. Role rules: rules.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import type { AuthenticatedActor, TeamRole } from '../../auth/actor.js';
import type { Tx } from '../../db/request-db.js';
import { appLink } from '../../mail/outbox.js';
import { AppError, forbidden, unauthenticated } from '../../shared/errors.js';
import { pageOf, type Page } from '../../shared/pagination.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { isUuid } from '../../shared/validation.js';
import type { CreateTeamInput, InviteInput, ListMembersQuery, ListTeamsQuery, UpdateTeamInput } from './inputs.js';
import { recordAudit } from '../audit/service.js';
import { assertWithinLimit, measure, type Usage } from './plan-usage.js';
import { planOf, plansOf, type Plan } from './plans.js';
import * as repo from './repository.js';
import * as rules from './rules.js';

export type { MemberRow, TeamInvitationRow } from './repository.js';
export type { Usage } from './plan-usage.js';

export interface TeamView {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  ownerId: string;
  avatarUrl: string | null;
  settings: unknown;
  createdAt: Date;
  updatedAt: Date;
  memberCount: number;
  userRole: TeamRole | null;
}

const teamNotFound = () => new AppError('NOT_FOUND', 'Team not found');
const check = (verdict: rules.Verdict) => {
  if (!verdict.allowed) throw forbidden(verdict.reason);
};

function caller(scope: RequestScope): AuthenticatedActor {
  if (scope.actor.kind !== 'user') throw unauthenticated();
  return scope.actor;
}

function view(row: repo.TeamRow, userRole: TeamRole | null): TeamView {
  const { _count, ...team } = row;
  return { ...team, memberCount: _count.members, userRole };
}

/** The caller's role in a team, read in the request's transaction; not a member → 404. */
async function roleIn(scope: RequestScope, tx: Tx, teamId: string): Promise<{ userId: string; role: TeamRole }> {
  const user = caller(scope);
  if (!isUuid(teamId)) throw teamNotFound();
  const membership = await repo.findMembership(tx, teamId, user.userId);
  if (!membership) throw teamNotFound();
  return { userId: user.userId, role: membership.role as TeamRole };
}

/** A slug from free text: lowercase alphanumerics and hyphens, with a random suffix for uniqueness. */
function generatedSlug(seed: string): string {
  const base = seed.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'team';
  return `${base}-${randomBytes(4).toString('hex')}`;
}

/** Creates the personal team of a new user, owned by them, inside the signup's transaction. */
export function createPersonalTeam(tx: Tx, user: { id: string; email: string; firstName: string }) {
  const name = user.firstName ? `${user.firstName}'s team` : 'Personal team';
  return repo.insertTeamWithOwner(tx, { name: name.slice(0, 100), slug: generatedSlug(user.email.split('@')[0] ?? ''), ownerId: user.id });
}

/** Creates the one team of a single-tenant deployment, owned by its first user. */
export function createGlobalTeam(tx: Tx, ownerId: string, name: string) {
  return repo.insertTeamWithOwner(tx, { name, slug: generatedSlug(name), ownerId });
}

// ---- teams -----------------------------------------------------------------------------------

export async function listTeams(scope: RequestScope, q: ListTeamsQuery): Promise<Page<TeamView>> {
  const user = caller(scope);
  const { rows, total } = await repo.listTeams(await scope.db.tx(), user.userId, { skip: (q.page - 1) * q.limit, take: q.limit, search: q.search || undefined, sort: q.sort, order: q.order });
  return pageOf(rows.map((row) => ({ ...row, userRole: row.userRole as TeamRole })), total, q.page, q.limit);
}

export async function createTeam(scope: RequestScope, input: CreateTeamInput): Promise<TeamView> {
  const user = caller(scope);
  const { mode, allowCreateTeams } = scope.config.teams;
  if (mode !== 'multi-tenant' || !allowCreateTeams) {
    throw new AppError('TEAM_CREATION_DISABLED', mode === 'multi-tenant' ? 'Team creation is disabled on this platform' : `Team creation is not available in ${mode} mode`);
  }
  const tx = await scope.db.tx();
  try {
    const team = await repo.insertTeamWithOwner(tx, { name: input.name, slug: input.slug, description: input.description ?? null, ownerId: user.userId });
    await scope.credentials.forgetUser(user.userId);
    return view((await repo.findTeam(tx, team.id))!, 'owner');
  } catch (error) {
    if (repo.isUniqueViolation(error)) throw new AppError('SLUG_EXISTS', `The slug "${input.slug}" is already taken`, { slug: input.slug });
    throw error;
  }
}

export async function getTeam(scope: RequestScope, teamId: string): Promise<TeamView> {
  const tx = await scope.db.tx();
  const { role } = await roleIn(scope, tx, teamId);
  return view((await repo.findTeam(tx, teamId)) ?? throwNotFound(), role);
}

export async function updateTeam(scope: RequestScope, teamId: string, input: UpdateTeamInput) {
  const tx = await scope.db.tx();
  check(rules.canUpdateTeam((await roleIn(scope, tx, teamId)).role));
  const updated = await repo.updateTeam(tx, teamId, input);
  await recordAudit(scope, tx, { teamId, action: 'team.updated', target: { type: 'team', id: teamId }, details: { ...input } });
  return updated;
}

/**
 * Deletes a team and everything that belongs to it (members, invitations, subscription, and every
 * module's team rows through ON DELETE CASCADE). The owner's only team cannot be deleted: every user
 * keeps at least one.
 */
export async function deleteTeam(scope: RequestScope, teamId: string): Promise<boolean> {
  const tx = await scope.db.tx();
  const me = await roleIn(scope, tx, teamId);
  check(rules.canDeleteTeam(me.role));
  // Counted apart from this team: a concurrent delete of it that committed meanwhile is then a 404 below, not "your only team".
  if ((await tx.teamMember.count({ where: { userId: me.userId, teamId: { not: teamId } } })) === 0) {
    throw new AppError('VALIDATION_ERROR', 'You cannot delete your only team');
  }
  const memberIds = (await tx.teamMember.findMany({ where: { teamId }, select: { userId: true } })).map((m) => m.userId);
  // Another request may have deleted it since roleIn read it (this delete waited for its commit): 404.
  if (!(await repo.deleteTeam(tx, teamId))) throwNotFound();
  for (const userId of memberIds) await scope.credentials.forgetUser(userId);
  return true;
}

/** Refuses (403) a write to team data by a viewer: the one rule every module's writes follow. */
export function assertCanWriteTeamData(role: TeamRole, what?: string): void {
  check(rules.canWriteTeamData(role, what));
}

/** Owners and admins only: team configuration other modules keep (webhook endpoints). 403 otherwise. */
export function assertCanManageTeamSettings(role: TeamRole, what?: string): void {
  check(rules.canManageTeamSettings(role, what));
}

// ---- members ---------------------------------------------------------------------------------

export async function listMembers(scope: RequestScope, teamId: string, q: ListMembersQuery): Promise<Page<repo.MemberRow>> {
  const tx = await scope.db.tx();
  await roleIn(scope, tx, teamId);
  const { rows, total } = await repo.listMembers(tx, teamId, { skip: (q.page - 1) * q.limit, take: q.limit, role: q.role });
  return pageOf(rows, total, q.page, q.limit);
}

async function targetMember(tx: Tx, teamId: string, memberId: string) {
  const target = isUuid(memberId) ? await repo.findMember(tx, teamId, memberId) : null;
  if (!target) throw new AppError('NOT_FOUND', 'Member not found');
  return { ...target, role: target.role as TeamRole };
}

export async function changeMemberRole(scope: RequestScope, teamId: string, memberId: string, role: TeamRole) {
  const tx = await scope.db.tx();
  const me = await roleIn(scope, tx, teamId);
  const target = await targetMember(tx, teamId, memberId);
  check(rules.canChangeRole(me, target, role));
  const updated = await repo.setMemberRole(tx, target.id, role);
  await recordAudit(scope, tx, { teamId, action: 'member.role_changed', target: { type: 'member', id: target.id }, details: { userId: target.userId, from: target.role, to: role } });
  await scope.credentials.forgetUser(target.userId);
  return updated;
}

export async function removeMember(scope: RequestScope, teamId: string, memberId: string): Promise<boolean> {
  const tx = await scope.db.tx();
  const me = await roleIn(scope, tx, teamId);
  const target = await targetMember(tx, teamId, memberId);
  check(rules.canRemoveMember(me, target));
  // Recorded first: a member who leaves may write their team's log only while still in it (RLS).
  await recordAudit(scope, tx, { teamId, action: 'member.removed', target: { type: 'member', id: target.id }, details: { userId: target.userId, role: target.role, left: target.userId === me.userId } });
  await repo.deleteMember(tx, target.id);
  // The removed user's keys lose this team on their next request, on every instance.
  await scope.credentials.forgetUser(target.userId);
  return true;
}

/** Makes a team the session's active team. Keys pick a team per request with `x-team-id` instead. */
export async function switchTeam(scope: RequestScope, teamId: string): Promise<string> {
  const user = caller(scope);
  if (!user.sessionId) throw forbidden('The active team is kept on a browser session; API keys send x-team-id');
  const tx = await scope.db.tx();
  if (!isUuid(teamId) || !(await repo.findMembership(tx, teamId, user.userId))) throw forbidden('You are not a member of this team');
  await repo.setActiveTeam(tx, user.sessionId, teamId);
  return teamId;
}

// ---- invitations -----------------------------------------------------------------------------

export interface CreatedInvitation {
  invitation: { id: string; teamId: string; email: string; role: string; status: string; token: string; expiresAt: Date; createdAt: Date };
  emailSent: boolean;
}

export async function invite(scope: RequestScope, teamId: string, input: InviteInput): Promise<CreatedInvitation> {
  const user = caller(scope);
  if (scope.config.teams.mode === 'single-user') throw new AppError('INVITATIONS_DISABLED', 'Invitations are disabled in single-user mode');
  const tx = await scope.db.tx();
  const me = await roleIn(scope, tx, teamId);
  check(rules.canInvite(me.role, input.role));
  if (await repo.isMemberByEmail(tx, teamId, input.email)) throw new AppError('ALREADY_MEMBER', 'This user is already a member of the team');
  const now = scope.now();
  const existing = await repo.pendingInvitation(tx, teamId, input.email);
  if (existing && existing.expiresAt > now) throw new AppError('INVITATION_EXISTS', 'A pending invitation for this e-mail already exists');
  if (existing) await repo.deleteInvitation(tx, existing.id); // expired: replaced by the new one
  await assertWithinLimit(scope, tx, teamId, 'team_members', 1 + (await repo.countPendingInvitations(tx, teamId, now)));
  const invitation = await repo.insertInvitation(tx, {
    teamId,
    email: input.email,
    role: input.role,
    token: randomUUID(),
    invitedById: user.userId,
    expiresAt: new Date(now.getTime() + scope.config.teams.invitationTtlMs),
  });
  await recordAudit(scope, tx, { teamId, action: 'invitation.sent', target: { type: 'invitation', id: invitation.id }, details: { email: invitation.email, role: invitation.role } });
  const team = (await repo.findTeam(tx, teamId))!;
  const emailSent = await scope.mail.send(tx, invitationMail(scope, invitation, team.name, user));
  return { invitation, emailSent };
}

function invitationMail(scope: RequestScope, invitation: { token: string; role: string; expiresAt: Date; email: string }, teamName: string, inviter: AuthenticatedActor) {
  const who = [inviter.profile.firstName, inviter.profile.lastName].filter(Boolean).join(' ') || inviter.email;
  return {
    to: invitation.email,
    subject: `${who} invited you to ${teamName}`,
    text: [
      `${who} invited you to join ${teamName} as ${invitation.role}.`,
      '',
      `Accept: ${appLink(scope.config.mail, `/invitations/${invitation.token}`)}`,
      `Or sign up with this invitation token: ${invitation.token}`,
      '',
      `The invitation expires on ${invitation.expiresAt.toISOString()}.`,
    ].join('\n'),
  };
}

export async function myInvitations(scope: RequestScope) {
  caller(scope);
  return repo.invitationsForCaller(await scope.db.tx());
}

/** A team's pending, unexpired invitations, without their tokens: owners and admins (403 for others, 404 outside the team). */
export async function teamInvitations(scope: RequestScope, teamId: string): Promise<repo.TeamInvitationRow[]> {
  const tx = await scope.db.tx();
  check(rules.canSeeInvitations((await roleIn(scope, tx, teamId)).role));
  return repo.pendingInvitationsOfTeam(tx, teamId, scope.now());
}

async function openInvitation(scope: RequestScope, tx: Tx, token: string) {
  const user = caller(scope);
  // RLS shows an invitation to its invitee (by e-mail) and to the team's members; only the invitee may answer.
  const invitation = isUuid(token) ? await repo.invitationByToken(tx, token) : null;
  if (!invitation || invitation.email !== user.email || invitation.status !== 'pending') {
    throw new AppError('INVITATION_NOT_FOUND', 'Invitation not found');
  }
  if (invitation.expiresAt <= scope.now()) throw new AppError('INVITATION_EXPIRED', 'This invitation has expired');
  return { user, invitation };
}

export async function acceptInvitation(scope: RequestScope, token: string) {
  const tx = await scope.db.tx();
  const { user, invitation } = await openInvitation(scope, tx, token);
  if (await repo.findMembership(tx, invitation.teamId, user.userId)) throw new AppError('ALREADY_MEMBER', 'You are already a member of this team');
  const membership = await repo.insertMember(tx, { teamId: invitation.teamId, userId: user.userId, role: invitation.role });
  await repo.answerInvitation(tx, invitation.id, 'accepted', scope.now());
  await recordJoined(scope, tx, invitation, membership.id, user.userId);
  await scope.credentials.forgetUser(user.userId);
  return membership;
}

/** The invitation behind a signup-with-invite, checked before the account exists (system context). */
export async function openInvitationForSignup(scope: RequestScope, token: string, email: string) {
  if (scope.config.teams.mode === 'single-user') throw new AppError('INVITATIONS_DISABLED', 'Invitations are disabled in single-user mode');
  const invitation = isUuid(token) ? await repo.invitationByTokenForSignup(scope.system('signup with invite: invitation by token'), token) : null;
  if (!invitation || invitation.status !== 'pending') throw new AppError('INVITATION_NOT_FOUND', 'Invitation not found');
  if (invitation.expiresAt <= scope.now()) throw new AppError('INVITATION_EXPIRED', 'This invitation has expired');
  if (invitation.email !== email) throw new AppError('VALIDATION_ERROR', 'Sign up with the e-mail address the invitation was sent to', { email: 'must be the invited address' });
  return invitation;
}

/** The new account joins the invitation's team (in the signup's transaction, as the new user). */
export async function joinByInvitation(scope: RequestScope, tx: Tx, invitation: { id: string; teamId: string; role: string; email: string }, userId: string) {
  const membership = await repo.insertMember(tx, { teamId: invitation.teamId, userId, role: invitation.role });
  await repo.answerInvitation(tx, invitation.id, 'accepted', scope.now());
  await recordJoined(scope, tx, invitation, membership.id, userId);
  return membership;
}

/** The audit entries of an accepted invitation: the acceptance and the member it added, both by the invitee. */
async function recordJoined(scope: RequestScope, tx: Tx, invitation: { id: string; teamId: string; role: string; email: string }, memberId: string, userId: string) {
  const { teamId } = invitation;
  await recordAudit(scope, tx, { teamId, action: 'invitation.accepted', target: { type: 'invitation', id: invitation.id }, details: { email: invitation.email, role: invitation.role } }, { userId });
  await recordAudit(scope, tx, { teamId, action: 'member.added', target: { type: 'member', id: memberId }, details: { userId, role: invitation.role, invitationId: invitation.id } }, { userId });
}

export async function declineInvitation(scope: RequestScope, token: string) {
  const tx = await scope.db.tx();
  const { invitation } = await openInvitation(scope, tx, token);
  // Recorded while the invitation is still pending: that is what lets the invitee write the team's log (RLS).
  await recordAudit(scope, tx, { teamId: invitation.teamId, action: 'invitation.declined', target: { type: 'invitation', id: invitation.id }, details: { email: invitation.email, role: invitation.role } });
  return repo.answerInvitation(tx, invitation.id, 'declined', scope.now());
}

/** Cancels (deletes) a pending invitation: owners and admins of its team. */
export async function cancelInvitation(scope: RequestScope, invitationId: string): Promise<boolean> {
  const tx = await scope.db.tx();
  const invitation = isUuid(invitationId) ? await repo.findInvitation(tx, invitationId) : null;
  if (!invitation) throw new AppError('INVITATION_NOT_FOUND', 'Invitation not found');
  const me = await roleIn(scope, tx, invitation.teamId).catch(() => {
    throw new AppError('INVITATION_NOT_FOUND', 'Invitation not found');
  });
  check(rules.canCancelInvitation(me.role));
  const deleted = await repo.deleteInvitation(tx, invitation.id);
  if (deleted) await recordAudit(scope, tx, { teamId: invitation.teamId, action: 'invitation.cancelled', target: { type: 'invitation', id: invitation.id }, details: { email: invitation.email, role: invitation.role } });
  return deleted;
}

// ---- plans, subscription, usage, invoices -----------------------------------------------------

export interface SubscriptionView {
  id: string;
  teamId: string;
  status: string;
  plan: Plan;
  currentPeriodStart: Date;
  currentPeriodEnd: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export async function subscription(scope: RequestScope, teamId: string): Promise<SubscriptionView> {
  const tx = await scope.db.tx();
  await roleIn(scope, tx, teamId);
  const row = await repo.findSubscription(tx, teamId);
  if (!row) throw new AppError('NOT_FOUND', 'Subscription not found');
  const plans = plansOf(scope.config);
  return { ...row, plan: planOf(plans, row.plan) ?? { slug: row.plan, name: row.plan, limits: {}, rateLimitTier: row.plan } };
}

export async function usage(scope: RequestScope, teamId: string, limitSlug: string): Promise<Usage> {
  const tx = await scope.db.tx();
  await roleIn(scope, tx, teamId);
  return measure(scope, tx, teamId, limitSlug);
}

export interface Invoice {
  id: string;
  number: string;
  status: string;
  amountDue: number;
  currency: string;
  periodStart: Date;
  periodEnd: Date;
  createdAt: Date;
}

/** Invoices come from a billing provider; none is connected, so the list is empty (shape documented). */
export async function invoices(scope: RequestScope, teamId: string, q: { page: number; limit: number }): Promise<Page<Invoice>> {
  const tx = await scope.db.tx();
  await roleIn(scope, tx, teamId);
  return pageOf<Invoice>([], 0, q.page, q.limit);
}

function throwNotFound(): never {
  throw teamNotFound();
}
