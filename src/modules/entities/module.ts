// Entities: the configured definitions (src/config/entities/), each a scope resource, a plan limit
// when it names one, typed GraphQL types and fields, and REST routes; the `content:publish` action
// (its creator must pass the entity's update rule: when it is created through the API, and when it runs);
// export and import; and the sweep of record history and trashed records past each definition's
// `history.keep` and `softDelete.purgeAfter`.
import { entityDefinitions } from '../../config/entities/index.js';
import { systemDb } from '../../db/request-db.js';
import { defineAction, defineModule, periodicWorker } from '../module-description.js';
import { sweepHistory } from './history.js';
import { sweepTrash } from './trash.js';
import { contentPublish, publishRule } from './publish-action.js';
import { entityRoutes } from './rest.js';
import { countForTeam } from './service.js';
import { registerEntitySchema } from './schema.js';
import { transferRoutes } from './transfer-routes.js';

export const entitiesModule = defineModule({
  name: 'entities',
  registerSchema: registerEntitySchema,
  scopes: entityDefinitions.map((d) => ({ name: d.slug, description: `${d.name} records` })),
  usageCounters: entityDefinitions.flatMap((d) => (d.planLimit ? [{ limitSlug: d.planLimit, count: (_scope, tx, teamId) => countForTeam(tx, d, teamId) }] : [])),
  actions: [defineAction({ handler: contentPublish, creatorRule: publishRule })],
  routes: entityRoutes(entityDefinitions),
  // Export and import: streams and bodies of lines, not JSON envelopes.
  httpRoutes: transferRoutes(entityDefinitions),
  // Versions past each definition's history.keep, and trashed records past its softDelete.purgeAfter, go once an hour (and once at start).
  workers: [
    periodicWorker('entities: history and trash sweep', { everyMs: 3_600_000, atStart: true }, async ({ database, now }) => {
      const system = systemDb(database, 'history and trash sweep');
      await sweepHistory(system, entityDefinitions, now());
      await sweepTrash(system, entityDefinitions, now());
    }),
  ],
});
