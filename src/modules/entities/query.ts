// The LIST query of one definition, checked into the plan the service runs: the typed `ListQuery`
// (the arguments of `tasks(…)` after GraphQL coerced them: enums, numbers and days are already of
// their type; REST's query string becomes the same arguments at its edge, list-params.ts) checked for
// what types cannot say (checkListQuery). Every name must be one the definition declares: nothing
// from the request ever reaches SQL as an identifier. Problems → 400 "Invalid query parameters" with
// every problem listed.
import type { EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import { AppError } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { isStorableTime } from './validate.js';
import { checkWhere } from './where.js';
import { isDecimalText } from '../../shared/decimal.js';

/** The arguments of an entity's LIST field (`tasks(…)`), as GraphQL coerced them. */
export interface ListQuery {
  page?: number | null;
  limit?: number | null;
  /** Cursor pagination (keyset, cursor.ts): `first` records after `after`, or `last` records before `before`. */
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  sortBy?: string | null;
  sortOrder?: 'asc' | 'desc' | null;
  search?: string | null;
  ids?: readonly (string | number)[] | null;
  /** Days, YYYY-MM-DD (the Date scalar). */
  from?: string | null;
  to?: string | null;
  dateField?: string | null;
  /** Field filters: `status`, `dueDate_min`…, values in the field's type (dates as YYYY-MM-DD, instants as Date). */
  filter?: Record<string, unknown> | null;
  /** Distinct mode: the values of this filterable field instead of records. */
  distinct?: string | null;
  /** Conditions with operators and AND/OR/NOT groups (where.ts), combined with the filters by AND. */
  where?: Record<string, unknown> | null;
}

/** What the service runs: the query checked against the definition. */
export interface ParsedQuery {
  page: number;
  limit: number;
  sortBy: string;
  sortOrder: 'asc' | 'desc';
  fields: string[] | null;
  distinct: boolean;
  ids: string[] | null;
  search: string | null;
  /** Inclusive day range on `dateField`: `from` 00:00 to the day after `to` 00:00 (exclusive). */
  range: { field: string; from: Date | null; until: Date | null } | null;
  equals: { field: FieldDefinition; value: unknown }[];
  bounds: { field: FieldDefinition; min: unknown; max: unknown }[];
  /** `where` as Prisma's where, or null. */
  where: Record<string, unknown> | null;
  /** Whether `where` reads other entities' tables (relations): its total then depends on them too. */
  across: boolean;
  metas: boolean;
  /** Child slugs to include. */
  children: string[];
  /** Cursor mode: which way from which cursor (null: from the start, or the end going back); null in page mode. */
  keyset: { backward: boolean; cursor: string | null } | null;
}

/** What a record answer carries beyond its fields: a pick of fields, metas, children (by slug). */
export type View = Pick<ParsedQuery, 'fields' | 'metas' | 'children'>;

const day = /^\d{4}-\d{2}-\d{2}$/;

type Problems = { path: string; message: string }[];

/** The 400 for query parameters a list (or a stream of its changes) does not take: each with its path and why (code `invalid`). */
export function invalidQuery(problems: Problems): AppError {
  return new AppError('VALIDATION_ERROR', 'Invalid query parameters', { errors: problems.map((p) => ({ ...p, code: 'invalid' })) });
}

function refuse(problems: Problems): void {
  if (problems.length) throw invalidQuery(problems);
}

function parseDay(value: string, name: string, problems: Problems): Date | null {
  const time = day.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (!isStorableTime(time)) {
    problems.push({ path: name, message: 'must be a date (YYYY-MM-DD, years 0001 to 9999)' });
    return null;
  }
  return new Date(time);
}

/**
 * A filter value as GraphQL typed it (numbers, booleans, stored enum strings, days as YYYY-MM-DD,
 * instants as Date), checked for what its type cannot say: a storable day or instant, a bounded text.
 */
function filterValue(field: FieldDefinition, value: unknown, name: string, problems: Problems): unknown {
  const bad = (message: string) => (problems.push({ path: name, message }), undefined);
  switch (field.type) {
    case 'date':
      return parseDay(String(value), name, problems) ?? undefined;
    case 'datetime':
      return value instanceof Date && isStorableTime(value.getTime()) ? value : bad('must be an ISO 8601 date-time (years 0001 to 9999)');
    case 'number':
    case 'integer':
    case 'boolean':
    case 'select':
      return value;
    case 'decimal':
      return isDecimalText(String(value)) ? String(value) : bad('must be a decimal number ("12.30")');
    default: {
      const text = String(value);
      return text.length > 500 ? bad('is too long') : text.includes('\u0000') ? bad('cannot contain NUL (\\u0000) characters') : text;
    }
  }
}

/** Field filters (`status`, `dueDate_min`…) of the typed filter input, which holds filterable fields and their ranges only. */
function filters(d: EntityDefinition, given: [string, unknown][], problems: Problems): Pick<ParsedQuery, 'equals' | 'bounds'> {
  const byName = new Map(d.fields.map((f) => [f.name, f]));
  const equals: ParsedQuery['equals'] = [];
  const bounds = new Map<string, { field: FieldDefinition; min: unknown; max: unknown }>();
  for (const [name, raw] of given) {
    const suffix = /_(min|max)$/.exec(name)?.[1] as 'min' | 'max' | undefined;
    const field = byName.get(suffix ? name.slice(0, -4) : name);
    if (!field?.filterable) {
      problems.push({ path: name, message: 'is not a filterable field or a known parameter' });
      continue;
    }
    const value = filterValue(field, raw, name, problems);
    if (suffix) {
      const entry = bounds.get(field.name) ?? { field, min: undefined, max: undefined };
      entry[suffix] = value;
      bounds.set(field.name, entry);
    } else if (value !== undefined) equals.push({ field, value });
  }
  return { equals, bounds: [...bounds.values()] };
}

function checkSearch(d: EntityDefinition, given: string | null | undefined, problems: Problems): string | null {
  const search = given?.trim() || null;
  if (search && search.length > 200) problems.push({ path: 'search', message: 'must be at most 200 characters' });
  if (search?.includes('\u0000')) problems.push({ path: 'search', message: 'cannot contain NUL (\\u0000) characters' });
  if (search && !d.fields.some((f) => f.searchable)) problems.push({ path: 'search', message: 'this entity has no searchable field' });
  return search;
}

function checkSortBy(d: EntityDefinition, sortBy: string, problems: Problems): void {
  const sortable = new Set(['createdAt', 'updatedAt', ...d.fields.filter((f) => f.sortable).map((f) => f.name)]);
  if (!sortable.has(sortBy)) problems.push({ path: 'sortBy', message: `must be one of ${[...sortable].join(', ')}` });
}

function checkIds(ids: string[], problems: Problems): string[] {
  if (!ids.length || ids.length > 100 || !ids.every(isUuid)) problems.push({ path: 'ids', message: 'must be 1 to 100 comma-separated ids' });
  return ids;
}

/** Inclusive day range on a date field: `from` 00:00 to the day after `to` 00:00. */
function checkRange(d: EntityDefinition, given: { dateField?: string | null; from?: string | null; to?: string | null }, problems: Problems): ParsedQuery['range'] {
  if (given.from == null && given.to == null && given.dateField == null) return null;
  const dateFields = new Set(['createdAt', 'updatedAt', ...d.fields.filter((f) => f.type === 'date' || f.type === 'datetime').map((f) => f.name)]);
  const field = given.dateField ?? 'createdAt';
  if (!dateFields.has(field)) problems.push({ path: 'dateField', message: `must be one of ${[...dateFields].join(', ')}` });
  const from = given.from != null ? parseDay(given.from, 'from', problems) : null;
  const to = given.to != null ? parseDay(given.to, 'to', problems) : null;
  return { field, from, until: to ? new Date(to.getTime() + 86_400_000) : null };
}

/** Cursor mode: forward (`first`/`after`) or backward (`last`/`before`), never both, never with `page`. */
function checkKeyset(q: ListQuery, problems: Problems): ParsedQuery['keyset'] {
  const forward = q.first != null || q.after != null;
  const backward = q.last != null || q.before != null;
  if (forward && backward) problems.push({ path: q.before != null ? 'before' : 'last', message: 'cannot be combined with first or after: page one way' });
  if ((forward || backward) && q.page != null) problems.push({ path: 'page', message: 'cannot be combined with cursors (first, after, last, before)' });
  if (!forward && !backward) return null;
  return { backward: backward && !forward, cursor: (backward && !forward ? q.before : q.after) ?? null };
}

/**
 * Checks a typed LIST query for `d` (what its types cannot say: page bounds, cursor, distinct on a
 * filterable field, ids, search, storable days); `view` says what each record carries. Throws 400
 * listing every problem, with the parameter names of the query-string language as paths.
 */
export function checkListQuery(d: EntityDefinition, q: ListQuery, view: View): ParsedQuery {
  const problems: Problems = [];
  const bounded = (value: number | null | undefined, fallback: number, max: number, name: string) => {
    if (value == null) return fallback;
    if (Number.isInteger(value) && value >= 1 && value <= max) return value;
    problems.push({ path: name, message: `must be an integer from 1 to ${max}` });
    return fallback;
  };
  const limit = q.first != null ? bounded(q.first, 10, 100, 'first') : q.last != null ? bounded(q.last, 10, 100, 'last') : bounded(q.limit, 10, 100, 'limit');
  const page = bounded(q.page, 1, 1_000_000, 'page');
  const keyset = checkKeyset(q, problems);
  const sortBy = q.sortBy ?? 'createdAt';
  checkSortBy(d, sortBy, problems);
  let fields = view.fields;
  let distinct = false;
  if (q.distinct != null && keyset) problems.push({ path: 'distinct', message: 'cannot be combined with cursors' });
  if (q.distinct != null) {
    const field = d.fields.find((f) => f.name === q.distinct);
    if (field?.filterable) [fields, distinct] = [[field.name], true];
    else problems.push({ path: 'distinct', message: `must be a filterable field (${d.fields.filter((f) => f.filterable).map((f) => f.name).join(', ') || 'none'})` });
  }
  const ids = q.ids != null ? checkIds(q.ids.map(String), problems) : null;
  const search = checkSearch(d, q.search, problems);
  const range = checkRange(d, q, problems);
  const given = Object.entries(q.filter ?? {}).filter(([, v]) => v !== null && v !== undefined);
  const { equals, bounds } = filters(d, given, problems);
  const { where, across } = checkWhere(d, q.where, problems);
  refuse(problems);
  return { page, limit, sortBy, sortOrder: q.sortOrder ?? 'desc', fields, distinct, ids, search, range, equals, bounds, where, across, metas: view.metas, children: view.children, keyset };
}
