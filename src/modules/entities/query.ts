// The LIST query language, parsed from plain parameters (REST query string or the GraphQL `params`
// object) against one definition. Every name must be one the definition declares: nothing from the
// request ever reaches SQL as an identifier. Problems → 400 "Invalid query parameters".
import type { EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import { AppError } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { int32, isStorableTime } from './validate.js';

export interface ListQuery {
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
  metas: boolean;
  /** Child slugs to include. */
  children: string[];
}

export const systemFields = ['id', 'createdAt', 'updatedAt'] as const;
const listParams = new Set(['page', 'limit', 'sortBy', 'sortOrder', 'fields', 'distinct', 'ids', 'search', 'from', 'to', 'dateField', 'metas', 'child']);
const day = /^\d{4}-\d{2}-\d{2}$/;

type Problems = { path: string; message: string }[];

function int(value: string | undefined, fallback: number, min: number, max: number, name: string, problems: Problems): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    problems.push({ path: name, message: `must be an integer from ${min} to ${max}` });
    return fallback;
  }
  return n;
}

function parseDay(value: string, name: string, problems: Problems): Date | null {
  const time = day.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (!isStorableTime(time)) {
    problems.push({ path: name, message: 'must be a date (YYYY-MM-DD, years 0001 to 9999)' });
    return null;
  }
  return new Date(time);
}

/** A filter value in the field's type, or a problem. */
function filterValue(field: FieldDefinition, raw: string, name: string, problems: Problems): unknown {
  const bad = (message: string) => (problems.push({ path: name, message }), undefined);
  switch (field.type) {
    case 'number':
    case 'integer': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return bad(`must be ${field.type === 'integer' ? 'an integer' : 'a number'}`);
      // Past what the column holds, PostgreSQL would refuse the comparison itself.
      if (field.type === 'integer' && (n < int32.min || n > int32.max)) return bad(`must be an integer from ${int32.min} to ${int32.max}`);
      return n;
    }
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : bad('must be true or false');
    case 'date':
      return parseDay(raw, name, problems) ?? undefined;
    case 'datetime': {
      const time = Date.parse(raw);
      return isStorableTime(time) ? new Date(time) : bad('must be an ISO 8601 date-time (years 0001 to 9999)');
    }
    case 'select':
      return field.enum!.includes(raw) ? raw : bad(`must be one of ${field.enum!.join(', ')}`);
    case 'multiselect':
      return field.enum && !field.enum.includes(raw) ? bad(`must be one of ${field.enum.join(', ')}`) : raw;
    default:
      return raw.length > 500 ? bad('is too long') : raw.includes('\u0000') ? bad('cannot contain NUL (\\u0000) characters') : raw;
  }
}

