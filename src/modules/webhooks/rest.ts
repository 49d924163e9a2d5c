// REST face of webhooks (/api/v1/webhooks): the active team's endpoints and their delivery log, for
// its owners and admins. Errors carry codes (VALIDATION_ERROR, FORBIDDEN, NOT_FOUND) like teams'.
import { z } from 'zod';
import {
  CreateWebhookEndpointDocument,
  DeleteWebhookEndpointDocument,
  GetWebhookEndpointDocument,
  ListWebhookEndpointsDocument,
  RotateWebhookEndpointSecretDocument,
  UpdateWebhookEndpointDocument,
  WebhookEndpointDeliveriesDocument,
} from '../../generated/operations.js';
import { defineRoute } from '../../rest/route.js';
import { createWebhookInput, listDeliveriesQuery, listWebhooksQuery, updateWebhookInput } from './inputs.js';

const tags = ['Webhooks'];
const access = 'authenticated' as const;
const idParams = z.object({ id: z.string().max(100) });
const pagination = <T extends { page: number; limit: number; total: number; totalPages: number }>(p: T) => ({
  pagination: { page: p.page, limit: p.limit, total: p.total, totalPages: p.totalPages },
});

const endpoint = z.object({
  id: z.string(),
  teamId: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  eventTypes: z.array(z.string()),
  active: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const withSecret = endpoint.extend({ secret: z.string().describe('whsec_…: shown in this answer only') });
const delivery = z.object({
  id: z.string(),
  endpointId: z.string(),
  actionId: z.string(),
  messageId: z.string(),
  eventType: z.string(),
  attempt: z.number(),
  status: z.enum(['succeeded', 'failed']),
  statusCode: z.number().nullable(),
  durationMs: z.number(),
  error: z.string().nullable(),
  responseBody: z.string().nullable(),
  createdAt: z.string(),
});

export const webhookRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v1/webhooks',
    summary: 'The active team’s webhook endpoints, newest first (owners and admins)',
    tags,
    access,
    query: listWebhooksQuery,
    operation: ListWebhookEndpointsDocument,
    variables: ({ query }) => query,
    data: (r) => r.webhookEndpoints.items,
    extras: (r) => pagination(r.webhookEndpoints),
    response: z.array(endpoint),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/webhooks',
    summary: 'Create an endpoint; the answer carries its signing secret, never shown again',
    tags,
    access,
    body: createWebhookInput,
    operation: CreateWebhookEndpointDocument,
    variables: ({ body }) => ({ input: body }),
    data: (r) => r.createWebhookEndpoint,
    status: 201,
    response: withSecret,
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/webhooks/{id}',
    summary: 'One endpoint of the active team',
    tags,
    access,
    params: idParams,
    operation: GetWebhookEndpointDocument,
    variables: ({ params }) => ({ id: params.id }),
    data: (r) => r.webhookEndpoint,
    response: endpoint,
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/webhooks/{id}',
    summary: 'Change url, eventTypes, description or active',
    tags,
    access,
    params: idParams,
    body: updateWebhookInput,
    operation: UpdateWebhookEndpointDocument,
    variables: ({ params, body }) => ({ id: params.id, input: body }),
    data: (r) => r.updateWebhookEndpoint,
    response: endpoint,
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/webhooks/{id}',
    summary: 'Delete an endpoint and its delivery log',
    tags,
    access,
    params: idParams,
    operation: DeleteWebhookEndpointDocument,
    variables: ({ params }) => ({ id: params.id }),
    data: (r) => r.deleteWebhookEndpoint,
    extras: () => ({ message: 'Webhook endpoint deleted' }),
    response: z.object({ id: z.string() }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/webhooks/{id}/rotate-secret',
    summary: 'A new signing secret, in this answer only; the old one stops signing at once',
    tags,
    access,
    params: idParams,
    operation: RotateWebhookEndpointSecretDocument,
    variables: ({ params }) => ({ id: params.id }),
    data: (r) => r.rotateWebhookEndpointSecret,
    response: withSecret,
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/webhooks/{id}/deliveries',
    summary: 'The endpoint’s delivery log, newest first (status: succeeded or failed)',
    tags,
    access,
    params: idParams,
    query: listDeliveriesQuery,
    operation: WebhookEndpointDeliveriesDocument,
    variables: ({ params, query }) => ({ id: params.id, ...query }),
    data: (r) => r.webhookEndpoint.deliveries.items,
    extras: (r) => pagination(r.webhookEndpoint.deliveries),
    response: z.array(delivery),
  }),
];
