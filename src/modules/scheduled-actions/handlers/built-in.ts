// The action types the platform ships, registered at start-up and again by every batch (idempotent).
import type { z } from 'zod';
import { registerHandler } from '../registry.js';
import { contentPublish, type contentPublishPayload } from './content-publish.js';
import { socialRefreshTokens } from './social-refresh-tokens.js';
import { webhookSend, type webhookSendPayload } from './webhook-send.js';

/** Registers the built-in handlers (idempotent). */
export function registerBuiltInHandlers(): void {
  registerHandler(webhookSend);
  registerHandler(contentPublish);
  registerHandler(socialRefreshTokens);
}

/** Payloads of the built-in action types, as callers write them: scheduleAction checks them at compile time. */
export interface ActionPayloads {
  'webhook:send': z.input<typeof webhookSendPayload>;
  'content:publish': z.input<typeof contentPublishPayload>;
  'social:refresh-tokens': Record<string, never>;
}
