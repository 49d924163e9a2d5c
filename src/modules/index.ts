// The platform's modules, in the order they are composed (a module using another's types comes after
// it). The composition root (src/module-list.ts) adds the app's own after them.
import { accountsModule } from './accounts/module.js';
import { apiKeysModule } from './api-keys/module.js';
import { auditModule } from './audit/module.js';
import { entitiesModule } from './entities/module.js';
import { mediaModule } from './media/module.js';
import type { ModuleDescription } from './module-description.js';
import { realtimeModule } from './realtime/module.js';
import { scheduledActionsModule } from './scheduled-actions/module.js';
import { teamsModule } from './teams/module.js';
import { webhooksModule } from './webhooks/module.js';

export const platformModules: readonly ModuleDescription[] = Object.freeze([
  accountsModule,
  apiKeysModule,
  teamsModule,
  mediaModule,
  scheduledActionsModule,
  webhooksModule,
  auditModule,
  entitiesModule,
  realtimeModule,
]);
