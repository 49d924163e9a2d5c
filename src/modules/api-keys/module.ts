// API keys: creation, listing, rotation and revocation of a user's keys, and their audit log.
import { defineModule } from '../module-description.js';
import { apiKeyRoutes } from './rest.js';
import { registerApiKeysSchema } from './schema.js';

export const apiKeysModule = defineModule({
  name: 'api-keys',
  registerSchema: registerApiKeysSchema,
  routes: apiKeyRoutes,
});
