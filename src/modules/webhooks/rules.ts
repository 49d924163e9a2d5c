// The rules of webhook operations (auth/rules.ts), declared once: on the GraphQL fields (schema.ts)
// and for the creator of a `webhook:send` action (module.ts: the queue's runner judges it).
import type { Rule } from '../../auth/rules.js';

export const webhookRules = {
  read: { scope: 'webhooks:read' },
  write: { scope: 'webhooks:write' },
  remove: { scope: 'webhooks:delete' },
} as const satisfies Record<string, Rule>;
