// `content:publish`: publishes an entity record when its time comes: `status` becomes `published` and
// `publishedAt` the time of the run, for the fields the entity has (an entity with neither completes
// with a result saying nothing was set). The record is `entityId` (or `contentId`, the contract's other
// name for it) of the entity `entityType` (its slug); a missing or deleted record, or one of another
// team than the action's, fails the attempt. Publishing is an update: it records the record's
// `<slug>:updated` webhook event with the change. An action created through the API publishes as its
// creator: with a request scope of theirs (RLS as them; the entity's hooks reach other records through
// context.entities as them), after the entity service's rules (a team they may write; the record's
// owner unless the entity is shared), so a publish the creator could not make fails the attempt with
// a message saying why; a superadmin's publishes any team's record, as the platform's own do.
// Its creator must pass the entity's update rule (declared in module.ts, judged by the queue's
// handler runner when it is created through the API and when it runs). The handler lives here, with the records it changes.
import { recordChange } from './change.js';
import { z } from 'zod';
import type { AuthenticatedActor } from '../../auth/actor.js';
import type { RequestScope } from '../../auth/request-scope.js';
import type { Rule } from '../../auth/rules.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { EntityDefinition } from '../../config/entity-definition.js';
import type { HookCaller, HookEntities } from '../../config/entity-hooks.js';
import { createMailer, type Mailer } from '../../mail/outbox.js';
import { entityDefinitions, entityNamed } from '../../config/entities/index.js';
import type { Tx } from '../../db/request-db.js';
import { AppError, forbidden } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { actsAcrossTeams, mayWriteTeam, type Creator } from '../scheduled-actions/creator.js';
import type { ActionHandler } from '../scheduled-actions/interfaces.js';
import type { QueueScope } from '../scheduled-actions/service.js';
import { delegateOf } from './repository.js';
import { operationRule } from './rules.js';
import { afterChange, lazyContext, validatedWrite } from './hooks.js';
import { written } from './service.js';
import { entitiesAs } from './writes.js';
import type { Values } from './validate.js';

const entitySlugs = new Set(entityDefinitions.map((d) => d.slug));
const definitionOf = (slug: string): EntityDefinition => entityNamed(slug)!;

export const contentPublishPayload = z
  .strictObject({
    entityType: z.string().refine((slug) => entitySlugs.has(slug), { message: 'must be the slug of a configured entity' }),
    entityId: z.string().min(1).max(100).optional(),
    contentId: z.string().min(1).max(100).optional(),
  })
  .refine((p) => p.entityId !== undefined || p.contentId !== undefined, { message: 'entityId (or contentId) is required', path: ['entityId'] });
export type ContentPublishPayload = z.output<typeof contentPublishPayload>;

/** The rule its creator must pass: the entity's update rule (as updateTask's field declares it). */
export const publishRule = (payload: ContentPublishPayload): Rule => operationRule(definitionOf(payload.entityType), 'update');

/** A publish the action's creator may not make: the attempt fails with this message. */
class NotPermitted extends Error {}

/** Why the creator may not publish the record (read through RLS as them), or null; a record they cannot see is left to publishRecord's "not found". */
async function creatorRefusal(tx: Tx, creator: Creator, d: EntityDefinition, id: string): Promise<string | null> {
  if (!isUuid(id)) return null;
  const table = Prisma.raw(`"${d.tableName}"`); // from the definition, never from a request
  const [row] = await tx.$queryRaw<{ teamId: string; userId: string }[]>`SELECT team_id::text AS "teamId", user_id::text AS "userId" FROM ${table} WHERE id = ${id}::uuid`;
  if (!row) return null;
  const who = `the action's creator (user ${creator.userId})`;
  if (!mayWriteTeam(creator, row.teamId)) return `Not permitted: ${who} cannot write the team of ${d.name} ${id}; the action runs with their authority`;
  if (!d.access.shared && row.userId !== creator.userId) return `Not permitted: ${d.name} ${id} is not ${who}'s own record (${d.slug} are private to their owner); the action runs with their authority`;
  return null;
}

/** Runs publishRecord's transaction as the creator (a request scope of theirs: RLS as them), after their check. */
function asCreator(creator: Creator, d: EntityDefinition, id: string): TransactionRunner {
  return (work) =>
    creator.withScope(async (scope) => {
      const tx = await scope.db.tx();
      const refusal = await creatorRefusal(tx, creator, d, id);
      if (refusal) throw new NotPermitted(refusal);
      return work(tx, scope);
    });
}

/** Prisma's "record to update not found": RLS let the creator see the record but not change it. */
const isUpdateRefused = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: string }).code === 'P2025';

