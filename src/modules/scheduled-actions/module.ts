// Scheduled actions: the queue, its developer endpoints and the cron route. It runs the actions other
// modules declare and imports none of them.
import { defineModule } from '../module-description.js';
import { cronRoute } from './cron-route.js';
import { scheduledActionRoutes } from './rest.js';
import { registerScheduledActionsSchema } from './schema.js';

export const scheduledActionsModule = defineModule({
  name: 'scheduled-actions',
  registerSchema: registerScheduledActionsSchema,
  scopes: [{
    name: 'scheduled-actions',
    description: 'Scheduled actions of the caller’s teams and those with no team (developer endpoints; superadmins: every team)',
    minimumRole: 'developer',
  }],
  routes: scheduledActionRoutes,
  httpRoutes: [cronRoute],
});
