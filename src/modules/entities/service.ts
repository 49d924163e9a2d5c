// Entity records: list (the full query language) and read, for any definition, and what writes share
// (the caller's rules, records as shown, their events); the writes themselves: writes.ts; children:
// children.ts; publishing for the scheduler: publish-action.ts. Scopes are checked by the GraphQL fields (authScopes from the definition's permissions,
// schema.ts), never here; here: the caller's active team (records never cross teams), the creator
// alone unless the entity is shared, viewers read only, anonymous callers read public entities'
// public rows. RLS enforces the same.
// Every create, update and delete (soft deletes and children's changes included) records its webhook
// event (`<slug>:created|updated|deleted`) in the same transaction as the change.
import { type ChildDefinition, type EntityDefinition, type FieldDefinition, type Operation } from '../../config/entity-definition.js';
import { relationTarget } from '../../config/entity-relations.js';
import type { Tx } from '../../db/request-db.js';
import { AppError, forbidden, unauthenticated } from '../../shared/errors.js';
import { paginationOf, type Pagination } from '../../shared/pagination.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { isUuid } from '../../shared/validation.js';
import { assertCanWriteTeamData } from '../teams/service.js';
import { childField, columnName, linksField } from './prisma-model.js';
import { checkListQuery, invalidQuery, type ListQuery, type ParsedQuery, type View } from './query.js';
import { after, decodeCursor, encodeCursor, fingerprint, reversed, type Cursor, type Sort } from './cursor.js';
import { delegateOf, escapeLike, isForeignKeyViolation, isUniqueViolation, type Delegate, type Row } from './repository.js';
import { atVersion } from './totals.js';
import { withVirtuals } from './hooks.js';
import { shown, type Values } from './validate.js';
import { baseWhere, relationCheckInclude, withUnseenRelationsCleared, type Caller } from './visibility.js';

export { baseWhere, type Caller };

function requireOperation(d: EntityDefinition, op: Operation): void {
  if (!d.operations[op]) throw new AppError('METHOD_NOT_ALLOWED', `${op} is disabled for ${d.slug}`);
}

/** Who is asking, checked against the definition for `op` (the field already checked the scopes). */
export function callerFor(scope: RequestScope, d: EntityDefinition, op: Operation): Caller {
  requireOperation(d, op);
  const { actor } = scope;
  if (actor.kind !== 'user') {
    if (d.access.public && (op === 'list' || op === 'read')) return { kind: 'public' };
    throw unauthenticated();
  }
  const teamId = actor.activeTeamId;
  const membership = actor.teams.find((t) => t.teamId === teamId);
  if (!teamId || !membership) throw forbidden('No active team');
  if (op !== 'list' && op !== 'read') assertCanWriteTeamData(membership.role);
  return { kind: 'user', actor, teamId, role: membership.role };
}

export function filterWhere(d: EntityDefinition, q: ParsedQuery): Values[] {
  const where: Values[] = [];
  if (q.ids) where.push({ id: { in: q.ids } });
  if (q.search) where.push({ OR: d.fields.filter((f) => f.searchable).map((f) => ({ [f.name]: { contains: escapeLike(q.search!), mode: 'insensitive' } })) });
  if (q.range) where.push({ [q.range.field]: { ...(q.range.from ? { gte: q.range.from } : {}), ...(q.range.until ? { lt: q.range.until } : {}) } });
  for (const { field, value } of q.equals) where.push({ [field.name]: field.type === 'multiselect' ? { has: value } : value });
  for (const { field, min, max } of q.bounds) where.push({ [field.name]: { ...(min !== undefined ? { gte: min } : {}), ...(max !== undefined ? { lte: max } : {}) } });
  if (q.where) where.push(q.where);
  return where;
}


/** A row as the caller receives it (`pick`: only those fields). */
export function present(d: { fields: FieldDefinition[]; links?: FieldDefinition[]; virtuals?: FieldDefinition[]; hooks?: EntityDefinition['hooks'] }, row: Row, caller: Pick<Caller, 'kind'>, pick: string[] | null): Values {
  const out: Values = { id: row.id };
  // A multiselect is always a list (none chosen: empty), as its GraphQL field promises.
  for (const f of d.fields) out[f.name] = f.type === 'multiselect' || f.many ? (row[f.name] ?? []) : shown(f, row[f.name] ?? null);
  for (const f of d.links ?? []) out[f.name] = ((row[linksField(f)] as { relatedId: string }[] | undefined) ?? []).map((l) => l.relatedId);
  out.createdAt = shown(undefined, row.createdAt);
  out.updatedAt = shown(undefined, row.updatedAt);
  if (caller.kind === 'user') {
    out.userId = row.userId;
    out.teamId = row.teamId;
  }
  if ('deletedAt' in row) out.deletedAt = shown(undefined, row.deletedAt);
  if ('parentId' in row) out.parentId = row.parentId;
  withVirtuals(d, out);
  if (!pick) return out;
  return Object.fromEntries(pick.map((name) => [name, out[name]]));
}

