// The REST query-string language of LIST and READ, parsed at the REST edge into the variables of the
// entity's typed document (rest-documents.ts): strings become numbers, booleans, dates and enum value
// names, `{field}=`/`{field}_min=` become the `filter` input, `fields`/`metas`/`child` become the
// document's `@include` flags. What a string cannot be (an unknown parameter, `page=abc`, a status not
// in the enum) is refused here with the contract's 400 `Invalid query parameters`; what typed values
// can still get wrong (limit over 100, search length, a non-filterable `distinct`) is the service's to
// refuse, for GraphQL callers as for REST ones.
import { LRUCache } from 'lru-cache';
import { type EntityDefinition, type FieldDefinition, isRanged } from '../../config/entity-definition.js';
import { invalidQuery } from './query.js';
import { isUuid } from '../../shared/validation.js';
import { extremeFields, groupFields, numberFields } from './aggregate.js';
import { aggregateFlag, childFlag, expandables, fieldFlag, metasFlag, pickableFields, relatedFlags, wholeFlag, type Values } from './rest-documents.js';
import { filterValue, isDay, operatorParameter, restWhere } from './rest-where.js';
import { int32 } from './validate.js';

type Params = Record<string, string | undefined>;
type Problems = { path: string; message: string }[];

/** A selection's flags, its own picked fields and what was wrong with it (nothing: none). */
interface Selection {
  flags: Readonly<Values>;
  fields: string[] | null;
  problems: Problems;
}

const listParams = new Set(['page', 'limit', 'cursor', 'sortBy', 'sortOrder', 'fields', 'distinct', 'ids', 'search', 'from', 'to', 'dateField', 'metas', 'child', 'expand', 'filter']);
const readParams = new Set(['fields', 'metas', 'child', 'expand']);

/** What the parser reads of a definition, worked out once per definition (the parser runs per request). */
interface Vocabulary {
  byName: Map<string, FieldDefinition>;
  pickable: string[];
  /** `pickable` with each name's `@include` variable. */
  flags: [string, string][];
  sortable: string[];
  dateFields: string[];
  slugs: string[];
  /** Relations and media fields `expand=` may name, with their related record's pickable fields. */
  relations: { name: string; pickable: string[] }[];
  /**
   * The selections made so far, by their four parameters (selectionFlags): an entity with relations has
   * a flag per field of each related record (projects: over a hundred), which were made anew on every
   * request (3 % of `projects?expand=customer`'s CPU). Bounded: any string may be asked.
   */
  selections: LRUCache<string, Selection>;
}
const vocabularies = new WeakMap<EntityDefinition, Vocabulary>();

function vocabulary(d: EntityDefinition): Vocabulary {
  let v = vocabularies.get(d);
  if (!v) {
    const pickable = pickableFields(d);
    v = {
      byName: new Map(d.fields.map((f) => [f.name, f])),
      pickable,
      flags: pickable.map((name) => [name, fieldFlag(name)]),
      sortable: ['createdAt', 'updatedAt', ...d.fields.filter((f) => f.sortable).map((f) => f.name)],
      dateFields: ['createdAt', 'updatedAt', ...d.fields.filter((f) => f.type === 'date' || f.type === 'datetime').map((f) => f.name)],
      slugs: d.children.map((c) => c.slug),
      relations: expandables(d),
      selections: new LRUCache({ max: 200 }),
    };
    vocabularies.set(d, v);
  }
  return v;
}

function refuse(problems: Problems): never {
  throw invalidQuery(problems);
}

/** `page`/`limit`: digits that an Int holds; the bounds (limit ≤ 100) are the service's. */
function int(value: string | undefined, min: number, max: number, name: string, problems: Problems): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) > int32.max) {
    problems.push({ path: name, message: `must be an integer from ${min} to ${max}` });
    return undefined;
  }
  return Number(value);
}

/**
 * `expand` (relations, comma-separated) and the related fields `fields=` names (`customer.name`, which
 * expands `customer` too) as the flags of each relation's selection.
 */
function relatedFlagValues(d: EntityDefinition, params: Params, picked: string[], problems: Problems): Values {
  const { relations } = vocabulary(d);
  const expand = params.expand === undefined ? [] : params.expand.split(',').map((r) => r.trim()).filter(Boolean);
  const unknown = expand.filter((r) => !relations.some((rel) => rel.name === r));
  if (params.expand !== undefined && (!expand.length || unknown.length)) problems.push({ path: 'expand', message: relations.length ? `must name relations among ${relations.map((r) => r.name).join(', ')}` : 'this entity has no relations or media fields' });
  const flags: Values = {};
  for (const { name, pickable } of relations) {
    const fields = picked.filter((p) => p.startsWith(`${name}.`)).map((p) => p.slice(name.length + 1));
    const f = relatedFlags(name);
    flags[f.record] = expand.includes(name) || fields.length > 0;
    flags[f.whole] = !fields.length;
    for (const field of pickable) flags[f.field(field)] = flags[f.record] === true && (!fields.length || fields.includes(field));
  }
  return flags;
}

