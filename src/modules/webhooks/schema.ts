// GraphQL face of webhooks: `webhookEndpoints`, `webhookEndpoint(id)` (with its `deliveries`),
// `createWebhookEndpoint`, `updateWebhookEndpoint`, `deleteWebhookEndpoint`,
// `rotateWebhookEndpointSecret`. Owners and admins of the caller's active team; API keys need
// `webhooks:read`, `webhooks:write` or `webhooks:delete`.
import type { Builder } from '../../graphql/builder.js';
import { parseInput } from '../../shared/validation.js';
import { createWebhookInput, listDeliveriesQuery, listWebhooksQuery, updateWebhookInput } from './inputs.js';
import { webhookRules } from './rules.js';
import * as webhooks from './service.js';
import type { Page } from '../../shared/pagination.js';
import type { DeliveryView, EndpointView, EndpointWithSecret } from './service.js';

const { read, write, remove } = webhookRules;

/** GraphQL passes absent optional arguments as null; zod defaults want them absent. */
const given = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));

/** Registers the module's GraphQL types and fields on `b` (its module description's registerSchema). */
export function registerWebhooksSchema(b: Builder): void {
  const DeliveryRef = b.objectRef<DeliveryView>('WebhookDelivery').implement({
    description: 'One attempt to deliver an event to an endpoint.',
    fields: (t) => ({
      id: t.exposeID('id'),
      endpointId: t.exposeID('endpointId'),
      actionId: t.exposeID('actionId', { description: 'The webhook:send scheduled action.' }),
      messageId: t.exposeString('messageId', { description: 'The webhook-id header: the same for every attempt of one event.' }),
      eventType: t.exposeString('eventType'),
      attempt: t.exposeInt('attempt', { description: 'The action’s attempt (1 for the first).' }),
      status: t.string({ description: 'succeeded (a 2xx answer) or failed.', resolve: (d) => (d.succeeded ? 'succeeded' : 'failed') }),
      statusCode: t.exposeInt('statusCode', { nullable: true, description: 'The HTTP status answered; null without an answer.' }),
      durationMs: t.exposeInt('durationMs'),
      error: t.exposeString('error', { nullable: true }),
      responseBody: t.exposeString('responseBody', { nullable: true, description: 'The first 1024 bytes of the answer.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
    }),
  });

  const DeliveryPageRef = b.objectRef<Page<DeliveryView>>('WebhookDeliveryPage').implement({
    fields: (t) => ({
      items: t.field({ type: [DeliveryRef], resolve: (p) => p.items }),
      page: t.exposeInt('page'),
      limit: t.exposeInt('limit'),
      total: t.exposeInt('total'),
      totalPages: t.exposeInt('totalPages'),
    }),
  });

  const endpointDescription = 'Where a team’s events are delivered, signed per Standard Webhooks. The signing secret is shown only when it is made.';

  const EndpointRef = b.objectRef<EndpointView>('WebhookEndpoint').implement({
    description: endpointDescription,
    fields: (t) => ({
      id: t.exposeID('id'),
      teamId: t.exposeID('teamId'),
      url: t.exposeString('url'),
      description: t.exposeString('description', { nullable: true }),
      eventTypes: t.exposeStringList('eventTypes', { description: 'Event types (`tasks:created`), `<entity>:*` or `*`.' }),
      active: t.exposeBoolean('active'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      deliveries: t.field({
        type: DeliveryPageRef,
        description: 'The delivery log, newest first.',
        args: { page: t.arg.int(), limit: t.arg.int({ description: '1-100, default 20' }), status: t.arg.string({ description: 'succeeded or failed' }) },
        resolve: (endpoint, args, ctx) => webhooks.deliveriesOf(ctx, endpoint, parseInput(listDeliveriesQuery, given(args), 'Invalid query parameters')),
      }),
    }),
  });

  const EndpointWithSecretRef = b.objectRef<EndpointWithSecret>('WebhookEndpointWithSecret').implement({
    description: 'An endpoint with its new signing secret (`whsec_…`): store it now, it is never shown again.',
    fields: (t) => ({
      id: t.exposeID('id'),
      teamId: t.exposeID('teamId'),
      url: t.exposeString('url'),
      description: t.exposeString('description', { nullable: true }),
      eventTypes: t.exposeStringList('eventTypes'),
      active: t.exposeBoolean('active'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      secret: t.exposeString('secret'),
    }),
  });

  const EndpointPageRef = b.objectRef<Page<EndpointView>>('WebhookEndpointPage').implement({
    fields: (t) => ({
      items: t.field({ type: [EndpointRef], resolve: (p) => p.items }),
      page: t.exposeInt('page'),
      limit: t.exposeInt('limit'),
      total: t.exposeInt('total'),
      totalPages: t.exposeInt('totalPages'),
    }),
  });

  const DeletedEndpointRef = b.objectRef<{ id: string }>('DeletedWebhookEndpoint').implement({
    fields: (t) => ({ id: t.exposeID('id') }),
  });

  const CreateInput = b.inputType('CreateWebhookEndpointInput', {
    fields: (t) => ({
      url: t.string({ required: true, description: 'http(s); private, loopback and link-local destinations are refused.' }),
      eventTypes: t.stringList({ required: true }),
      description: t.string(),
      active: t.boolean({ description: 'Default true.' }),
    }),
  });

  const UpdateInput = b.inputType('UpdateWebhookEndpointInput', {
    description: 'At least one field; description null clears it.',
    fields: (t) => ({ url: t.string(), eventTypes: t.stringList(), description: t.string(), active: t.boolean() }),
  });

  b.queryFields((t) => ({
    webhookEndpoints: t.field({
      type: EndpointPageRef,
      description: 'The active team’s webhook endpoints, newest first (owners and admins).',
      authScopes: read,
      args: { page: t.arg.int(), limit: t.arg.int({ description: '1-100, default 20' }) },
      resolve: (_root, args, ctx) => webhooks.listEndpoints(ctx, parseInput(listWebhooksQuery, given(args), 'Invalid query parameters')),
    }),
    webhookEndpoint: t.field({
      type: EndpointRef,
      authScopes: read,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => webhooks.getEndpoint(ctx, String(id)),
    }),
  }));

  b.mutationFields((t) => ({
    createWebhookEndpoint: t.field({
      type: EndpointWithSecretRef,
      description: 'Creates an endpoint in the active team; the answer carries its signing secret, never shown again.',
      authScopes: write,
      args: { input: t.arg({ type: CreateInput, required: true }) },
      resolve: (_root, { input }, ctx) => webhooks.createEndpoint(ctx, parseInput(createWebhookInput, given(input), 'Invalid request body')),
    }),
    updateWebhookEndpoint: t.field({
      type: EndpointRef,
      authScopes: write,
      args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateInput, required: true }) },
      resolve: (_root, { id, input }, ctx) => webhooks.updateEndpoint(ctx, String(id), parseInput(updateWebhookInput, input, 'Invalid request body')),
    }),
    deleteWebhookEndpoint: t.field({
      type: DeletedEndpointRef,
      description: 'Deletes an endpoint and its delivery log.',
      authScopes: remove,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => webhooks.deleteEndpoint(ctx, String(id)),
    }),
    rotateWebhookEndpointSecret: t.field({
      type: EndpointWithSecretRef,
      description: 'A new signing secret, in this answer only; the old one stops signing at once.',
      authScopes: write,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => webhooks.rotateSecret(ctx, String(id)),
    }),
  }));
}