export interface ListResult {
  /** Records, or in distinct mode the `{value, label, entityType}` of each distinct value. */
  data: Values[];
  distinct: boolean;
  /** `page` is null in cursor mode: a page read from a cursor starts at no page boundary. */
  pagination: Omit<Pagination, 'page'> & { page: number | null };
  /** Each record's cursor (made when asked for), and whether records lie beyond either end of the page. */
  cursors: { of: (index: number) => string; hasNext: boolean; hasPrevious: boolean };
}

/** LIST with a typed query (the GraphQL field's arguments); `view` says what each record carries. */
export async function list(scope: RequestScope, d: EntityDefinition, query: ListQuery, view: View = { fields: null, metas: d.metas, children: [] }): Promise<ListResult> {
  const caller = callerFor(scope, d, 'list');
  return listRows(scope, d, caller, checkListQuery(d, query, view));
}

/** The records of `among` (default: those the caller sees, baseWhere; the trash's deleted ones, trash.ts) that `q` selects. */
export async function listRows(scope: RequestScope, d: EntityDefinition, caller: Caller, q: ParsedQuery, among: Values[] = baseWhere(d, caller)): Promise<ListResult> {
  const conditions = filterWhere(d, q);
  const where = { AND: [...among, ...conditions] };
  const tx = await scope.db.tx();
  const model = delegateOf(tx, d.name);
  if (q.distinct) {
    const field = d.fields.find((f) => f.name === q.fields![0])!;
    const rows = await model.findMany({ where, distinct: [field.name], select: { [field.name]: true }, orderBy: { [field.name]: 'asc' }, take: 1000 });
    const values = field.type === 'multiselect' ? [...new Set(rows.flatMap((r) => r[field.name] as string[]))].sort() : rows.map((r) => r[field.name]).filter((v) => v !== null);
    const data = values.map((v) => ({ value: shown(field, v), label: String(shown(field, v)), entityType: d.slug }));
    const page = data.slice((q.page - 1) * q.limit, q.page * q.limit);
    const pagination = paginationOf(q.page, q.limit, data.length);
    return { data: page, distinct: true, pagination, cursors: { of: () => '', hasNext: q.page < pagination.totalPages, hasPrevious: q.page > 1 } };
  }
  const sort: Sort = { field: sortField(d, q.sortBy), order: q.sortOrder };
  const total = () => countMatching(tx, d, caller, q, where);
  if (q.keyset) return keysetRows(d, caller, q, { model, where, sort, print: fingerprint(conditions), total });
  const rows = await model.findMany({ where, orderBy: orderOf(sort), skip: (q.page - 1) * q.limit, take: q.limit, ...includeOf(d, caller, q.children) });
  const pagination = paginationOf(q.page, q.limit, await total());
  // A page read by number makes cursors only when they are asked for (REST's nextCursor, GraphQL's edges).
  let print: string | undefined;
  const cursors = { of: (i: number) => encodeCursor(rows[i]!, sort, (print ??= fingerprint(conditions))), hasNext: q.page < pagination.totalPages, hasPrevious: q.page > 1 };
  return { data: rows.map((row) => decorate(d, row, caller, q)), distinct: false, pagination, cursors };
}

/**
 * How many records match `where` (a query's complete conditions): remembered per version of the
 * team's rows in this table (totals.ts), so LIST's total and a count without groups share one count.
 * A where that reads other tables (`q.across`: through a relation or a reverse side) is always counted:
 * those tables change without this table's version (versionedTeam).
 */
export function countMatching(tx: Tx, d: EntityDefinition, caller: Caller, q: Pick<ParsedQuery, 'across'>, where: object): Promise<number> {
  return atVersion(tx, d.tableName, versionedTeam(caller, q), where, () => delegateOf(tx, d.name).count({ where }));
}

/** The team whose record version an answer of `q` by `caller` can be remembered at (totals.ts); null: none, compute each time. */
export function versionedTeam(caller: Caller, q: Pick<ParsedQuery, 'across'>): string | null {
  return caller.kind === 'user' && !q.across ? caller.teamId : null;
}

/** The field LIST sorts by (the stamps are required datetimes). */
export function sortField(d: EntityDefinition, name: string): Sort['field'] {
  return d.fields.find((f) => f.name === name) ?? { name, type: 'datetime', required: true };
}

export const orderOf = (sort: Sort) => [{ [sort.field.name]: sort.order }, { id: sort.order }];

