// GraphQL face of record history (history.ts): per entity that keeps it, `Task.versions(first, after)`
// (newest first) and `Task.version(number)`, each a `TaskVersion` holding the record as it was (a
// `Task`), who changed it, when, through which face and which fields; per child the versions of one
// (`Customer.noteVersions(id)`, `Customer.noteVersion(id, number)`); and `restoreTaskVersion(id,
// version)`, which writes that version's values back as a new change (the update's rule and hooks).
import type { ChildDefinition, EntityDefinition } from '../../config/entity-definition.js';
import type { Builder } from '../../graphql/builder.js';
import { childVersionField, graphqlNames } from './graphql-names.js';
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

type Ref = ReturnType<Builder['objectRef']>;

/** The version and version-page types of `owner` (an entity or a child), whose record type is `record`. */
function versionTypes(b: Builder, owner: EntityDefinition | ChildDefinition, record: Ref, enums: { operation: Enum; face: Enum }) {
  const version = b.objectRef<RecordVersion>(`${owner.name}Version`).implement({
    description: `A version of a ${owner.name}: the record as it was after a change (before it, for a final delete).`,
    fields: (t) => ({
      version: t.exposeInt('version', { description: 'The version’s number: 1 for the record’s creation, then one more per change.' }),
      operation: t.field({ type: enums.operation as never, resolve: (v) => v.operation as never }),
      changedFields: t.exposeStringList('changedFields', { description: 'The fields the change set (on a creation: those given a value).' }),
      userId: t.exposeID('userId', { nullable: true, description: 'Who made the change (null: the platform’s own work).' }),
      apiKeyId: t.exposeID('apiKeyId', { nullable: true, description: 'The API key the change was made with, if any.' }),
      face: t.field({ type: enums.face as never, resolve: (v) => v.face as never }),
      createdAt: t.field({ type: 'DateTime', resolve: (v) => v.createdAt }),
      record: t.field({ type: record as never, description: 'The record’s fields as they were (relations and children resolve as they are now).', resolve: (v) => v.record as never }),
    }),
  });
  const page = b.objectRef<VersionPage>(`${owner.name}VersionPage`).implement({
    fields: (t) => ({
      items: t.field({ type: [version], resolve: (p) => p.items }),
      hasMore: t.exposeBoolean('hasMore'),
      endCursor: t.exposeString('endCursor', { nullable: true, description: 'Pass as `after` for the next page.' }),
    }),
  });
  return { version, page };
}

/**
 * Registers `d`'s version types, its record's `versions` and `version` fields, per child
 * `<child>Versions(id)` and `<child>Version(id, number)` on the record, and `restore<Name>Version`.
 */
export function registerHistory(b: Builder, d: EntityDefinition, types: EntityTypes, enums: { operation: Enum; face: Enum }): void {
  if (d.history.keep === false || !d.operations.read) return;
  const own = versionTypes(b, d, types.record, enums);
  const children = types.children.map((c) => ({ child: c.child, ...versionTypes(b, c.child, c.record, enums) }));
  const read = operationRule(d, 'read') as never;
  const record = types.record as unknown as ReturnType<typeof b.objectRef<{ id: unknown }>>;
  b.objectFields(record, (t) => {
    const first = () => t.arg.int({ description: '1 to 100 (default 20).' });
    const after = () => t.arg.string({ description: 'A page’s endCursor.' });
    return {
      versions: t.field({
        type: own.page,
        authScopes: read,
        description: 'The record’s versions, newest first (only its team’s members who can read it now see them).',
        args: { first: first(), after: after() },
        resolve: (r, args, ctx) => versionsOf(ctx, d, String(r.id), args),
      }),
      version: t.field({
        type: own.version,
        authScopes: read,
        args: { number: t.arg.int({ required: true }) },
        resolve: (r, args, ctx) => versionOf(ctx, d, String(r.id), args.number),
      }),
      ...Object.fromEntries(
        children.flatMap(({ child, page, version }) => [
          [`${childVersionField(child)}s`, t.field({
            type: page,
            authScopes: read,
            description: `The versions of one of its ${child.slug} (\`id\`), newest first, while it is one.`,
            args: { id: t.arg.id({ required: true }), first: first(), after: after() },
            resolve: (r, args, ctx) => versionsOf(ctx, d, String(r.id), args, { child, childId: String(args.id) }),
          })],
          [childVersionField(child), t.field({
            type: version,
            authScopes: read,
            args: { id: t.arg.id({ required: true }), number: t.arg.int({ required: true }) },
            resolve: (r, args, ctx) => versionOf(ctx, d, String(r.id), args.number, { child, childId: String(args.id) }),
          })],
        ]),
      ),
    };
  });
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
