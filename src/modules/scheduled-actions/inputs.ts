// Scheduled-action inputs, validated at both edges with the same schemas (REST's list query spells
// the action type `action_type`, as the contract does).
import { z } from 'zod';
import { actionStatuses, recurrenceTypes, recurringIntervals } from './interfaces.js';

const paging = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
};
const status = z.enum(actionStatuses).optional();
const actionType = z.string().trim().min(1).max(200);

export const listActionsInput = z.strictObject({ status, actionType: actionType.optional(), ...paging });
export type ListActionsInput = z.output<typeof listActionsInput>;

/** GET /api/v1/devtools/scheduled-actions: the same, with the contract's parameter names. */
export const listActionsQuery = z.strictObject({ status, action_type: actionType.optional(), ...paging });

/** Options of the in-process interface and of the developer create, checked before anything is stored. */
export const scheduleOptions = z.strictObject({
  scheduledAt: z.date().refine((d) => !Number.isNaN(d.getTime()), 'must be a valid date').optional(),
  teamId: z.guid('must be a UUID').nullish(),
  recurringInterval: z.enum(recurringIntervals).nullish(),
  maxRetries: z.number().int().min(1).max(100).optional(),
  lockGroup: z.string().trim().min(1).max(200).nullish(),
  recurrenceType: z.enum(recurrenceTypes).optional(),
});

export const createActionInput = z.strictObject({
  actionType,
  payload: z.record(z.string(), z.unknown()),
  teamId: z.guid('must be a UUID').nullish(),
  scheduledAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).nullish(),
  recurringInterval: z.enum(recurringIntervals).nullish(),
  maxRetries: z.number().int().min(1).max(100).nullish(),
  lockGroup: z.string().trim().min(1).max(200).nullish(),
  recurrenceType: z.enum(recurrenceTypes).nullish(),
});
export type CreateActionInput = z.output<typeof createActionInput>;
