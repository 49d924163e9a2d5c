// The authority of an action created through the API (the developer endpoints): its creator's. When
// it is created, the caller (their role, teams and the key's scopes) is checked; when it runs, the
// creator is read again (role and teams as they are now; a disabled creator's action fails without
// running) and the handler acts as them: with a request scope of theirs, through RLS as them, for
// data (content:publish: the entities' write path), or after checking the team role the work needs
// (webhook:send). Superadmins act across teams; everyone else only within teams they may write. The
// platform's own actions (scheduled in process, createdBy null) are system work, as before.
import type { GlobalRole, TeamRole } from '../../auth/actor.js';
import { isGlobalRole } from '../../auth/actor.js';
import type { RequestScope } from '../../auth/request-scope.js';
import type { Tx } from '../../db/request-db.js';
import { creatorStanding } from './repository.js';

/** A creator's standing: global role, team roles, and the scopes they act with. */
export interface CreatorStanding {
  userId: string;
  role: GlobalRole;
  teams: readonly { teamId: string; role: TeamRole }[];
  /** When created: the caller's (a key's scopes). When run: `*` (the user's own rights; roles decide). */
  scopes: readonly string[];
  /** When created: how the caller signed in. When run: none (no credential of theirs is present). */
  via?: 'session' | 'api-key';
}

/** The creator of an action being run: their standing now, and work through RLS as them. */
export interface Creator extends CreatorStanding {
  /** Disabled by an operator (CLI `user disable`): their actions run nothing until they are enabled. */
  disabled: boolean;
  /**
   * Work as the creator: a request scope of theirs (their current teams, the first active; their
   * session's rights), one transaction through RLS as them, committed when `work` succeeds.
   */
  withScope<T>(work: (scope: RequestScope) => Promise<T>): Promise<T>;
}

/** Runs work with a request scope of a user (auth/user-scope.ts asUser, with the app's deps). */
export type AsUser = <T>(userId: string, work: (scope: RequestScope) => Promise<T>) => Promise<T>;

/** Whether the creator acts across teams (superadmins only). */
export function actsAcrossTeams(creator: CreatorStanding): boolean {
  return creator.role === 'superadmin';
}

/** Whether the creator may write `teamId`'s data: a superadmin, or a member other than a viewer. */
export function mayWriteTeam(creator: CreatorStanding, teamId: string): boolean {
  if (actsAcrossTeams(creator)) return true;
  const role = creator.teams.find((t) => t.teamId === teamId)?.role;
  return role !== undefined && role !== 'viewer';
}

/** Whether the creator manages `teamId` (owner or admin; webhook endpoints and the like), or is a superadmin. */
export function managesTeam(creator: CreatorStanding, teamId: string): boolean {
  if (actsAcrossTeams(creator)) return true;
  const role = creator.teams.find((t) => t.teamId === teamId)?.role;
  return role === 'owner' || role === 'admin';
}

/** The creator of an action as they stand now; null when the user no longer exists (or holds no known role). */
export async function loadCreator(db: Tx, userId: string, asUser: AsUser): Promise<Creator | null> {
  const row = await creatorStanding(db, userId);
  if (!row || !isGlobalRole(row.role)) return null;
  return {
    userId,
    role: row.role,
    disabled: row.disabled,
    teams: row.teams.map((t) => ({ teamId: t.teamId, role: t.role as TeamRole })),
    scopes: ['*'],
    withScope: (work) => asUser(userId, work),
  };
}

/** Why an action created by `creator` may not run now, whatever its type; null when it may. */
export function creatorRefusal(creator: Creator | null, createdBy: string, teamId: string | null): string | null {
  if (!creator) return `The action's creator (user ${createdBy}) no longer exists: it ran with their authority`;
  if (creator.disabled) return `The action's creator (user ${createdBy}) is disabled: it runs with their authority (enable them, then retry it)`;
  if (teamId && !mayWriteTeam(creator, teamId)) return `The action's creator (user ${createdBy}) may no longer write team ${teamId}: it runs with their authority`;
  return null;
}
