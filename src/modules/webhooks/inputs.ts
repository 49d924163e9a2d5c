// Webhook inputs, validated at both edges with the same schemas. The URL's destination (SSRF guard,
// DNS) is checked in the service, which may wait for DNS before the request's transaction opens.
import { z } from 'zod';
import { eventPattern } from './event-types.js';

const paging = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
};

const url = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(2000, 'must be at most 2000 characters')
  .refine((value) => URL.canParse(value), 'must be an absolute http or https URL');

const eventTypes = z
  .array(z.string().trim().regex(eventPattern, 'must be "*", "<entity>:*" or "<entity>:<verb>" (lowercase), e.g. "tasks:created"'))
  .min(1, 'at least one event type is required')
  .max(50, 'at most 50 event types')
  .transform((types) => [...new Set(types)]);

const description = z.string().trim().max(500, 'must be at most 500 characters');

export const createWebhookInput = z.strictObject({
  url,
  eventTypes,
  description: description.nullish(),
  active: z.boolean().default(true),
});
export type CreateWebhookInput = z.output<typeof createWebhookInput>;

export const updateWebhookInput = z
  .strictObject({ url: url.optional(), eventTypes: eventTypes.optional(), description: description.nullish(), active: z.boolean().optional() })
  .refine((input) => Object.values(input).some((v) => v !== undefined), { message: 'at least one of url, eventTypes, description, active is required' });
export type UpdateWebhookInput = z.output<typeof updateWebhookInput>;

export const listWebhooksQuery = z.strictObject(paging);
export type ListWebhooksQuery = z.output<typeof listWebhooksQuery>;

export const listDeliveriesQuery = z.strictObject({ ...paging, status: z.enum(['succeeded', 'failed']).optional() });
export type ListDeliveriesQuery = z.output<typeof listDeliveriesQuery>;
