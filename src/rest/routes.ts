// Every module's REST routes, in one table.
import { accountRoutes } from '../modules/accounts/rest.js';
import { apiKeyRoutes } from '../modules/api-keys/rest.js';
import { teamRoutes } from '../modules/teams/rest.js';
import { entityRoutes } from '../modules/entities/rest.js';
import { mediaRoutes } from '../modules/media/rest.js';
import { scheduledActionRoutes } from '../modules/scheduled-actions/rest.js';
import { webhookRoutes } from '../modules/webhooks/rest.js';
import type { RestRoute } from './route.js';

export const restRoutes: readonly RestRoute[] = [...accountRoutes, ...apiKeyRoutes, ...teamRoutes, ...mediaRoutes, ...scheduledActionRoutes, ...webhookRoutes, ...entityRoutes];
