// The composition root: the platform's modules, then the app's (src/app/), in one list. The app builds its schema, routes, scope
// resources, usage counters and queue handlers from it (composition.ts), once, at start-up.
import { appModules } from '../app/index.js';
import { accountsModule } from './accounts/module.js';
import { apiKeysModule } from './api-keys/module.js';
import { entitiesModule } from './entities/module.js';
import { mediaModule } from './media/module.js';
import type { ModuleDescription } from './module-description.js';
import { realtimeModule } from './realtime/module.js';
import { scheduledActionsModule } from './scheduled-actions/module.js';
import { teamsModule } from './teams/module.js';
import { webhooksModule } from './webhooks/module.js';

export const modules: readonly ModuleDescription[] = Object.freeze([
  accountsModule,
  apiKeysModule,
  teamsModule,
  mediaModule,
  scheduledActionsModule,
  webhooksModule,
  entitiesModule,
  realtimeModule,
  ...appModules,
]);
