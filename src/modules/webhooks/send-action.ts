// `webhook:send`: an event for the webhook endpoints of the action's team. The payload is the
// contract's (`eventType`, `entityType`, `entityId`, `data`); delivery (Standard Webhooks signing, the
// SSRF guard, the delivery log, retrying only the endpoints not yet delivered to) is the webhooks
// module's (src/modules/webhooks/delivery.ts). Two events about one entity merge (deduplication) only
// when their eventType is the same: a `created` is never swallowed by the `updated` that follows it.
// Through the API, an event is a signed message of the caller's making: only a team's owners and
// admins (who manage its endpoints and hold their signing secrets, so it forges nothing they could not
// sign themselves) or a superadmin may create one, for that team, with a key holding `webhooks:write`
// (declared in module.ts, checked by the queue's handler runner); when it runs, its creator must still
// manage the team. The contract makes `teamId` optional: without one it is the creator's active team
// (the same checks), and a creator with no team at all sends to no endpoint. The handler lives here,
// with the data it owns: scheduled actions import no module.
import { z } from 'zod';
import { forbidden } from '../../shared/errors.js';
import { managesTeam } from '../scheduled-actions/creator.js';
import type { ActionHandler } from '../scheduled-actions/interfaces.js';
import { deliverWebhookEvent } from './service.js';

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
  teamDefault: 'active',
  refuseCreation(_payload, creator, teamId) {
    if (teamId && !managesTeam(creator, teamId)) return forbidden('Only the team’s owners and admins (who manage its webhook endpoints) can send events to them');
    return null;
  },
  async run(payload, ctx) {
    const { creator, action } = ctx;
    // Made through the API by a creator without a team: no team's endpoint is theirs to send to.
    if (action.createdBy && !action.teamId) return { eventType: payload.eventType, delivered: [], message: 'No team: the action’s creator had no active team, so no endpoint receives the event' };
    if (creator && action.teamId && !managesTeam(creator, action.teamId)) {
      throw new Error(`Not permitted: the action's creator (user ${creator.userId}) no longer manages team ${action.teamId}'s webhook endpoints; the action runs with their authority`);
    }
    return deliverWebhookEvent(payload, {
      actionId: action.id,
      teamId: action.teamId,
      attempt: action.attempts,
      db: ctx.system.prisma,
      settings: ctx.config.webhooks,
      now: ctx.now,
      signal: ctx.signal,
      log: ctx.log,
    });
  },
};

declare module '../scheduled-actions/handlers/built-in.js' {
  interface ActionPayloads {
    'webhook:send': z.input<typeof webhookSendPayload>;
  }
}
