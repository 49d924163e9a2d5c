// Teams: members, roles, invitations, the active team, plans and usage. Its own usage counters
// (team_members, api_keys) are the teams service's; other modules declare theirs in their description.
import { defineModule } from '../module-description.js';
import { teamRoutes } from './rest.js';
import { registerTeamsSchema } from './schema.js';

export const teamsModule = defineModule({
  name: 'teams',
  registerSchema: registerTeamsSchema,
  scopes: [{ name: 'teams', description: 'Teams, members and invitations of the caller' }],
  routes: teamRoutes,
});
