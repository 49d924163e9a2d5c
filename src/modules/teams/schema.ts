// GraphQL face of teams: the caller's teams, members and roles, invitations, the active team, the
// subscription, usage and invoices. API keys need `teams:read`, `teams:write` or `teams:delete`.
import type { TeamRole } from '../../auth/actor.js';
import type { Builder } from '../../graphql/builder.js';
import { parseInput } from '../../shared/validation.js';
import { changeRoleInput, createTeamInput, inviteInput, listMembersQuery, listTeamsQuery, paging, switchTeamInput, updateTeamInput } from './inputs.js';
import type { Plan } from './plans.js';
import * as teams from './service.js';
import type { Page } from '../../shared/pagination.js';
import type { CreatedInvitation, Invoice, MemberRow, SubscriptionView, TeamInvitationRow, TeamView, Usage } from './service.js';

const read = { scope: 'teams:read' } as const;
const write = { scope: 'teams:write' } as const;
const remove = { scope: 'teams:delete' } as const;

/** GraphQL passes absent optional arguments as null; zod defaults want them absent. */
const given = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));

/** Registers the module's GraphQL types and fields on `b` (its module description's registerSchema). */
export function registerTeamsSchema(b: Builder): void {
  const TeamRef = b.objectRef<TeamView>('Team').implement({
    description: 'A team: the unit that owns data.',
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.exposeString('name'),
      slug: t.exposeString('slug'),
      description: t.exposeString('description', { nullable: true }),
      ownerId: t.exposeID('ownerId'),
      avatarUrl: t.exposeString('avatarUrl', { nullable: true }),
      settings: t.field({ type: 'JSONObject', resolve: (team) => team.settings ?? {} }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      memberCount: t.exposeInt('memberCount'),
      userRole: t.exposeString('userRole', { nullable: true, description: "The caller's role: owner, admin, member or viewer." }),
    }),
  });

  /** An implemented object type of this builder holding `T`. */
  type Ref<T> = ReturnType<ReturnType<typeof b.objectRef<T>>['implement']>;

  /** A page of `T`: items and the paging facts REST puts in `meta`. */
  function pageOf<T>(name: string, itemRef: Ref<T>) {
    return b.objectRef<Page<T>>(name).implement({
      fields: (t) => ({
        items: t.field({ type: [itemRef], resolve: (p) => p.items }),
        page: t.exposeInt('page'),
        limit: t.exposeInt('limit'),
        total: t.exposeInt('total'),
        totalPages: t.exposeInt('totalPages'),
        hasMore: t.exposeBoolean('hasMore'),
      }),
    });
  }

  const TeamPageRef = pageOf<TeamView>('TeamPage', TeamRef);

  const MemberUserRef = b.objectRef<MemberRow['user']>('TeamMemberUser').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      email: t.exposeString('email'),
      firstName: t.exposeString('firstName'),
      lastName: t.exposeString('lastName'),
      image: t.exposeString('image', { nullable: true }),
    }),
  });

  const MemberRef = b.objectRef<MemberRow>('TeamMember').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      teamId: t.exposeID('teamId'),
      userId: t.exposeID('userId'),
      role: t.exposeString('role'),
      joinedAt: t.expose('joinedAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      user: t.field({ type: MemberUserRef, resolve: (m) => m.user }),
    }),
  });

  const MemberPageRef = pageOf<MemberRow>('TeamMemberPage', MemberRef);

  const TeamUpdateRef = b.objectRef<{ id: string; name: string; description: string | null; avatarUrl: string | null; updatedAt: Date }>('TeamUpdate').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.exposeString('name'),
      description: t.exposeString('description', { nullable: true }),
      avatarUrl: t.exposeString('avatarUrl', { nullable: true }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    }),
  });

  const RoleUpdateRef = b.objectRef<{ id: string; role: string; updatedAt: Date }>('TeamMemberRoleUpdate').implement({
    fields: (t) => ({ id: t.exposeID('id'), role: t.exposeString('role'), updatedAt: t.expose('updatedAt', { type: 'DateTime' }) }),
  });

  type InvitationRow = CreatedInvitation['invitation'];
  const InvitationRef = b.objectRef<InvitationRow>('TeamInvitation').implement({
    description: 'An invitation; `token` (UUID v4) is what the invitee presents to accept it.',
    fields: (t) => ({
      id: t.exposeID('id'),
      teamId: t.exposeID('teamId'),
      email: t.exposeString('email'),
      role: t.exposeString('role'),
      status: t.exposeString('status'),
      token: t.exposeString('token'),
      expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
    }),
  });

  const CreatedInvitationRef = b.objectRef<CreatedInvitation>('CreatedTeamInvitation').implement({
    fields: (t) => ({
      invitation: t.field({ type: InvitationRef, resolve: (c) => c.invitation }),
      emailSent: t.exposeBoolean('emailSent', { description: 'False when no SMTP server is configured (the e-mail is recorded).' }),
    }),
  });

  type InvitationListRow = InvitationRow & { team: { id: string; name: string; slug: string }; invitedBy: { firstName: string; lastName: string } };
  const InvitationTeamRef = b.objectRef<InvitationListRow['team']>('TeamInvitationTeam').implement({
    fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name'), slug: t.exposeString('slug') }),
  });
  const InviterRef = b.objectRef<InvitationListRow['invitedBy']>('TeamInvitationInviter').implement({
    fields: (t) => ({ firstName: t.exposeString('firstName'), lastName: t.exposeString('lastName') }),
  });
  const InvitationListItemRef = b.objectRef<InvitationListRow>('TeamInvitationListItem').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      teamId: t.exposeID('teamId'),
      email: t.exposeString('email'),
      role: t.exposeString('role'),
      status: t.exposeString('status'),
      token: t.exposeString('token'),
      expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
      team: t.field({ type: InvitationTeamRef, resolve: (i) => i.team }),
      invitedByUser: t.field({ type: InviterRef, resolve: (i) => i.invitedBy }),
    }),
  });

  const PendingInvitationRef = b.objectRef<TeamInvitationRow>('TeamPendingInvitation').implement({
    description: "A team's pending invitation as its owners and admins see it: never its token (the invitee's secret).",
    fields: (t) => ({
      id: t.exposeID('id'),
      teamId: t.exposeID('teamId'),
      email: t.exposeString('email'),
      role: t.exposeString('role'),
      status: t.exposeString('status'),
      expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      invitedByUser: t.field({ type: InviterRef, nullable: true, description: 'null when the inviter has left the team (and shares no other team with the caller).', resolve: (i) => i.invitedBy }),
    }),
  });

  const MembershipRef = b.objectRef<{ teamId: string; role: string; joinedAt: Date }>('TeamMembership').implement({
    fields: (t) => ({ teamId: t.exposeID('teamId'), role: t.exposeString('role'), joinedAt: t.expose('joinedAt', { type: 'DateTime' }) }),
  });

  const DeclinedRef = b.objectRef<{ id: string; status: string }>('DeclinedTeamInvitation').implement({
    fields: (t) => ({ status: t.exposeString('status') }),
  });

  const SwitchRef = b.objectRef<{ activeTeamId: string }>('ActiveTeam').implement({
    fields: (t) => ({ activeTeamId: t.exposeID('activeTeamId') }),
  });

  const LimitRef = b.objectRef<{ slug: string; max: number | null }>('TeamPlanLimit').implement({
    fields: (t) => ({ slug: t.exposeString('slug'), max: t.exposeInt('max', { nullable: true, description: 'null: unlimited' }) }),
  });

  const PlanRef = b.objectRef<Plan>('TeamPlan').implement({
    fields: (t) => ({
      slug: t.exposeString('slug'),
      name: t.exposeString('name'),
      rateLimitTier: t.exposeString('rateLimitTier'),
      limits: t.field({ type: [LimitRef], resolve: (p) => Object.entries(p.limits).map(([slug, max]) => ({ slug, max })) }),
    }),
  });

  const SubscriptionRef = b.objectRef<SubscriptionView>('TeamSubscription').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      teamId: t.exposeID('teamId'),
      status: t.exposeString('status'),
      plan: t.field({ type: PlanRef, resolve: (s) => s.plan }),
      currentPeriodStart: t.expose('currentPeriodStart', { type: 'DateTime' }),
      currentPeriodEnd: t.expose('currentPeriodEnd', { type: 'DateTime', nullable: true }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    }),
  });

  const UsageRef = b.objectRef<Usage>('TeamUsage').implement({
    fields: (t) => ({
      limitSlug: t.exposeString('limitSlug'),
      current: t.exposeInt('current'),
      max: t.exposeInt('max', { nullable: true }),
      remaining: t.exposeInt('remaining', { nullable: true }),
      allowed: t.exposeBoolean('allowed'),
      percentUsed: t.exposeFloat('percentUsed', { nullable: true }),
    }),
  });

  const InvoiceRef = b.objectRef<Invoice>('TeamInvoice').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      number: t.exposeString('number'),
      status: t.exposeString('status'),
      amountDue: t.exposeInt('amountDue', { description: 'In the currency’s smallest unit.' }),
      currency: t.exposeString('currency'),
      periodStart: t.expose('periodStart', { type: 'DateTime' }),
      periodEnd: t.expose('periodEnd', { type: 'DateTime' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
    }),
  });

  const InvoicePageRef = pageOf<Invoice>('TeamInvoicePage', InvoiceRef);

  const CreateTeamInput = b.inputType('CreateTeamInput', {
    fields: (t) => ({ name: t.string({ required: true }), slug: t.string({ required: true }), description: t.string() }),
  });
  const UpdateTeamInput = b.inputType('UpdateTeamInput', {
    fields: (t) => ({ name: t.string(), description: t.string(), avatarUrl: t.string() }),
  });
  const InviteInput = b.inputType('InviteTeamMemberInput', {
    fields: (t) => ({ email: t.string({ required: true }), role: t.string({ required: true, description: 'admin, member or viewer' }) }),
  });

  /** Explicit nulls clear a field; absent fields are left alone (GraphQL gives both as null/undefined). */
  function updateFields(input: { name?: string | null; description?: string | null; avatarUrl?: string | null }) {
    return Object.fromEntries(Object.entries(input).filter(([key, v]) => v !== undefined && !(key === 'name' && v === null)));
  }

  b.queryFields((t) => ({
    teams: t.field({
      type: TeamPageRef,
      description: "The caller's teams.",
      authScopes: read,
      args: { page: t.arg.int(), limit: t.arg.int(), search: t.arg.string(), sort: t.arg.string(), order: t.arg.string() },
      resolve: (_root, args, ctx) => teams.listTeams(ctx, parseInput(listTeamsQuery, given(args), 'Invalid query parameters')),
    }),
    team: t.field({
      type: TeamRef,
      authScopes: read,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => teams.getTeam(ctx, String(id)),
    }),
    teamMembers: t.field({
      type: MemberPageRef,
      authScopes: read,
      args: { teamId: t.arg.id({ required: true }), page: t.arg.int(), limit: t.arg.int(), role: t.arg.string() },
      resolve: (_root, { teamId, ...args }, ctx) => teams.listMembers(ctx, String(teamId), parseInput(listMembersQuery, given(args), 'Invalid query parameters')),
    }),
    teamInvitations: t.field({
      type: [InvitationListItemRef],
      description: "The caller's pending, unexpired invitations.",
      authScopes: read,
      resolve: (_root, _args, ctx) => teams.myInvitations(ctx),
    }),
    teamPendingInvitations: t.field({
      type: [PendingInvitationRef],
      description: "The team's pending, unexpired invitations, newest first (owners and admins).",
      authScopes: read,
      args: { teamId: t.arg.id({ required: true }) },
      resolve: (_root, { teamId }, ctx) => teams.teamInvitations(ctx, String(teamId)),
    }),
    teamSubscription: t.field({
      type: SubscriptionRef,
      authScopes: read,
      args: { teamId: t.arg.id({ required: true }) },
      resolve: (_root, { teamId }, ctx) => teams.subscription(ctx, String(teamId)),
    }),
    teamUsage: t.field({
      type: UsageRef,
      authScopes: read,
      args: { teamId: t.arg.id({ required: true }), limitSlug: t.arg.string({ required: true }) },
      resolve: (_root, { teamId, limitSlug }, ctx) => teams.usage(ctx, String(teamId), limitSlug),
    }),
    teamInvoices: t.field({
      type: InvoicePageRef,
      authScopes: read,
      args: { teamId: t.arg.id({ required: true }), page: t.arg.int(), limit: t.arg.int() },
      resolve: (_root, { teamId, ...args }, ctx) => teams.invoices(ctx, String(teamId), parseInput(paging, given(args), 'Invalid query parameters')),
    }),
  }));

  b.mutationFields((t) => ({
    createTeam: t.field({
      type: TeamRef,
      description: 'Creates a team owned by the caller (multi-tenant mode, when team creation is allowed).',
      authScopes: write,
      args: { input: t.arg({ type: CreateTeamInput, required: true }) },
      resolve: (_root, { input }, ctx) => teams.createTeam(ctx, parseInput(createTeamInput, input)),
    }),
    updateTeam: t.field({
      type: TeamUpdateRef,
      authScopes: write,
      args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateTeamInput, required: true }) },
      resolve: (_root, { id, input }, ctx) => teams.updateTeam(ctx, String(id), parseInput(updateTeamInput, updateFields(input))),
    }),
    deleteTeam: t.boolean({
      authScopes: remove,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => teams.deleteTeam(ctx, String(id)),
    }),
    inviteTeamMember: t.field({
      type: CreatedInvitationRef,
      authScopes: write,
      args: { teamId: t.arg.id({ required: true }), input: t.arg({ type: InviteInput, required: true }) },
      resolve: (_root, { teamId, input }, ctx) => teams.invite(ctx, String(teamId), parseInput(inviteInput, input)),
    }),
    changeTeamMemberRole: t.field({
      type: RoleUpdateRef,
      authScopes: write,
      args: { teamId: t.arg.id({ required: true }), memberId: t.arg.id({ required: true }), role: t.arg.string({ required: true }) },
      resolve: (_root, { teamId, memberId, role }, ctx) => teams.changeMemberRole(ctx, String(teamId), String(memberId), parseInput(changeRoleInput, { role }).role as TeamRole),
    }),
    removeTeamMember: t.boolean({
      authScopes: remove,
      args: { teamId: t.arg.id({ required: true }), memberId: t.arg.id({ required: true }) },
      resolve: (_root, { teamId, memberId }, ctx) => teams.removeMember(ctx, String(teamId), String(memberId)),
    }),
    acceptTeamInvitation: t.field({
      type: MembershipRef,
      authScopes: write,
      args: { token: t.arg.string({ required: true }) },
      resolve: (_root, { token }, ctx) => teams.acceptInvitation(ctx, token),
    }),
    declineTeamInvitation: t.field({
      type: DeclinedRef,
      authScopes: write,
      args: { token: t.arg.string({ required: true }) },
      resolve: (_root, { token }, ctx) => teams.declineInvitation(ctx, token),
    }),
    cancelTeamInvitation: t.boolean({
      authScopes: remove,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => teams.cancelInvitation(ctx, String(id)),
    }),
    switchTeam: t.field({
      type: SwitchRef,
      description: "Makes a team the session's active team.",
      authScopes: write,
      args: { teamId: t.arg.id({ required: true }) },
      resolve: async (_root, { teamId }, ctx) => ({ activeTeamId: await teams.switchTeam(ctx, parseInput(switchTeamInput, { teamId: String(teamId) }).teamId) }),
    }),
  }));
}
