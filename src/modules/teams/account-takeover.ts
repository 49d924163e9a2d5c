// What an account keeps of its teams when the owner of its e-mail takes it over from whoever made it
// without proving the address (accounts/account-takeover.ts): the teams it owns, alone. Their other
// members (the maker may have invited accounts of their own) and pending invitations go; the account
// leaves the teams it does not own (the maker's, where the new holder would otherwise write). Runs in
// the takeover's transaction; the caller evicts the cached keys of every user named in the answer.
import type { Tx } from '../../db/request-db.js';
import * as repo from './repository.js';

export interface ReleasedTeams {
  /** The teams the account owns (and keeps). */
  ownedTeamIds: string[];
  /** Users removed from those teams. */
  removedUserIds: string[];
  pendingInvitationsDeleted: number;
  /** Memberships of the account in teams it does not own, ended. */
  teamsLeft: number;
}

/** Strips the teams of `userId` to the account alone (see the top of the file). */
export async function releaseTeamsOf(tx: Tx, userId: string): Promise<ReleasedTeams> {
  const ownedTeamIds = await repo.ownedTeamIds(tx, userId);
  const removedUserIds = await repo.deleteMembersExcept(tx, ownedTeamIds, userId);
  const pendingInvitationsDeleted = await repo.deletePendingInvitations(tx, ownedTeamIds);
  const teamsLeft = await repo.deleteMembershipsExcept(tx, userId, ownedTeamIds);
  return { ownedTeamIds, removedUserIds: [...new Set(removedUserIds)], pendingInvitationsDeleted, teamsLeft };
}
