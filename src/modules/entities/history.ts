// Record history: a version of an entity record (or of a child record) for every create, update,
// delete and restore, kept by the write path (writes.ts, children.ts, trash.ts, publish-action.ts,
// through change.ts) in the change's own transaction, so a rolled-back change leaves none. A version
// holds the record as it was after the change (before it, for a final delete), who made it (user, API
// key, face), when, and the fields it changed. Versions are read by who can read the record now (its read rule and visibility
// first; RLS behind them shows a private record's versions to its creator alone), restored as a new
// change through the same write path, and pruned per definition (`history.keep`) by the history sweep.
import { daysOf, type ChildDefinition, type EntityDefinition } from '../../config/entity-definition.js';
import type { Statement, SystemDb } from '../../db/request-db.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { Face, RequestScope } from '../../auth/request-scope.js';
import { AppError, unauthenticated } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { delegateOf } from './repository.js';
import { callerFor, visible } from './service.js';
import type { Values } from './validate.js';

export type VersionOperation = 'create' | 'update' | 'delete' | 'restore';

/** Who made a change, as its version names them (null user: the platform's own work). */
export interface ChangeAuthor {
  userId: string | null;
  apiKeyId: string | null;
  face: Face;
}

/** One kept version of a record. */
export interface RecordVersion {
  version: number;
  operation: VersionOperation;
  changedFields: string[];
  userId: string | null;
  apiKeyId: string | null;
  face: Face;
  createdAt: Date;
  /** The record as it was after the change, in the form its reads answer. */
  record: Values;
}

/** The author of a change made in `scope`. */
export function authorOf(scope: Pick<RequestScope, 'actor' | 'face'>): ChangeAuthor {
  const { actor } = scope;
  return actor.kind === 'user' ? { userId: actor.userId, apiKeyId: actor.apiKeyId ?? null, face: scope.face } : { userId: null, apiKeyId: null, face: scope.face };
}

/** The key a record's versions are kept under: its entity's slug; a child's under its parent's (`customers/notes`). */
export const historyKey = (d: EntityDefinition, child?: ChildDefinition | null) => (child ? `${d.slug}/${child.slug}` : d.slug);

