// API keys: creation, listing, rotation and revocation of a user's keys, and their audit log.
import { defineModule } from '../module-description.js';
import { apiKeyRoutes } from './rest.js';
import './schema.js'; // registers its GraphQL types and fields on the builder when imported

export const apiKeysModule = defineModule({
  name: 'api-keys',
  routes: apiKeyRoutes,
});
