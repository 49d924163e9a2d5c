// Entities: the configured definitions (src/config/entities/), each a scope resource, a plan limit
// when it names one, typed GraphQL types and fields, and REST routes; the `content:publish` action
// (its creator must pass the entity's update rule: when it is created through the API, and when it runs).
import { entityDefinitions } from '../../config/entities/index.js';
import { defineAction, defineModule } from '../module-description.js';
import { contentPublish, publishRule } from './publish-action.js';
import { entityRoutes } from './rest.js';
import { countForTeam } from './service.js';
import { registerEntitySchema } from './schema.js';

export const entitiesModule = defineModule({
  name: 'entities',
  registerSchema: registerEntitySchema,
  scopes: entityDefinitions.map((d) => ({ name: d.slug, description: `${d.name} records` })),
  usageCounters: entityDefinitions.flatMap((d) => (d.planLimit ? [{ limitSlug: d.planLimit, count: (_scope, tx, teamId, atMost) => countForTeam(tx, d, teamId, atMost) }] : [])),
  actions: [defineAction({ handler: contentPublish, creatorRule: publishRule })],
  routes: entityRoutes(entityDefinitions),
});
