// Scheduled actions: the queue, its developer endpoints and the cron route. It runs the actions other
// modules declare and imports none of them. Its worker is the built-in scheduler (CRON_INTERVAL_SECONDS).
import { defineModule } from '../module-description.js';
import { cronRoute } from './cron-route.js';
import { processBatch, queueDeps } from './processor.js';
import { scheduledActionRoutes } from './rest.js';
import { startScheduler } from './scheduler.js';
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
  workers: [{
    name: 'scheduled actions: built-in scheduler',
    // Batches run as named system work, as from the cron route; off unless CRON_INTERVAL_SECONDS is set.
    start: ({ config, database, logger, now, services }) => {
      const every = config.scheduledActions.intervalMs;
      if (!every) return null;
      const queue = queueDeps(database, config, now, logger.child({ module: 'scheduled-actions' }), services);
      return startScheduler(every, () => processBatch(queue), queue.log);
    },
  }],
});
