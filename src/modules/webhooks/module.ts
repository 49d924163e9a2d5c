// Webhooks: endpoints of a team, their delivery log, and the `webhook:send` action that delivers an
// event (its creator must pass the rule of the webhook fields that write: `webhooks:write`).
import { defineAction, defineModule } from '../module-description.js';
import { webhookRoutes } from './rest.js';
import { webhookRules } from './rules.js';
import { webhookSend } from './send-action.js';
import { registerWebhooksSchema } from './schema.js';

export const webhooksModule = defineModule({
  name: 'webhooks',
  registerSchema: registerWebhooksSchema,
  scopes: [{ name: 'webhooks', description: 'Webhook endpoints of the caller’s active team and their delivery log (owners and admins)' }],
  actions: [defineAction({ handler: webhookSend, creatorRule: () => webhookRules.write })],
  routes: webhookRoutes,
});
