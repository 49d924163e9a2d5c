// GraphQL face of scheduled actions, for developers: each field requires the developer role (or
// superadmin), then its `scheduled-actions:read|write|delete` scope (a key's; a session holds them
// all); scope-auth answers 401 to nobody, 403 "Developer role required" to anyone else, then 403 naming
// the missing scope: `scheduledActions`, `scheduledAction`, `createScheduledAction`,
// `retryScheduledAction`, `cancelScheduledAction`.
import type { Builder } from '../../graphql/builder.js';
import { parseInput } from '../../shared/validation.js';
import { createActionInput, listActionsInput } from './inputs.js';
import type { ScheduledAction } from './interfaces.js';
import * as actions from './service.js';
import type { ActionList } from './service.js';

// $all checks in order: the role before the scope, so a member's key hears about the role.
const developer = (scope: string) => ({ $all: { role: 'developer', scope } }) as const;
const read = developer('scheduled-actions:read');
const write = developer('scheduled-actions:write');
const remove = developer('scheduled-actions:delete');

/** GraphQL passes absent optional arguments as null; zod defaults want them absent. */
const given = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));

/** Registers the module's GraphQL types and fields on `b` (its module description's registerSchema). */
export function registerScheduledActionsSchema(b: Builder): void {
  const ScheduledActionRef = b.objectRef<ScheduledAction>('ScheduledAction').implement({
    description: 'A unit of background work: pending, running, completed or failed (docs/api/scheduled-actions.md).',
    fields: (t) => ({
      id: t.exposeID('id'),
      actionType: t.exposeString('actionType'),
      status: t.exposeString('status', { description: 'pending, running, completed or failed.' }),
      payload: t.field({ type: 'JSONObject', resolve: (a) => a.payload }),
      teamId: t.exposeID('teamId', { nullable: true }),
      scheduledAt: t.expose('scheduledAt', { type: 'DateTime' }),
      slotAt: t.expose('slotAt', { type: 'DateTime', description: 'The occurrence’s slot on its recurrence grid (retries move scheduledAt, not this).' }),
      startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
      completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
      errorMessage: t.exposeString('errorMessage', { nullable: true }),
      result: t.field({ type: 'JSONObject', nullable: true, description: 'What the handler reported on success.', resolve: (a) => a.result }),
      attempts: t.exposeInt('attempts', { description: 'Executions so far (counted when the action is claimed).' }),
      maxRetries: t.exposeInt('maxRetries', { description: 'Total executions before the action fails.' }),
      recurringInterval: t.exposeString('recurringInterval', { nullable: true, description: 'every-30-minutes, hourly, daily or weekly.' }),
      recurrenceType: t.exposeString('recurrenceType', { nullable: true, description: 'fixed (the original grid) or rolling (completion + interval).' }),
      lockGroup: t.exposeString('lockGroup', { nullable: true }),
      nextActionId: t.exposeID('nextActionId', { nullable: true, description: 'The next occurrence of a recurring action, once this one ended.' }),
      createdBy: t.exposeID('createdBy', { nullable: true, description: 'The user who created it through the API: it runs with their authority. Null: the platform’s own action.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    }),
  });

  const PaginationRef = b.objectRef<ActionList['pagination']>('ScheduledActionPagination').implement({
    fields: (t) => ({ total: t.exposeInt('total'), page: t.exposeInt('page'), limit: t.exposeInt('limit'), totalPages: t.exposeInt('totalPages') }),
  });

  const ListMetaRef = b.objectRef<ActionList['meta']>('ScheduledActionListMeta').implement({
    fields: (t) => ({ registeredActionTypes: t.exposeStringList('registeredActionTypes') }),
  });

  const ActionListRef = b.objectRef<ActionList>('ScheduledActionList').implement({
    fields: (t) => ({
      actions: t.field({ type: [ScheduledActionRef], resolve: (l) => l.actions }),
      pagination: t.field({ type: PaginationRef, resolve: (l) => l.pagination }),
      meta: t.field({ type: ListMetaRef, resolve: (l) => l.meta }),
    }),
  });

  const CreatedActionRef = b.objectRef<{ id: string; actionType: string; status: string }>('CreatedScheduledAction').implement({
    fields: (t) => ({ id: t.exposeID('id'), actionType: t.exposeString('actionType'), status: t.exposeString('status') }),
  });

  const StatusChangeRef = b.objectRef<{ id: string; status: string; attempts: number }>('ScheduledActionStatusChange').implement({
    fields: (t) => ({ id: t.exposeID('id'), status: t.exposeString('status'), attempts: t.exposeInt('attempts') }),
  });

  const CreateScheduledActionInput = b.inputType('CreateScheduledActionInput', {
    fields: (t) => ({
      actionType: t.string({ required: true, description: 'A registered action type (scheduledActions.meta.registeredActionTypes).' }),
      payload: t.field({ type: 'JSONObject', required: true, description: 'Checked against the action type’s schema.' }),
      teamId: t.id(),
      scheduledAt: t.string({ description: 'ISO 8601; default now.' }),
      recurringInterval: t.string({ description: 'every-30-minutes, hourly, daily or weekly.' }),
      maxRetries: t.int({ description: 'Total executions; default 3.' }),
      lockGroup: t.string(),
      recurrenceType: t.string({ description: 'fixed (default) or rolling.' }),
    }),
  });

  b.queryFields((t) => ({
    scheduledActions: t.field({
      type: ActionListRef,
      description: 'Scheduled actions, latest scheduled first (developers).',
      authScopes: read,
      args: { status: t.arg.string(), actionType: t.arg.string(), page: t.arg.int(), limit: t.arg.int({ description: '1-100, default 20' }) },
      resolve: (_root, args, ctx) => actions.listActions(ctx, parseInput(listActionsInput, given(args), 'Invalid query parameters')),
    }),
    scheduledAction: t.field({
      type: ScheduledActionRef,
      description: 'One scheduled action (developers).',
      authScopes: read,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => actions.getAction(ctx, String(id)),
    }),
  }));

  b.mutationFields((t) => ({
    createScheduledAction: t.field({
      type: CreatedActionRef,
      description: 'Schedules an action as the in-process scheduleAction does (deduplicated; developers).',
      authScopes: write,
      args: { input: t.arg({ type: CreateScheduledActionInput, required: true }) },
      resolve: (_root, { input }, ctx) => actions.createAction(ctx, parseInput(createActionInput, given(input))),
    }),
    retryScheduledAction: t.field({
      type: StatusChangeRef,
      description: 'A failed action goes back to pending with its attempts reset (developers).',
      authScopes: write,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => actions.retryAction(ctx, String(id)),
    }),
    cancelScheduledAction: t.field({
      type: StatusChangeRef,
      description: 'A pending action becomes failed, "Cancelled" (developers).',
      authScopes: remove,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => actions.cancelAction(ctx, String(id)),
    }),
  }));
}
