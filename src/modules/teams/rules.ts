// Who may do what inside a team: pure functions of roles, table-tested in rules.test.ts. The services
// ask these before touching the database; RLS (owners/admins only for member changes) backs them up.
import type { TeamRole } from '../../auth/actor.js';

export const teamRoles = ['owner', 'admin', 'member', 'viewer'] as const;
/** Roles an invitation or a role change may give: never `owner` (ownership is not transferable here). */
export const assignableRoles = ['admin', 'member', 'viewer'] as const;
export type AssignableRole = (typeof assignableRoles)[number];

export type Verdict = { allowed: true } | { allowed: false; reason: string };

const allow: Verdict = { allowed: true };
const deny = (reason: string): Verdict => ({ allowed: false, reason });
const manages = (role: TeamRole) => role === 'owner' || role === 'admin';

/** Name, description, avatar: owners and admins. */
export function canUpdateTeam(role: TeamRole): Verdict {
  return manages(role) ? allow : deny('Only the team owner or an admin can update the team');
}

export function canDeleteTeam(role: TeamRole): Verdict {
  return role === 'owner' ? allow : deny('Only the team owner can delete the team');
}

/** Invitations (and cancelling them): owners and admins; only the owner invites admins. */
export function canInvite(role: TeamRole, invitedRole: AssignableRole): Verdict {
  if (!manages(role)) return deny('Only the team owner or an admin can invite members');
  if (invitedRole === 'admin' && role !== 'owner') return deny('Only the team owner can invite admins');
  return allow;
}

export function canCancelInvitation(role: TeamRole): Verdict {
  return manages(role) ? allow : deny('Only the team owner or an admin can cancel invitations');
}

/** Seeing a team's pending invitations (addresses, roles, who invited): those who may cancel them. */
export function canSeeInvitations(role: TeamRole): Verdict {
  return manages(role) ? allow : deny("Only the team owner or an admin can see the team's invitations");
}

export interface MemberRef {
  userId: string;
  role: TeamRole;
}

/**
 * Changing `target`'s role to `newRole`: the owner's role never changes; nobody changes their own
 * role; only the owner makes admins (whatever the target's role was) or acts on an admin.
 */
export function canChangeRole(actor: MemberRef, target: MemberRef, newRole: TeamRole): Verdict {
  if (actor.userId === target.userId) return deny('You cannot change your own role');
  if (target.role === 'owner') return deny("The owner's role cannot be changed");
  if (newRole === 'owner') return deny('The owner role cannot be given');
  if (!manages(actor.role)) return deny('Only the team owner or an admin can change roles');
  if (newRole === 'admin' && actor.role !== 'owner') return deny('Only the team owner can promote to admin');
  if (target.role === 'admin' && actor.role !== 'owner') return deny('Only the team owner can change an admin');
  return allow;
}

/** Removing `target`: never the owner, never oneself; only the owner removes an admin. */
export function canRemoveMember(actor: MemberRef, target: MemberRef): Verdict {
  if (actor.userId === target.userId) return deny('You cannot remove yourself');
  if (target.role === 'owner') return deny('The owner cannot be removed');
  if (!manages(actor.role)) return deny('Only the team owner or an admin can remove members');
  if (target.role === 'admin' && actor.role !== 'owner') return deny('Only the team owner can remove an admin');
  return allow;
}

/** A team's configuration kept by other modules (`what`: webhooks…): owners and admins. */
export function canManageTeamSettings(role: TeamRole, what = 'team settings'): Verdict {
  return manages(role) ? allow : deny(`Only the team owner or an admin can manage ${what}`);
}

/** Writing any team data anywhere in the platform (`what`: how the refusal names it): every role but viewer. */
export function canWriteTeamData(role: TeamRole, what = 'team data'): Verdict {
  return role === 'viewer' ? deny(`Viewers can read but not change ${what}`) : allow;
}
