// The role rules as tables: every combination that matters, allowed or not.
import { describe, expect, it } from 'vitest';
import type { TeamRole } from '../../auth/actor.js';
import { canCancelInvitation, canChangeRole, canDeleteTeam, canInvite, canManageTeamSettings, canSeeInvitations, canRemoveMember, canUpdateTeam, canWriteTeamData, type AssignableRole } from './rules.js';

const me = (role: TeamRole) => ({ userId: 'me', role });
const other = (role: TeamRole) => ({ userId: 'other', role });

describe('changing a role', () => {
  it.each([
    // actor, target, new role, allowed
    ['owner', 'member', 'admin', true],
    ['owner', 'admin', 'member', true],
    ['owner', 'viewer', 'member', true],
    ['owner', 'owner', 'member', false], // (a second owner row cannot exist, but the rule holds)
    ['admin', 'member', 'viewer', true],
    ['admin', 'viewer', 'member', true],
    ['admin', 'member', 'admin', false], // only the owner promotes to admin: the new role decides
    ['admin', 'viewer', 'admin', false],
    ['admin', 'admin', 'member', false], // an admin cannot act on another admin
    ['admin', 'owner', 'member', false],
    ['member', 'viewer', 'member', false],
    ['viewer', 'member', 'viewer', false],
    ['owner', 'member', 'owner', false], // ownership is not given by a role change
  ] as const)('%s changing a %s to %s → %s', (actor, target, role, allowed) => {
    expect(canChangeRole(me(actor), other(target), role).allowed).toBe(allowed);
  });

  it.each(['owner', 'admin', 'member', 'viewer'] as const)('nobody changes their own role (%s)', (role) => {
    expect(canChangeRole(me(role), me(role), 'viewer')).toEqual({ allowed: false, reason: 'You cannot change your own role' });
  });
});

describe('removing a member', () => {
  it.each([
    ['owner', 'admin', true],
    ['owner', 'member', true],
    ['owner', 'viewer', true],
    ['admin', 'member', true],
    ['admin', 'viewer', true],
    ['admin', 'admin', false],
    ['admin', 'owner', false],
    ['member', 'viewer', false],
    ['viewer', 'member', false],
  ] as const)('%s removing a %s → %s', (actor, target, allowed) => {
    expect(canRemoveMember(me(actor), other(target)).allowed).toBe(allowed);
  });

  it.each(['owner', 'admin', 'member', 'viewer'] as const)('nobody removes themselves (%s)', (role) => {
    expect(canRemoveMember(me(role), me(role)).allowed).toBe(false);
  });
});

describe('team actions by role', () => {
  const table: [TeamRole, boolean, boolean, Record<AssignableRole, boolean>, boolean][] = [
    // role, update, delete, invite as {admin, member, viewer}, write team data
    ['owner', true, true, { admin: true, member: true, viewer: true }, true],
    ['admin', true, false, { admin: false, member: true, viewer: true }, true],
    ['member', false, false, { admin: false, member: false, viewer: false }, true],
    ['viewer', false, false, { admin: false, member: false, viewer: false }, false],
  ];
  it.each(table)('%s', (role, update, del, invite, write) => {
    expect(canUpdateTeam(role).allowed).toBe(update);
    expect(canDeleteTeam(role).allowed).toBe(del);
    for (const [invited, allowed] of Object.entries(invite)) expect(canInvite(role, invited as AssignableRole).allowed).toBe(allowed);
    expect(canWriteTeamData(role).allowed).toBe(write);
    // Team settings other modules keep (webhooks) follow the team's own: owners and admins.
    expect(canManageTeamSettings(role).allowed).toBe(update);
    // A team's pending invitations: seen and cancelled by those who may invite.
    expect(canSeeInvitations(role).allowed).toBe(update);
    expect(canCancelInvitation(role).allowed).toBe(update);
  });
});
