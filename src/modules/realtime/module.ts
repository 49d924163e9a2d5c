// Realtime: subscriptions to entity changes, over REST (Server-Sent Events at /api/v1/{entity}/events)
// and GraphQL (`<entity>Events`: SSE and graphql-ws). The hub (src/realtime/) delivers what the
// database announces; this module decides what each subscriber may see.
import { entityDefinitions } from '../../config/entities/index.js';
import { entityFace } from '../entities/schema.js';
import { defineModule } from '../module-description.js';
import { eventRoutes } from './events-route.js';
import { registerEntityEvents } from './schema.js';

export const realtimeModule = defineModule({
  name: 'realtime',
  httpRoutes: eventRoutes(entityDefinitions),
  // The events fields take LIST's arguments and rule: the entities' own types, from their module.
  registerSchema: (b) => registerEntityEvents(b, entityDefinitions, (d) => entityFace(b, d)),
});