export const contentPublish: ActionHandler<ContentPublishPayload> = {
  actionType: 'content:publish',
  payload: contentPublishPayload,
  refuseCreation(payload) {
    const d = definitionOf(payload.entityType);
    const needed = d.permissions.update;
    if (!d.operations.update || needed.length === 0) return forbidden(`${d.name} records cannot be updated, so they cannot be published`);
    return null;
  },
  async run(payload, ctx) {
    const definition = definitionOf(payload.entityType);
    const id = (payload.entityId ?? payload.contentId)!;
    const queue = { system: () => ctx.system, now: ctx.now, config: ctx.config, services: ctx.services };
    const creator = ctx.creator && !actsAcrossTeams(ctx.creator) ? ctx.creator : null;
    if (creator && (!definition.operations.update || definition.permissions.update.length === 0)) throw new Error(`Not permitted: ${definition.name} records cannot be updated`);
    let set: string[] | null;
    try {
      const transaction: TransactionRunner = creator ? asCreator(creator, definition, id) : (work) => ctx.system.prisma.$transaction((tx) => work(tx, null));
      const publisher: Publisher = {
        userId: creator?.userId ?? null,
        roleIn: (team) => creator?.teams.find((t) => t.teamId === team)?.role ?? null,
        // A hook's mail (rare here): a transport made for it.
        mail: { send: (tx, mail) => createMailer(ctx.config.mail, ctx.log).send(tx, mail) },
      };
      set = await publishRecord(queue, transaction, definition, id, ctx.action.teamId, ctx.now(), publisher);
    } catch (error) {
      if (creator && isUpdateRefused(error)) throw new Error(`Not permitted: the action's creator (user ${creator.userId}) may not change ${definition.name} ${id}; the action runs with their authority`);
      // Refused by the entity's hooks (or its validation): the attempt fails saying what was refused.
      if (error instanceof AppError) throw new Error(`${error.message}${error.details ? ` (${Object.entries(error.details).map(([field, why]) => `${field}: ${String(why)}`).join('; ')})` : ''}`);
      throw error;
    }
    if (!set) throw new Error(creator ? `${definition.name} ${id} not found (among the records the action's creator can see)` : `${definition.name} ${id} not found`);
    if (!set.length) return { entityType: payload.entityType, entityId: id, published: false, message: `${definition.name} has no status or publishedAt field: nothing to set` };
    return { entityType: payload.entityType, entityId: id, published: true, fields: set };
  },
};

declare module '../scheduled-actions/handlers/built-in.js' {
  interface ActionPayloads {
    'content:publish': z.input<typeof contentPublishPayload>;
  }
}

/**
 * Runs `work` in one transaction and answers what it answers; with the request scope of whoever
 * publishes (the action's creator), or null for the platform's own publishes (system work).
 */
export type TransactionRunner = <T>(work: (tx: Tx, publisher: RequestScope | null) => Promise<T>) => Promise<T>;

/** The fields publishing sets on records of `d`: `status` (when it can hold `published`) and `publishedAt`. */
export function publishableFields(d: EntityDefinition): { status: boolean; publishedAt: boolean } {
  const status = d.fields.find((f) => f.name === 'status');
  const publishedAt = d.fields.find((f) => f.name === 'publishedAt');
  return {
    status: !!status && (status.type === 'string' || status.type === 'text' || (status.type === 'select' && !!status.enum?.includes('published'))),
    publishedAt: !!publishedAt && (publishedAt.type === 'datetime' || publishedAt.type === 'date'),
  };
}

/** Who publishes, for the entity's hooks: the action's creator with their role in the record's team, or the platform. */
export interface Publisher {
  userId: string | null;
  roleIn(teamId: string): HookCaller['role'];
  mail: Pick<Mailer, 'send'>;
}

/**
 * Publishes a record for the scheduler (`content:publish`, system work: no caller): `status` becomes
 * `published` and `publishedAt` `at`, for the fields the entity has, through the entity's hooks (an
 * update: beforeChange may change or refuse it, afterChange sees it), and its `<slug>:updated` webhook
 * event is recorded in the same transaction. With `teamId` the record must be that team's; a
 * soft-deleted record is gone. Returns the fields set, or null when there is no such record.
 * `transaction` runs the work in one transaction: system access, or RLS as an action's creator.
 */
export async function publishRecord(queue: QueueScope, transaction: TransactionRunner, d: EntityDefinition, id: string, teamId: string | null, at: Date, publisher: Publisher): Promise<string[] | null> {
  if (!isUuid(id)) return null;
  const where = { id, ...(teamId ? { teamId } : {}), ...(d.softDelete ? { deletedAt: null } : {}) };
  const mails: (() => Promise<void>)[] = [];
  const set = await transaction(async (tx, as) => {
    const model = delegateOf(tx, d.name);
    const row = await model.findFirst({ where });
    if (!row) return null;
    const fields = publishableFields(d);
    const stamp = d.fields.find((f) => f.name === 'publishedAt')?.type === 'date' ? at.toISOString().slice(0, 10) : at.toISOString();
    const data: Values = { ...(fields.status ? { status: 'published' } : {}), ...(fields.publishedAt ? { publishedAt: stamp } : {}) };
    if (!Object.keys(data).length) return [];
    const caller = { userId: publisher.userId, teamId: row.teamId as string, role: publisher.roleIn(row.teamId as string) };
    const scope = { db: { tx: async () => tx, afterCommit: (work: () => Promise<void>) => void mails.push(work) }, now: queue.now, system: queue.system, config: queue.config, services: queue.services, mail: publisher.mail };
    // Other records, for the hooks: as the creator, in the record's team and this transaction; the platform has no caller to act as.
    const entities = as ? entitiesAs({ ...as, actor: { ...(as.actor as AuthenticatedActor), activeTeamId: row.teamId as string } }) : unavailableInPublish;
    const context = lazyContext(() => ({ scope, caller, entities }));
    const previous = written(d, row, null);
    const { values } = await validatedWrite(d, 'update', data, previous, context);
    const record = written(d, await model.update({ where: { id }, data: values }), null);
    await afterChange(d, 'update', record, previous, context);
    await recordChange(queue, tx, { d, child: null, operation: 'update', verb: 'updated', record, previous, author: { userId: publisher.userId, apiKeyId: null, face: 'action' } });
    return Object.keys(data);
  });
  for (const send of mails) await send();
  return set;
}

/** A publish the platform runs (no creator, or a superadmin's across teams) has no caller to act as: a hook there reads and writes other records through context.system. */
const notInPublish = () => Promise.reject(new Error('context.entities is not available in a publish the platform runs (content:publish scheduled in process, or by a superadmin across teams): use context.system'));
const unavailableInPublish: HookEntities = { create: notInPublish, update: notInPublish, remove: notInPublish, read: notInPublish };