/** Parses LIST parameters for `d`; throws 400 listing every problem. */
export function parseListQuery(d: EntityDefinition, params: Record<string, string | undefined>): ListQuery {
  const problems: Problems = [];
  const byName = new Map(d.fields.map((f) => [f.name, f]));
  const page = int(params.page, 1, 1, 1_000_000, 'page', problems);
  const limit = int(params.limit, 10, 1, 100, 'limit', problems);

  const sortable = new Set(['createdAt', 'updatedAt', ...d.fields.filter((f) => f.sortable).map((f) => f.name)]);
  const sortBy = params.sortBy ?? 'createdAt';
  if (!sortable.has(sortBy)) problems.push({ path: 'sortBy', message: `must be one of ${[...sortable].join(', ')}` });
  const sortOrder = params.sortOrder ?? 'desc';
  if (sortOrder !== 'asc' && sortOrder !== 'desc') problems.push({ path: 'sortOrder', message: 'must be asc or desc' });

  let fields: string[] | null = null;
  if (params.fields !== undefined) {
    fields = params.fields.split(',').map((f) => f.trim()).filter(Boolean);
    const allowed = new Set<string>([...systemFields, ...byName.keys()]);
    const unknown = fields.filter((f) => !allowed.has(f));
    if (!fields.length || unknown.length) problems.push({ path: 'fields', message: unknown.length ? `unknown field(s): ${unknown.join(', ')}` : 'must name at least one field' });
  }
  const distinct = params.distinct === 'true';
  if (params.distinct !== undefined && params.distinct !== 'true' && params.distinct !== 'false') problems.push({ path: 'distinct', message: 'must be true or false' });
  if (distinct && (!fields || fields.length !== 1 || !byName.get(fields[0]!)?.filterable)) {
    problems.push({ path: 'distinct', message: 'needs exactly one filterable field in fields' });
  }

  let ids: string[] | null = null;
  if (params.ids !== undefined) {
    ids = params.ids.split(',').map((s) => s.trim()).filter(Boolean);
    if (!ids.length || ids.length > 100 || !ids.every(isUuid)) problems.push({ path: 'ids', message: 'must be 1 to 100 comma-separated ids' });
  }

  const search = params.search?.trim() || null;
  if (search && search.length > 200) problems.push({ path: 'search', message: 'must be at most 200 characters' });
  if (search?.includes('\u0000')) problems.push({ path: 'search', message: 'cannot contain NUL (\\u0000) characters' });
  if (search && !d.fields.some((f) => f.searchable)) problems.push({ path: 'search', message: 'this entity has no searchable field' });

  let range: ListQuery['range'] = null;
  if (params.from !== undefined || params.to !== undefined || params.dateField !== undefined) {
    const dateFields = new Set(['createdAt', 'updatedAt', ...d.fields.filter((f) => f.type === 'date' || f.type === 'datetime').map((f) => f.name)]);
    const field = params.dateField ?? 'createdAt';
    if (!dateFields.has(field)) problems.push({ path: 'dateField', message: `must be one of ${[...dateFields].join(', ')}` });
    const from = params.from !== undefined ? parseDay(params.from, 'from', problems) : null;
    const to = params.to !== undefined ? parseDay(params.to, 'to', problems) : null;
    range = { field, from, until: to ? new Date(to.getTime() + 86_400_000) : null };
  }

  const equals: ListQuery['equals'] = [];
  const bounds = new Map<string, { field: FieldDefinition; min: unknown; max: unknown }>();
  for (const [name, raw] of Object.entries(params)) {
    if (listParams.has(name) || raw === undefined) continue;
    const suffix = /_(min|max)$/.exec(name)?.[1] as 'min' | 'max' | undefined;
    const field = byName.get(suffix ? name.slice(0, -4) : name);
    if (!field || !field.filterable) {
      problems.push({ path: name, message: 'is not a filterable field or a known parameter' });
      continue;
    }
    if (suffix) {
      if (!['number', 'integer', 'date', 'datetime'].includes(field.type)) {
        problems.push({ path: name, message: `range filters apply to number and date fields only` });
        continue;
      }
      const value = filterValue(field, raw, name, problems);
      const entry = bounds.get(field.name) ?? { field, min: undefined, max: undefined };
      entry[suffix] = value;
      bounds.set(field.name, entry);
    } else {
      const value = filterValue(field, raw, name, problems);
      if (value !== undefined) equals.push({ field, value });
    }
  }

  const metas = params.metas === 'all';
  if (params.metas !== undefined && !metas) problems.push({ path: 'metas', message: 'must be all' });
  if (metas && !d.metas) problems.push({ path: 'metas', message: 'this entity has no metas' });
  let children: string[] = [];
  if (params.child !== undefined) {
    const slugs = d.children.map((c) => c.slug);
    if (params.child === 'all') children = slugs;
    else if (slugs.includes(params.child)) children = [params.child];
    else problems.push({ path: 'child', message: slugs.length ? `must be all or one of ${slugs.join(', ')}` : 'this entity has no children' });
  }

  if (problems.length) {
    throw new AppError('VALIDATION_ERROR', 'Invalid query parameters', { errors: problems.map((p) => ({ ...p, code: 'invalid' })) });
  }
  return { page, limit, sortBy, sortOrder: sortOrder as 'asc' | 'desc', fields, distinct, ids, search, range, equals, bounds: [...bounds.values()], metas, children };
}
