// `webhook:send`: an event for the webhook endpoints of the action's team. The payload is the
// contract's (`eventType`, `entityType`, `entityId`, `data`); delivery (Standard Webhooks signing, the
// SSRF guard, the delivery log, retrying only the endpoints not yet delivered to) is the webhooks
// module's (src/modules/webhooks/delivery.ts). Two events about one entity merge (deduplication) only
// when their eventType is the same: a `created` is never swallowed by the `updated` that follows it.
import { z } from 'zod';
import { deliverWebhookEvent } from '../../webhooks/service.js';
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
  dedupKeys: ['eventType'],
  run(payload, ctx) {
    return deliverWebhookEvent(payload, {
      actionId: ctx.action.id,
      teamId: ctx.action.teamId,
      attempt: ctx.action.attempts,
      db: ctx.system.prisma,
      settings: ctx.config.webhooks,
      now: ctx.now,
      signal: ctx.signal,
      log: ctx.log,
    });
  },
};
