// GraphQL face of record history (history.ts): per entity that keeps it, `Task.versions(first, after)`
// (newest first) and `Task.version(number)`, each a `TaskVersion` holding the record as it was (a
// `Task`), who changed it, when, through which face and which fields; and `restoreTaskVersion(id,
// version)`, which writes that version's values back as a new change (the update's rule and hooks).
import type { EntityDefinition } from '../../config/entity-definition.js';
import type { Builder } from '../../graphql/builder.js';
import { graphqlNames } from './graphql-names.js';
import type { EntityTypes } from './graphql-refs.js';
import { versionOf, versionsOf, type RecordVersion, type VersionPage } from './history.js';
import { operationRule } from './rules.js';
import { restoreVersion } from './writes.js';

type Enum = ReturnType<Builder['enumType']>;

/** The enums every entity's versions share, registered once per builder. */
export function historyEnums(b: Builder): { operation: Enum; face: Enum } {
  return {
    operation: b.enumType('VersionOperation', { description: 'The change a version records.', values: { CREATE: { value: 'create' }, UPDATE: { value: 'update' }, DELETE: { value: 'delete' }, RESTORE: { value: 'restore' } } as const }),
    face: b.enumType('ChangeFace', { description: 'Through which face a change came.', values: { REST: { value: 'rest' }, GRAPHQL: { value: 'graphql' }, CLI: { value: 'cli' }, ACTION: { value: 'action' } } as const }),
  };
}

/** Registers `d`'s version types, its record's `versions` and `version` fields, and `restore<Name>Version`. */
export function registerHistory(b: Builder, d: EntityDefinition, types: EntityTypes, enums: { operation: Enum; face: Enum }): void {
  if (d.history.keep === false || !d.operations.read) return;
  const version = b.objectRef<RecordVersion>(`${d.name}Version`).implement({
    description: `A version of a ${d.name}: the record as it was after a change (before it, for a final delete).`,
    fields: (t) => ({
      version: t.exposeInt('version', { description: 'The version’s number: 1 for the record’s creation, then one more per change.' }),
      operation: t.field({ type: enums.operation as never, resolve: (v) => v.operation as never }),
      changedFields: t.exposeStringList('changedFields', { description: 'The fields the change set (on a creation: those given a value).' }),
      userId: t.exposeID('userId', { nullable: true, description: 'Who made the change (null: the platform’s own work).' }),
      apiKeyId: t.exposeID('apiKeyId', { nullable: true, description: 'The API key the change was made with, if any.' }),
      face: t.field({ type: enums.face as never, resolve: (v) => v.face as never }),
      createdAt: t.field({ type: 'DateTime', resolve: (v) => v.createdAt }),
      record: t.field({ type: types.record as never, description: 'The record’s fields as they were (relations and children resolve as they are now).', resolve: (v) => v.record as never }),
    }),
  });
  const page = b.objectRef<VersionPage>(`${d.name}VersionPage`).implement({
    fields: (t) => ({
      items: t.field({ type: [version], resolve: (p) => p.items }),
      hasMore: t.exposeBoolean('hasMore'),
      endCursor: t.exposeString('endCursor', { nullable: true, description: 'Pass as `after` for the next page.' }),
    }),
  });
  const read = operationRule(d, 'read') as never;
  const record = types.record as unknown as ReturnType<typeof b.objectRef<{ id: unknown }>>;
  b.objectFields(record, (t) => ({
    versions: t.field({
      type: page,
      authScopes: read,
      description: 'The record’s versions, newest first (only its team’s members who can read it now see them).',
      args: { first: t.arg.int({ description: '1 to 100 (default 20).' }), after: t.arg.string({ description: 'A page’s endCursor.' }) },
      resolve: (r, args, ctx) => versionsOf(ctx, d, String(r.id), args),
    }),
    version: t.field({
      type: version,
      authScopes: read,
      args: { number: t.arg.int({ required: true }) },
      resolve: (r, args, ctx) => versionOf(ctx, d, String(r.id), args.number),
    }),
  }));
  if (!d.operations.update) return;
  b.mutationField(graphqlNames(d).restoreVersion, (t) =>
    t.field({
      type: types.record as never,
      authScopes: operationRule(d, 'update') as never,
      description: `Writes a version’s field values back onto the ${d.name}, as a new change (its rules and hooks apply; a value taken since by another record is 409).`,
      args: { id: t.arg.id({ required: true }), version: t.arg.int({ required: true }) },
      resolve: (_root, args, ctx) => restoreVersion(ctx, d, String(args.id), args.version) as never,
    }),
  );
}