interface KeysetQuery {
  model: Delegate;
  where: { AND: Values[] };
  sort: Sort;
  print: string;
  total: () => Promise<number>;
}

/**
 * A page in cursor mode: the records after the cursor in the list's order (before it, going back),
 * read from the cursor's place through the order's index; one more record tells whether the page has
 * a successor that way. The other side is the cursor's: records lie there when a cursor is given (it
 * was made from one), as Relay allows, without a second query — page 1,000 costs what page 1 does.
 */
async function keysetRows(d: EntityDefinition, caller: Caller, q: ParsedQuery, k: KeysetQuery): Promise<ListResult> {
  const { backward, cursor: given } = q.keyset!;
  const cursor = given === null ? null : decodeCursor(given, k.sort, k.print);
  if (given !== null && !cursor) {
    throw invalidQuery([{ path: backward ? 'before' : 'after', message: 'is not a cursor of this list (made for its sort and filters)' }]);
  }
  const walk = backward ? reversed(k.sort) : k.sort;
  const from = (c: Cursor | null, sort: Sort) => ({ AND: [...k.where.AND, ...(c ? [after(sort, c)] : [])] });
  const read = await k.model.findMany({ where: from(cursor, walk), orderBy: orderOf(walk), take: q.limit + 1, ...includeOf(d, caller, q.children) });
  const more = read.length > q.limit;
  const rows = read.slice(0, q.limit);
  if (backward) rows.reverse();
  const pagination = { ...paginationOf(1, q.limit, await k.total()), page: null };
  const cursors = { of: (i: number) => encodeCursor(rows[i]!, k.sort, k.print), hasNext: backward ? cursor !== null : more, hasPrevious: backward ? more : cursor !== null };
  return { data: rows.map((row) => decorate(d, row, caller, q)), distinct: false, pagination, cursors };
}

/** At most this many ids of a many-to-many relation in a record (`taskIds`): what one write may set. */
const linkIdsShown = 100;

/** A link's ids the caller can see: its join rows to related records the caller can read (oldest first). */
const linkIdsInclude = (f: FieldDefinition, caller: Caller) => ({ where: { related: { is: { AND: baseWhere(relationTarget(f), caller) } } }, select: { relatedId: true }, orderBy: [{ createdAt: 'asc' }, { relatedId: 'asc' }], take: linkIdsShown });

/**
 * Prisma's `include` for the requested children (oldest first) and what a record carries (carriedOf),
 * or nothing when there is none. Children come by one more statement each, as measured
 * (customers-child: cheaper than a join that builds every child list as JSON); what a record carries
 * alone (a few ids each) is joined into the records' own statement: a page of 20 projects with their
 * task ids and milestone check cost 4.5–4.7 ms of CPU per request with ?expand=customer, against
 * 5.5–5.9 ms by two more statements. A reverse side is joined too (`referring`).
 */
export function includeOf(d: EntityDefinition, caller: Caller, slugs: string[]): { include?: object; relationLoadStrategy?: RelationLoadStrategy } {
  const carried = carriedOf(d, caller).include;
  if (!slugs.length && !carried) return {};
  const children = slugs.map((slug) => [childField(d.children.find((c) => c.slug === slug)!), { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }]);
  return { include: { ...Object.fromEntries(children), ...carried }, relationLoadStrategy: slugs.length ? 'query' : 'join' };
}

type RelationLoadStrategy = 'query' | 'join';

/**
 * `include` of what a record carries beyond its columns, also for records read beside others
 * (related, referring): the ids of its many-to-many relations the caller can see, and the records its
 * relations name where the caller may not see them all (visibility.ts).
 */
export function carriedOf(d: EntityDefinition, caller: Caller): { include?: object } {
  const include = { ...Object.fromEntries(d.links.map((f) => [linksField(f), linkIdsInclude(f, caller)])), ...relationCheckInclude(d, caller) };
  return Object.keys(include).length ? { include } : {};
}

export function decorate(d: EntityDefinition, row: Row, caller: Caller, q: View): Values {
  const out = present(d, withUnseenRelationsCleared(d, row, caller), caller, q.fields);
  if (q.metas) out.metas = row.metas ?? {};
  for (const slug of q.children) {
    const child = d.children.find((c) => c.slug === slug)!;
    out[slug] = ((row[childField(child)] as Row[] | undefined) ?? []).map((r) => present(child, r, caller, null));
  }
  return out;
}

/** One record the caller can see, or 404 `<Entity> not found`. */
export async function visible(scope: RequestScope, d: EntityDefinition, caller: Caller, id: string, extra: { include?: object; relationLoadStrategy?: RelationLoadStrategy } = {}): Promise<Row> {
  const notFound = () => new AppError('NOT_FOUND', `${d.name} not found`);
  if (!isUuid(id)) throw notFound();
  const row = await delegateOf(await scope.db.tx(), d.name).findFirst({ where: { AND: [{ id }, ...baseWhere(d, caller)] }, ...extra });
  if (!row) throw notFound();
  return row;
}

