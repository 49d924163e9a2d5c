// Every module's REST routes, in one table.
import { accountRoutes } from '../modules/accounts/rest.js';
import { apiKeyRoutes } from '../modules/api-keys/rest.js';
import { teamRoutes } from '../modules/teams/rest.js';
import { entityRoutes } from '../modules/entities/rest.js';
import { mediaRoutes } from '../modules/media/rest.js';
import { scheduledActionRoutes } from '../modules/scheduled-actions/rest.js';
import { webhookRoutes } from '../modules/webhooks/rest.js';
import { entityDefinitions } from '../config/entities/index.js';
import type { RestRoute } from './route.js';

const definitions = new Map(entityDefinitions.map((d) => [d.slug, d]));

/** An entity route is on for an entity whose definition has its operation on; a path naming no entity takes none (see router's `Allow`). */
function withEntitySwitch(route: RestRoute): RestRoute {
  const operation = route.entityOperation;
  if (!operation) return route;
  return { ...route, enabled: (params) => definitions.get(params.entity ?? '')?.operations[operation] ?? false };
}

export const restRoutes: readonly RestRoute[] = [...accountRoutes, ...apiKeyRoutes, ...teamRoutes, ...mediaRoutes, ...scheduledActionRoutes, ...webhookRoutes, ...entityRoutes.map(withEntitySwitch)];
