// REST face of scheduled actions for developers (/api/v1/devtools/scheduled-actions): the key of a
// developer or superadmin user (x-api-key or Bearer; a developer's session works too) holding
// `scheduled-actions:read` (list, get), `:write` (create, retry) or `:delete` (cancel); anyone else
// gets 403, nobody 401. The cron route (GET /api/v1/cron/process) is not a GraphQL operation: see
// cron-route.ts.
import { z } from 'zod';
import {
  CancelScheduledActionDocument,
  CreateScheduledActionDocument,
  GetScheduledActionDocument,
  ListScheduledActionsDocument,
  RetryScheduledActionDocument,
} from '../../generated/operations.js';
import { defineRoute } from '../../rest/route.js';
import { createActionInput, listActionsQuery } from './inputs.js';

const tags = ['Scheduled actions'];
const access = 'authenticated' as const;
const idParams = z.object({ id: z.string().max(100) });
const action = z.object({
  id: z.string(),
  actionType: z.string(),
  status: z.enum(['pending', 'running', 'completed', 'failed']),
  payload: z.record(z.string(), z.unknown()),
  teamId: z.string().nullable(),
  scheduledAt: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  errorMessage: z.string().nullable(),
  attempts: z.number(),
  maxRetries: z.number(),
  recurringInterval: z.string().nullable(),
  recurrenceType: z.string().nullable(),
  lockGroup: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  result: z.record(z.string(), z.unknown()).nullable(),
  nextActionId: z.string().nullable(),
  createdBy: z.string().nullable(),
});
const statusChange = z.object({ id: z.string(), status: z.string(), attempts: z.number() });

export const scheduledActionRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v1/devtools/scheduled-actions',
    summary: 'Scheduled actions, latest scheduled first, with paging and the registered action types (developers)',
    tags,
    access,
    query: listActionsQuery,
    operation: ListScheduledActionsDocument,
    variables: ({ query }) => ({ status: query.status, actionType: query.action_type, page: query.page, limit: query.limit }),
    data: (r) => r.scheduledActions,
    response: z.object({
      actions: z.array(action),
      pagination: z.object({ total: z.number(), page: z.number(), limit: z.number(), totalPages: z.number() }),
      meta: z.object({ registeredActionTypes: z.array(z.string()) }),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/devtools/scheduled-actions/{id}',
    summary: 'One scheduled action (developers)',
    tags,
    access,
    params: idParams,
    operation: GetScheduledActionDocument,
    variables: ({ params }) => ({ id: params.id }),
    data: (r) => r.scheduledAction,
    response: action,
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/devtools/scheduled-actions',
    summary: 'Schedule an action; the payload is checked against the action type’s schema (developers)',
    tags,
    access,
    body: createActionInput,
    operation: CreateScheduledActionDocument,
    variables: ({ body }) => ({ input: body }),
    data: (r) => r.createScheduledAction,
    status: 201,
    response: z.object({ id: z.string(), actionType: z.string(), status: z.string() }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/devtools/scheduled-actions/{id}/retry',
    summary: 'A failed action back to pending, attempts reset (developers); any other status is 400',
    tags,
    access,
    params: idParams,
    operation: RetryScheduledActionDocument,
    variables: ({ params }) => ({ id: params.id }),
    data: (r) => r.retryScheduledAction,
    extras: () => ({ message: 'Scheduled action queued for retry' }),
    response: statusChange,
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/devtools/scheduled-actions/{id}',
    summary: 'Cancel a pending action: it becomes failed, "Cancelled" (developers); any other status is 400',
    tags,
    access,
    params: idParams,
    operation: CancelScheduledActionDocument,
    variables: ({ params }) => ({ id: params.id }),
    data: (r) => r.cancelScheduledAction,
    extras: () => ({ message: 'Scheduled action cancelled' }),
    response: statusChange,
  }),
];