/**
 * The related records of a relation (`Task.customer`, `expand=customer`) for every id a page names,
 * in one query: each as READ answers it, or null for an id the caller cannot read (another team's,
 * another user's private record, soft-deleted). Scopes are the relation field's (the target's read).
 */
export async function related(scope: RequestScope, d: EntityDefinition, ids: readonly string[]): Promise<(Values | null)[]> {
  const caller = callerFor(scope, d, 'read');
  const rows = await delegateOf(await scope.db.tx(), d.name).findMany({ where: { AND: [{ id: { in: [...new Set(ids)] } }, ...baseWhere(d, caller)] }, ...includeOf(d, caller, []) });
  const byId = new Map(rows.map((row) => [row.id, decorate(d, row, caller, { fields: null, metas: d.metas, children: [] })]));
  return ids.map((id) => byId.get(id) ?? null);
}

/**
 * The records of `ids` a LIST with `q`'s filters would show the caller, by id (those it would not
 * list are absent: not the caller's to see, or filtered out): changes delivered to a subscriber
 * (realtime), each with its stored row, on which other subscribers' filters are decided in memory.
 */
export async function listedMany(scope: RequestScope, d: EntityDefinition, ids: readonly string[], q: ParsedQuery): Promise<Map<string, { record: Values; row: Row }>> {
  const caller = callerFor(scope, d, 'list');
  const where = { AND: [{ id: { in: [...ids] } }, ...baseWhere(d, caller), ...filterWhere(d, q)] };
  const rows = await delegateOf(await scope.db.tx(), d.name).findMany({ where, ...includeOf(d, caller, q.children) });
  return new Map(rows.map((row) => [row.id as string, { record: decorate(d, row, caller, q), row }]));
}

/** READ; `view` says what the record carries (children by slug, loaded with it). */
export async function read(scope: RequestScope, d: EntityDefinition, id: string, view: View = { fields: null, metas: d.metas, children: [] }): Promise<Values> {
  const caller = callerFor(scope, d, 'read');
  return decorate(d, await visible(scope, d, caller, id, includeOf(d, caller, view.children)), caller, view);
}

/** A final delete refused because records that keep this one (onDelete: restrict) still point at it, as 409 CONFLICT; anything else thrown on. */
export function stillKept(d: EntityDefinition): (error: unknown) => never {
  return (error) => {
    if (isForeignKeyViolation(error)) throw new AppError('CONFLICT', `${d.name} is still related to records that keep it (onDelete: restrict): change or delete those first`);
    throw error;
  };
}

/** The unique field of `owner` whose value a unique violation refused (PostgreSQL names its constraint's columns), if one is. */
export function takenField(owner: EntityDefinition | ChildDefinition, error: unknown): FieldDefinition | undefined {
  const text = `${String((error as Error).message)} ${JSON.stringify((error as { meta?: unknown }).meta ?? {})}`;
  return owner.fields.find((f) => f.unique && text.includes(columnName(f.name)));
}

/** A unique violation of `owner`'s as 409 CONFLICT naming the field taken; anything else thrown on. */
export function conflict(owner: EntityDefinition | ChildDefinition): (error: unknown) => never {
  return (error) => {
    if (!isUniqueViolation(error)) throw error;
    const field = takenField(owner, error);
    throw new AppError('CONFLICT', 'A record with the same unique value already exists in this team', field ? { [field.name]: 'is taken by another record of this team' } : undefined);
  };
}

/**
 * A record as its write answers it: every field (a relation the caller may not see null, as reads
 * show it), and its metas when the entity has them; `caller` null: as the platform sees it (a
 * scheduled publish's event), every relation shown.
 */
export function written(d: EntityDefinition, row: Row, caller: Caller | null): Values {
  const shownRow = caller ? withUnseenRelationsCleared(d, row, caller) : row;
  return { ...present(d, shownRow, caller ?? { kind: 'user' }, null), ...(d.metas ? { metas: row.metas } : {}) };
}

/**
 * Records of a team, for plan usage (`tasks`, `customers`): every member's, not only the caller's. The
 * count the table's statement triggers keep on the team's record_versions row (record_counts
 * migration): one row read, whatever the team holds; after a create, with that create in.
 */
export async function countForTeam(tx: Tx, d: EntityDefinition, teamId: string): Promise<number> {
  const [row] = await tx.$queryRaw<[{ n: number }]>`SELECT app_team_record_count(${d.tableName}, ${teamId}::uuid) AS n`;
  return row.n;
}
