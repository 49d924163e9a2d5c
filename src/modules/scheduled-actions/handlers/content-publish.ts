// `content:publish`: publishes an entity record when its time comes: `status` becomes `published` and
// `publishedAt` the time of the run, for the fields the entity has (an entity with neither completes
// with a result saying nothing was set). The record is `entityId` (or `contentId`, the contract's other
// name for it) of the entity `entityType` (its slug); a missing or deleted record, or one of another
// team than the action's, fails the attempt. Publishing is an update: it records the record's
// `<slug>:updated` webhook event with the change.
import { z } from 'zod';
import { entityDefinitions } from '../../../config/entities/index.js';
import { publishRecord } from '../../entities/service.js';
import type { ActionHandler } from '../interfaces.js';

const entitySlugs = new Set(entityDefinitions.map((d) => d.slug));

export const contentPublishPayload = z
  .strictObject({
    entityType: z.string().refine((slug) => entitySlugs.has(slug), { message: 'must be the slug of a configured entity' }),
    entityId: z.string().min(1).max(100).optional(),
    contentId: z.string().min(1).max(100).optional(),
  })
  .refine((p) => p.entityId !== undefined || p.contentId !== undefined, { message: 'entityId (or contentId) is required', path: ['entityId'] });
export type ContentPublishPayload = z.output<typeof contentPublishPayload>;

export const contentPublish: ActionHandler<ContentPublishPayload> = {
  actionType: 'content:publish',
  payload: contentPublishPayload,
  async run(payload, ctx) {
    const definition = entityDefinitions.find((d) => d.slug === payload.entityType)!;
    const id = (payload.entityId ?? payload.contentId)!;
    const queue = { system: () => ctx.system, now: ctx.now, config: ctx.config };
    const set = await publishRecord(queue, ctx.system, definition, id, ctx.action.teamId, ctx.now());
    if (!set) throw new Error(`${definition.name} ${id} not found`);
    if (!set.length) return { entityType: payload.entityType, entityId: id, published: false, message: `${definition.name} has no status or publishedAt field: nothing to set` };
    return { entityType: payload.entityType, entityId: id, published: true, fields: set };
  },
};
