// `webhook:send`: an event about an entity, for the team's webhook endpoints. The payload is the
// contract's. Delivery (webhook endpoints, Standard Webhooks signing, the SSRF guard, the delivery log)
// is not built yet: the type is registered so that events can be scheduled, and every attempt fails
// with a message that says so (retries and the final `failed` then follow the queue's rules).
import { z } from 'zod';
import type { ActionHandler } from '../interfaces.js';

export const webhookSendPayload = z.strictObject({
  eventType: z.string().trim().min(1).max(200),
  entityType: z.string().trim().min(1).max(100),
  entityId: z.string().trim().min(1).max(200),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookSendPayload = z.output<typeof webhookSendPayload>;

export const webhookSend: ActionHandler<WebhookSendPayload> = {
  actionType: 'webhook:send',
  payload: webhookSendPayload,
  async run() {
    throw new Error('No webhook delivery configured: webhook endpoints and signed delivery are not available yet');
  },
};