/** `fields`, `metas`, `child` and `expand` as the document's `@include` flags (shared: never changed), with `fields`, the record's own picked ones. */
function selectionFlags(d: EntityDefinition, params: Params, problems: Problems): { flags: Readonly<Values>; fields: string[] | null } {
  const made = vocabulary(d).selections;
  const key = JSON.stringify([params.fields, params.metas, params.child, params.expand]);
  let selection = made.get(key);
  if (!selection) {
    const found: Problems = [];
    selection = { ...selectionOf(d, params, found), problems: found };
    Object.freeze(selection.flags);
    made.set(key, selection);
  }
  problems.push(...selection.problems);
  return selection;
}

function selectionOf(d: EntityDefinition, params: Params, problems: Problems): { flags: Values; fields: string[] | null } {
  const { pickable, flags: names, slugs, relations } = vocabulary(d);
  let fields: string[] | null = null;
  let picked: string[] = [];
  if (params.fields !== undefined) {
    picked = params.fields.split(',').map((f) => f.trim()).filter(Boolean);
    const related = (f: string) => relations.some((r) => f.startsWith(`${r.name}.`) && r.pickable.includes(f.slice(r.name.length + 1)));
    const unknown = picked.filter((f) => !pickable.includes(f) && !related(f));
    if (!picked.length || unknown.length) problems.push({ path: 'fields', message: unknown.length ? `unknown field(s): ${unknown.join(', ')}` : 'must name at least one field' });
    fields = picked.filter((f) => pickable.includes(f));
  }
  const flags: Values = { [wholeFlag]: fields === null };
  for (const [name, flag] of names) flags[flag] = fields === null || fields.includes(name);

  const metas = params.metas === 'all';
  if (params.metas !== undefined && !metas) problems.push({ path: 'metas', message: 'must be all' });
  if (metas && !d.metas) problems.push({ path: 'metas', message: 'this entity has no metas' });
  if (d.metas) flags[metasFlag] = metas;

  // `all` is every child the entity has: none for an entity without children (the contract's empty include).
  const wanted = params.child === undefined ? [] : params.child === 'all' ? slugs : slugs.filter((s) => s === params.child);
  if (params.child !== undefined && params.child !== 'all' && !wanted.length) problems.push({ path: 'child', message: slugs.length ? `must be all or one of ${slugs.join(', ')}` : 'this entity has no children' });
  slugs.forEach((slug, i) => (flags[childFlag(i)] = wanted.includes(slug)));
  Object.assign(flags, relatedFlagValues(d, params, picked, problems));
  return { flags, fields };
}

/** `{field}=` and `{field}_min=`/`_max=` as the `filter` input; anything else unknown is a problem. */
function filterOf(d: EntityDefinition, params: Params, known: ReadonlySet<string>, problems: Problems): Values | undefined {
  const { byName } = vocabulary(d);
  const filter: Values = {};
  for (const [name, raw] of Object.entries(params)) {
    if (known.has(name) || raw === undefined || operatorParameter.test(name)) continue;
    const suffix = /_(min|max)$/.exec(name)?.[1];
    const field = byName.get(suffix ? name.slice(0, -4) : name);
    if (!field || !field.filterable) {
      problems.push({ path: name, message: 'is not a filterable field or a known parameter' });
      continue;
    }
    if (suffix && !isRanged(field)) {
      problems.push({ path: name, message: 'range filters apply to number and date fields only' });
      continue;
    }
    const value = filterValue(field, raw, name, problems);
    if (value !== undefined) filter[name] = value;
  }
  return Object.keys(filter).length ? filter : undefined;
}

type Setter = (name: string, value: unknown) => unknown;

/** The filters LIST and aggregate share: ids, search, the day range, `{field}=`, `_min`/`_max`, operators and `filter`. */
function filterVariables(d: EntityDefinition, params: Params, known: ReadonlySet<string>, problems: Problems, set: Setter): void {
  const { dateFields } = vocabulary(d);
  if (params.ids !== undefined) {
    const ids = params.ids.split(',').map((s) => s.trim()).filter(Boolean);
    if (!ids.length || ids.length > 100 || !ids.every(isUuid)) problems.push({ path: 'ids', message: 'must be 1 to 100 comma-separated ids' });
    else set('ids', ids);
  }
  set('search', params.search?.trim() || undefined);

  if (params.dateField !== undefined && !dateFields.includes(params.dateField)) problems.push({ path: 'dateField', message: `must be one of ${dateFields.join(', ')}` });
  else set('dateField', params.dateField);
  for (const name of ['from', 'to'] as const) {
    const value = params[name];
    if (value !== undefined && !isDay(value)) problems.push({ path: name, message: 'must be a date (YYYY-MM-DD, years 0001 to 9999)' });
    else set(name, value);
  }
  set('filter', filterOf(d, params, known, problems));
  set('where', restWhere(d, params, problems));
}

