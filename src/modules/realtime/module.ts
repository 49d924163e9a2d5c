// Realtime: subscriptions to entity changes, over REST (Server-Sent Events at /api/v1/{entity}/events)
// and GraphQL (`<entity>Events`: SSE and graphql-ws). The hub (src/realtime/) delivers what the
// database announces; this module decides what each subscriber may see. Its worker prunes the event
// log past the replay window, every minute (any instance may: the statement is idempotent).
import { entityDefinitions } from '../../config/entities/index.js';
import { systemDb } from '../../db/request-db.js';
import { pruneEvents } from '../../realtime/event-log.js';
import { entityFace } from '../entities/schema.js';
import { defineModule, periodicWorker } from '../module-description.js';
import { eventRoutes } from './events-route.js';
import { registerEntityEvents } from './schema.js';

export const realtimeModule = defineModule({
  name: 'realtime',
  httpRoutes: eventRoutes(entityDefinitions),
  // The events fields take LIST's arguments and rule: the entities' own types, from their module.
  registerSchema: (b) => registerEntityEvents(b, entityDefinitions, (d) => entityFace(b, d)),
  workers: [periodicWorker('realtime: event log pruning', { everyMs: 60_000, atStart: false }, ({ config, database }) => pruneEvents(systemDb(database, 'realtime events'), config.realtime.replayMs))],
});
