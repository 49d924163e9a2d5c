// Webhooks: endpoints of a team, their delivery log, and the `webhook:send` action that delivers an
// event (creating one through the API takes `webhooks:write`).
import { defineAction, defineModule } from '../module-description.js';
import { webhookRoutes } from './rest.js';
import { webhookSend } from './send-action.js';
import './schema.js'; // registers its GraphQL types and fields on the builder when imported

export const webhooksModule = defineModule({
  name: 'webhooks',
  scopes: [{ name: 'webhooks', description: 'Webhook endpoints of the caller’s active team and their delivery log (owners and admins)' }],
  actions: [defineAction({ handler: webhookSend, creatorScopes: () => ['webhooks:write'] })],
  routes: webhookRoutes,
});