/** Variables of the LIST document for a query string; throws 400 listing every problem. */
export function listVariables(d: EntityDefinition, params: Params): Values {
  const problems: Problems = [];
  const vars: Values = {};
  const set = (name: string, value: unknown) => value !== undefined && (vars[name] = value);
  set('page', int(params.page, 1, 1_000_000, 'page', problems));
  set('limit', int(params.limit, 1, 100, 'limit', problems));
  // Cursor mode: `limit` records after the cursor (`pagination.nextCursor` of the previous page).
  if (params.cursor !== undefined && (!params.cursor || params.cursor.length > 2000)) problems.push({ path: 'cursor', message: 'must be a nextCursor of this list' });
  else set('after', params.cursor);

  const { sortable } = vocabulary(d);
  if (params.sortBy !== undefined && !sortable.includes(params.sortBy)) problems.push({ path: 'sortBy', message: `must be one of ${sortable.join(', ')}` });
  else set('sortBy', params.sortBy);
  if (params.sortOrder !== undefined && params.sortOrder !== 'asc' && params.sortOrder !== 'desc') problems.push({ path: 'sortOrder', message: 'must be asc or desc' });
  else set('sortOrder', params.sortOrder);

  const { flags, fields } = selectionFlags(d, params, problems);
  if (params.distinct !== undefined && params.distinct !== 'true' && params.distinct !== 'false') problems.push({ path: 'distinct', message: 'must be true or false' });
  if (params.distinct === 'true') {
    const field = fields?.length === 1 ? d.fields.find((f) => f.name === fields[0]) : undefined;
    if (!field?.filterable) problems.push({ path: 'distinct', message: 'needs exactly one filterable field in fields' });
    else set('distinct', field.name);
  }

  filterVariables(d, params, listParams, problems, set);
  if (problems.length) refuse(problems);
  return Object.assign(vars, flags);
}

const measures = ['sum', 'avg', 'min', 'max'] as const;
const listOnly = ['page', 'limit', 'cursor', 'sortBy', 'sortOrder', 'fields', 'distinct', 'metas', 'child', 'expand'];
const aggregateParams = new Set(['ids', 'search', 'from', 'to', 'dateField', 'filter', 'groupBy', 'count', ...measures, ...listOnly]);

/** A comma-separated list of field names among `allowed`, or a problem. */
function names(raw: string | undefined, allowed: string[], path: string, problems: Problems): string[] {
  if (raw === undefined) return [];
  const given = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (!given.length || given.some((n) => !allowed.includes(n))) problems.push({ path, message: allowed.length ? `must name fields among ${allowed.join(', ')}` : 'this entity has no such field' });
  return given.filter((n) => allowed.includes(n));
}

/**
 * Variables of the aggregate document: LIST's filters, `groupBy`, and what each group answers
 * (`count`, true unless `count=false`; `sum`/`avg`/`min`/`max` naming fields) as its `@include` flags.
 */
export function aggregateVariables(d: EntityDefinition, params: Params): Values {
  const problems: Problems = [];
  const vars: Values = {};
  const set = (name: string, value: unknown) => value !== undefined && (vars[name] = value);
  for (const name of listOnly) {
    if (params[name] !== undefined) problems.push({ path: name, message: 'is not a parameter of aggregate' });
  }
  const grouped = names(params.groupBy, groupFields(d).map((f) => f.name), 'groupBy', problems);
  if (grouped.length) set('groupBy', grouped);
  for (const f of groupFields(d)) vars[aggregateFlag('key', f.name)] = grouped.includes(f.name);
  if (groupFields(d).length) vars.key = grouped.length > 0;
  if (params.count !== undefined && params.count !== 'true' && params.count !== 'false') problems.push({ path: 'count', message: 'must be true or false' });
  vars.count = params.count !== 'false';
  for (const measure of measures) {
    const allowed = (measure === 'sum' || measure === 'avg' ? numberFields(d) : extremeFields(d)).map((f) => f.name);
    const picked = names(params[measure], allowed, measure, problems);
    for (const name of allowed) vars[aggregateFlag(measure, name)] = picked.includes(name);
    if (measure === 'sum' || measure === 'avg' ? numberFields(d).length : true) vars[measure] = picked.length > 0;
  }
  filterVariables(d, params, aggregateParams, problems, set);
  if (problems.length) refuse(problems);
  return vars;
}

const eventParams = new Set(['ids', 'search', 'from', 'to', 'dateField', 'filter']);

/** LIST's filters of a query string, for a subscription to changes (`GET /api/v1/{entity}/events`); 400 listing every problem. */
export function eventFilters(d: EntityDefinition, params: Params): Values {
  const problems: Problems = [];
  const vars: Values = {};
  const set = (name: string, value: unknown) => value !== undefined && (vars[name] = value);
  filterVariables(d, params, eventParams, problems, set);
  if (problems.length) refuse(problems);
  return vars;
}

/** Variables of the READ document: the record's id and the selection (`fields`, `metas`, `child`). */
export function readVariables(d: EntityDefinition, id: string, params: Params): Values {
  const problems: Problems = Object.keys(params)
    .filter((k) => !readParams.has(k))
    .map((path) => ({ path, message: 'is not a parameter of READ' }));
  if (problems.length) refuse(problems);
  const { flags } = selectionFlags(d, params, problems);
  if (problems.length) refuse(problems);
  return { id, ...flags };
}