/** The values a version compares and a restore writes back: the stored fields, many-to-many ids and metas. */
function ownFields(owner: EntityDefinition | ChildDefinition): string[] {
  return [...owner.fields.map((f) => f.name), ...('links' in owner ? owner.links.map((f) => f.name) : []), ...('metas' in owner && owner.metas ? ['metas'] : [])];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields a change set: on a create those given a value, on an update or restore those now different. */
function changedFields(names: string[], operation: VersionOperation, before: Values | null, after: Values): string[] {
  if (operation === 'delete') return [];
  if (!before) return names.filter((name) => !same(after[name], null) && !same(after[name], []) && !same(after[name], {}));
  return names.filter((name) => !same(before[name], after[name]));
}

/**
 * The statement that keeps the version of a change (null when the entity keeps no history), run by
 * change.ts in the change's transaction. Its number follows the record's last one: changes of one
 * record are serialized by the row's lock, which the change's own statement took before this one runs.
 */
export function versionStatement(d: EntityDefinition, child: ChildDefinition | null, author: ChangeAuthor, operation: VersionOperation, record: Values, previous: Values | null): Statement | null {
  if (d.history.keep === false) return null;
  const key = historyKey(d, child);
  const changed = changedFields(ownFields(child ?? d), operation, operation === 'create' ? null : previous, record);
  // A private record's versions are its creator's alone, as the record is (children: their parent's creator, who made them).
  const owner = d.access.shared ? null : (record.userId as string);
  return Prisma.sql`INSERT INTO record_history (team_id, entity, record_id, version, operation, data, changed_fields, owner_id, actor_user_id, actor_key_id, face)
    SELECT ${record.teamId as string}::uuid, ${key}, ${record.id as string}::uuid, coalesce(max(version), 0) + 1, ${operation},
           ${JSON.stringify(record)}::jsonb, ${changed}::text[], ${owner}::uuid, ${author.userId}::uuid, ${author.apiKeyId}::uuid, ${author.face}
    FROM record_history WHERE entity = ${key} AND record_id = ${record.id as string}::uuid`;
}

type Stored = { version: number; operation: string; data: unknown; changedFields: string[]; actorUserId: string | null; actorKeyId: string | null; face: string; createdAt: Date };
const fromStored = (row: Stored): RecordVersion => ({
  version: row.version,
  operation: row.operation as VersionOperation,
  changedFields: row.changedFields,
  userId: row.actorUserId,
  apiKeyId: row.actorKeyId,
  face: row.face as Face,
  createdAt: row.createdAt,
  record: row.data as Values,
});
const storedSelect = { version: true, operation: true, data: true, changedFields: true, actorUserId: true, actorKeyId: true, face: true, createdAt: true } as const;

/** Whose versions are read: a record of the entity, or (`child` given) its child `childId`. */
export interface VersionsOf {
  child: ChildDefinition;
  childId: string;
}

/**
 * The key and record id the versions are kept under, if the caller may read the record now (404
 * otherwise; anonymous readers of a public entity see no history). A child is read through its
 * parent `id`, and must still be one of its children: a deleted record's versions are not shown.
 */
async function readable(scope: RequestScope, d: EntityDefinition, id: string, of: VersionsOf | null): Promise<{ key: string; recordId: string }> {
  const caller = callerFor(scope, d, 'read');
  if (caller.kind !== 'user') throw unauthenticated();
  await visible(scope, d, caller, id);
  if (!of) return { key: historyKey(d), recordId: id };
  const kept = isUuid(of.childId) && (await delegateOf(await scope.db.tx(), of.child.name).findFirst({ where: { id: of.childId, parentId: id }, select: { id: true } }));
  if (!kept) throw new AppError('NOT_FOUND', `${of.child.name} not found`);
  return { key: historyKey(d, of.child), recordId: of.childId };
}

export interface VersionPage {
  items: RecordVersion[];
  hasMore: boolean;
  /** The cursor of the page's last version: `after` for the next page. */
  endCursor: string | null;
}

/** A record's (or its child's) versions, newest first: `first` of them (1 to 100, default 20) after the cursor `after`. */
export async function versionsOf(scope: RequestScope, d: EntityDefinition, id: string, page: { first?: number | null; after?: string | null }, of: VersionsOf | null = null): Promise<VersionPage> {
  const first = page.first ?? 20;
  if (!Number.isInteger(first) || first < 1 || first > 100) throw new AppError('VALIDATION_FAILED', 'first must be 1 to 100', { first: 'must be 1 to 100' });
  const after = page.after == null ? null : Number(page.after);
  if (after !== null && !(Number.isInteger(after) && after > 0)) throw new AppError('VALIDATION_FAILED', 'after must be a cursor of this list', { after: 'must be a cursor of this list' });
  const { key, recordId } = await readable(scope, d, id, of);
  const rows = await (await scope.db.tx()).recordHistory.findMany({
    where: { entity: key, recordId, ...(after ? { version: { lt: after } } : {}) },
    orderBy: { version: 'desc' },
    take: first + 1,
    select: storedSelect,
  });
  const items = rows.slice(0, first).map(fromStored);
  return { items, hasMore: rows.length > first, endCursor: items.length ? String(items.at(-1)!.version) : null };
}

/** One version of a record (or of its child), or 404. */
export async function versionOf(scope: RequestScope, d: EntityDefinition, id: string, version: number, of: VersionsOf | null = null): Promise<RecordVersion> {
  const { key, recordId } = await readable(scope, d, id, of);
  const row = Number.isInteger(version) && version > 0 ? await (await scope.db.tx()).recordHistory.findFirst({ where: { entity: key, recordId, version }, select: storedSelect }) : null;
  if (!row) throw new AppError('NOT_FOUND', `${(of?.child ?? d).name} version not found`);
  return fromStored(row);
}

/** What restoring `version` writes: its stored fields and many-to-many ids (metas stay as they are). */
export function restoredValues(d: EntityDefinition, version: RecordVersion): Values {
  const names = [...d.fields.map((f) => f.name), ...d.links.map((f) => f.name)];
  return Object.fromEntries(names.filter((name) => name in version.record).map((name) => [name, version.record[name]]));
}

/**
 * Removes the versions past each definition's `history.keep` (older than its days, beyond its count
 * per record, or all of an entity that keeps none), as the system. Returns how many went.
 */
export async function sweepHistory(system: SystemDb, definitions: readonly EntityDefinition[], now: Date): Promise<number> {
  const prisma = system.prisma;
  let removed = 0;
  for (const d of definitions) {
    const keys = [historyKey(d), ...d.children.map((c) => historyKey(d, c))];
    const { keep } = d.history;
    if (keep === false) removed += (await prisma.recordHistory.deleteMany({ where: { entity: { in: keys } } })).count;
    else if (typeof keep === 'string') removed += (await prisma.recordHistory.deleteMany({ where: { entity: { in: keys }, createdAt: { lt: new Date(now.getTime() - daysOf(keep) * 86_400_000) } } })).count;
    else {
      removed += await prisma.$executeRaw`DELETE FROM record_history h USING (SELECT entity, record_id, max(version) AS last FROM record_history WHERE entity = ANY(${keys}::text[]) GROUP BY entity, record_id) l
        WHERE h.entity = l.entity AND h.record_id = l.record_id AND h.version <= l.last - ${keep}`;
    }
  }
  return removed;
}
