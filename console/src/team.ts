// The caller's teams and their role in the active one, which says what the console lets them do:
// viewers read, never write (the platform's rule: teams/rules.ts), so write controls are disabled
// with that reason rather than failing with 403.
import { useEffect, useState } from 'preact/hooks';
import { platform, type Session } from './api.js';
import { graphql } from './generated/graphql/index.js';
import type { TeamsQuery } from './generated/graphql/graphql.js';

const teamsQuery = graphql(`
  query Teams {
    teams(limit: 100) {
      items {
        id
        name
        slug
        userRole
        memberCount
      }
    }
  }
`);

const switchTeamMutation = graphql(`
  mutation SwitchTeam($teamId: ID!) {
    switchTeam(teamId: $teamId) {
      activeTeamId
    }
  }
`);

export type Team = TeamsQuery['teams']['items'][number];

export interface TeamState {
  teams: Team[];
  active: Team | null;
  /** Why the caller may not change the active team's records, or null when they may. */
  readOnly: string | null;
  reload: () => void;
}

export function useTeams(session: Session): TeamState {
  // null until the first answer: nothing may be written before the caller's role is known.
  const [teams, setTeams] = useState<Team[] | null>(null);
  const load = () => void platform.graphql(teamsQuery).then(({ data }) => setTeams(data?.teams.items ?? []));
  useEffect(load, [session.activeTeamId]);
  const active = teams?.find((t) => t.id === session.activeTeamId) ?? null;
  const readOnly = !teams ? 'Loading your team' : !active ? 'No active team' : active.userRole === 'viewer' ? 'Viewers can read but not change records' : null;
  return { teams: teams ?? [], active, readOnly, reload: load };
}

/** Makes `teamId` the session's active team. */
export async function switchTeam(teamId: string): Promise<boolean> {
  const { errors } = await platform.graphql(switchTeamMutation, { teamId });
  return !errors?.length;
}

/** The platform's global roles, weakest first (users.role). */
const globalRoles = ['member', 'developer', 'superadmin'];

/** Whether `session`'s user holds `role` or a stronger global role (developers may schedule actions; key scopes name their weakest role). */
export const holdsGlobalRole = (session: Session, role: string) => globalRoles.indexOf(session.user.role) >= globalRoles.indexOf(role);
