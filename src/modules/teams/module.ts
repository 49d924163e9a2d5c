// Teams: members, roles, invitations, the active team, plans and usage. Its own usage counters
// (team_members, api_keys) are the teams service's; other modules declare theirs in their description.
import { defineModule } from '../module-description.js';
import { teamRoutes } from './rest.js';
import './schema.js'; // registers its GraphQL types and fields on the builder when imported

export const teamsModule = defineModule({
  name: 'teams',
  scopes: [{ name: 'teams', description: 'Teams, members and invitations of the caller' }],
  routes: teamRoutes,
});
