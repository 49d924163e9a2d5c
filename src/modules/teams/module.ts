// Teams: members, roles, invitations, the active team, plans and usage. Its own usage counters
// (team_members, api_keys) are in plan-usage.ts; other modules declare theirs in their description.
import { defineModule } from '../module-description.js';
import { teamCounters } from './plan-usage.js';
import { teamRoutes } from './rest.js';
import { registerTeamsSchema } from './schema.js';

export const teamsModule = defineModule({
  name: 'teams',
  registerSchema: registerTeamsSchema,
  scopes: [{ name: 'teams', description: 'Teams, members and invitations of the caller' }],
  routes: teamRoutes,
  usageCounters: teamCounters,
});
