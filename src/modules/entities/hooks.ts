// Runs an entity definition's lifecycle hooks (config/entity-hooks.ts) on the write path every face
// shares (service.ts, children.ts, publish-action.ts): beforeValidate → validation → beforeChange →
// validated again → the row → afterChange, and beforeDelete/afterDelete, all in the write's
// transaction; afterRead fills virtual fields wherever a record is shown. Hooks see records as the API
// shows them (dates as strings), so what a hook returns is validated as a request's body is.
import type { HookCaller, HookContext, HookEntities, StoredHooks, WriteOperation } from '../../config/entity-hooks.js';
import type { FieldDefinition } from '../../config/entity-definition.js';
import { AppError } from '../../shared/errors.js';
import { appRole } from '../../db/request-db.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { scheduleAction, type QueueScope } from '../scheduled-actions/service.js';
import { shown, validateRecord, type Validated, type Values } from './validate.js';

/** What hooks are run for: an entity or a child definition, with its fields. */
export interface Hooked {
  fields: FieldDefinition[];
  links?: FieldDefinition[];
  hooks?: StoredHooks | undefined;
  metas?: boolean;
}

/** Everything a context needs from its write: the scope's database, queue and mail, and records through the service. */
export interface ContextSource {
  scope: Pick<RequestScope, 'now' | 'system' | 'config' | 'services'> & { db: Pick<RequestScope['db'], 'tx' | 'afterCommit'>; mail: Pick<RequestScope['mail'], 'send'> };
  caller: HookCaller;
  entities: HookEntities;
}

/** The context a hook receives: built once per write, when a hook runs. */
export function hookContext({ scope, caller, entities }: ContextSource): HookContext {
  const queue: QueueScope = { system: scope.system, now: scope.now, config: scope.config, services: scope.services };
  return {
    caller,
    now: scope.now,
    entities,
    schedule: async (actionType, payload, options = {}) => scheduleAction(queue, actionType, payload as never, { ...options, teamId: caller.teamId, tx: await scope.db.tx() }),
    sendMail: (mail) =>
      scope.db.afterCommit(async () => {
        await scope.mail.send(scope.system(`hook mail: ${mail.subject.slice(0, 60)}`).prisma, mail);
      }),
    system: async (purpose, work) => {
      if (!purpose.trim()) throw new Error('context.system needs a purpose');
      const tx = await scope.db.tx();
      // The session's own role (RLS does not apply to it) for the work, in the same transaction; then the caller's again.
      await tx.$executeRaw`SELECT set_config('role', 'none', true)`;
      try {
        return await work(tx);
      } finally {
        await tx.$executeRaw`SELECT set_config('role', ${appRole}, true)`;
      }
    },
    invalid: (details, message = 'Validation failed') => new AppError('VALIDATION_FAILED', message, details),
    conflict: (message) => new AppError('CONFLICT', message),
  };
}

/** A context made on first use: a write whose definition has no hooks builds none. */
export function lazyContext(source: () => ContextSource): () => HookContext {
  let made: HookContext | undefined;
  return () => (made ??= hookContext(source()));
}

/** Stored values as a hook sees them: dates and instants as the API writes them. */
function asShown(fields: readonly FieldDefinition[], values: Values): Values {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, shown(fields.find((f) => f.name === name), value)]));
}

const isObject = (v: unknown): v is Values => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A create's or update's input, validated, after the definition's beforeValidate and beforeChange
 * (whose data is validated again: a hook cannot store what a request could not). `previous` is the
 * record as it was (an update), as the API shows it.
 */
export async function validatedWrite(h: Hooked, operation: WriteOperation, input: unknown, previous: Values | null, context: () => HookContext): Promise<Validated> {
  const fields = [...h.fields, ...(h.links ?? [])];
  const options = { partial: operation === 'update', metas: h.metas ?? false };
  let body = input;
  if (h.hooks?.beforeValidate && isObject(body)) {
    body = ((await h.hooks.beforeValidate({ operation, data: { ...body }, previous, context: context() })) as Values | undefined) ?? body;
  }
  const validated = validateRecord(fields, body, options);
  if (!h.hooks?.beforeChange) return validated;
  const data = asShown(fields, validated.values);
  const changed = await h.hooks.beforeChange({ operation, data, previous, context: context() });
  if (!changed) return validated;
  if (!isObject(changed)) throw new Error('beforeChange must return the data to store (an object) or nothing');
  const again = validateRecord(fields, changed, { partial: options.partial, metas: false });
  return validated.metas === undefined ? again : { ...again, metas: validated.metas };
}

/** Runs afterChange with the record as stored and as it was (null on create). */
export async function afterChange(h: Hooked, operation: WriteOperation, record: Values, previous: Values | null, context: () => HookContext): Promise<void> {
  await h.hooks?.afterChange?.({ operation, record, previous, context: context() });
}

/** Runs beforeDelete (which may refuse by throwing) with the record as it is. */
export async function beforeDelete(h: Hooked, record: Values, context: () => HookContext): Promise<void> {
  await h.hooks?.beforeDelete?.({ record, context: context() });
}

/** Runs afterDelete with the record as it was. */
export async function afterDelete(h: Hooked, record: Values, context: () => HookContext): Promise<void> {
  await h.hooks?.afterDelete?.({ record, context: context() });
}

/** A record with its virtual fields (afterRead), each the definition's; none without the hook. */
export function withVirtuals(h: Pick<Hooked, 'hooks'> & { virtuals?: FieldDefinition[] }, record: Values): Values {
  const read = h.hooks?.afterRead;
  if (!read || !h.virtuals?.length) return record;
  const computed = read({ record }) as Values;
  for (const f of h.virtuals) record[f.name] = computed?.[f.name] ?? null;
  return record;
}
