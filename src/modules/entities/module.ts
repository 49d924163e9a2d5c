// Entities: the configured definitions (src/config/entities/), each a scope resource, a plan limit
// when it names one, typed GraphQL types and fields, and REST routes; the `content:publish` action
// (creating one through the API takes one of the entity's update scopes).
import { entityDefinitions } from '../../config/entities/index.js';
import { defineAction, defineModule } from '../module-description.js';
import { contentPublish, publishScopes } from './publish-action.js';
import { entityRoutes } from './rest.js';
import { countForTeam } from './service.js';
import './schema.js'; // registers the definitions' types and fields on the builder when imported

export const entitiesModule = defineModule({
  name: 'entities',
  scopes: entityDefinitions.map((d) => ({ name: d.slug, description: `${d.name} records` })),
  usageCounters: entityDefinitions.flatMap((d) => (d.planLimit ? [{ limitSlug: d.planLimit, count: (_scope, tx, teamId, atMost) => countForTeam(tx, d, teamId, atMost) }] : [])),
  actions: [defineAction({ handler: contentPublish, creatorScopes: publishScopes })],
  routes: entityRoutes(entityDefinitions),
});
