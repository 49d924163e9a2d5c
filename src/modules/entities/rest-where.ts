// REST's operators, as the `where` variable of the LIST document (where.ts says what each operator
// means): `{field}[op]=value` for the common case (`estimatedHours[gte]=3`, `status[in]=todo,review`,
// `title[contains]=plan&title[mode]=insensitive`, `dueDate[isNull]=true`), and `filter` holding the
// JSON of GraphQL's `where` for AND/OR/NOT (`filter={"OR":[{"status":{"eq":"done"}},{"priority":{"in":["high","urgent"]}}]}`).
// Values are given as REST gives them elsewhere (a select's stored value, `in-progress`; its GraphQL
// name `IN_PROGRESS` is taken too). The two forms and the other filters combine with AND. What a
// value or a name cannot be is refused here, with the parameter as path; the limits (depth, number of
// conditions) are the service's, as for GraphQL callers.
import { type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { relationTarget } from '../../config/entity-relations.js';
import { enumValueName, hasEnum } from './graphql-names.js';
import { isUuid } from '../../shared/validation.js';
import { int32, isStorableTime } from './validate.js';
import { filterableInverses, filterableLinks, flagOperators, listOperators, operatorsOf, relationsOf, takesMode, whereFields, whereLimits, type Operator } from './where.js';
import { isDecimalText } from '../../shared/decimal.js';

type Values = Record<string, unknown>;
type Problems = { path: string; message: string }[];

/** `title[contains]`: a field and an operator (or `mode`). */
export const operatorParameter = /^([A-Za-z_][A-Za-z0-9_]*)\[([A-Za-z]+)\]$/;

const day = /^\d{4}-\d{2}-\d{2}$/;

export function isDay(value: string): boolean {
  return day.test(value) && isStorableTime(Date.parse(`${value}T00:00:00Z`));
}

/** A filter's string as the value of its field's GraphQL type, or a problem. */
export function filterValue(field: FieldDefinition, raw: string, name: string, problems: Problems): unknown {
  const bad = (message: string) => (problems.push({ path: name, message }), undefined);
  switch (field.type) {
    case 'number':
    case 'integer': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return bad(`must be ${field.type === 'integer' ? 'an integer' : 'a number'}`);
      if (field.type === 'integer' && (n < int32.min || n > int32.max)) return bad(`must be an integer from ${int32.min} to ${int32.max}`);
      return n;
    }
    case 'decimal':
      return isDecimalText(raw) ? raw : bad('must be a decimal number (12.30)');
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : bad('must be true or false');
    case 'date':
      return isDay(raw) ? raw : bad('must be a date (YYYY-MM-DD, years 0001 to 9999)');
    case 'datetime': {
      const time = Date.parse(raw);
      return isStorableTime(time) ? new Date(time).toISOString() : bad('must be an ISO 8601 date-time (years 0001 to 9999)');
    }
    case 'relation':
    case 'media':
      return isUuid(raw) ? raw : bad('must be a record id (UUID)');
    case 'select':
    case 'multiselect':
      if (!hasEnum(field)) break;
      return field.enum!.includes(raw) ? enumValueName(raw) : bad(`must be one of ${field.enum!.join(', ')}`);
  }
  return raw.length > 500 ? bad('is too long') : raw;
}

const isObject = (v: unknown): v is Values => typeof v === 'object' && v !== null && !Array.isArray(v);

function fieldOf(d: EntityDefinition, name: string): FieldDefinition | undefined {
  return whereFields(d).find((f) => f.name === name);
}

/** `mode`'s value as the GraphQL enum, or a problem. */
function modeValue(field: FieldDefinition, raw: unknown, path: string, problems: Problems): string | undefined {
  if (!takesMode(field)) return void problems.push({ path, message: `${field.name} is not a text field` });
  const mode = typeof raw === 'string' ? raw.toLowerCase() : '';
  if (mode === 'insensitive' || mode === 'default') return mode.toUpperCase();
  return void problems.push({ path, message: 'must be insensitive or default' });
}

/** One value from JSON: numbers and booleans as they are, strings as the query string reads them. */
function jsonValue(field: FieldDefinition, raw: unknown, path: string, problems: Problems): unknown {
  if (typeof raw === 'string') return hasEnum(field) && field.enum!.some((v) => enumValueName(v) === raw) ? raw : filterValue(field, raw, path, problems);
  if (typeof raw === 'number' && (field.type === 'number' || field.type === 'integer' || field.type === 'decimal')) return filterValue(field, String(raw), path, problems);
  if (typeof raw === 'boolean' && field.type === 'boolean') return raw;
  return void problems.push({ path, message: `must be a ${field.type} value` });
}

type Read = (field: FieldDefinition, raw: unknown, path: string, problems: Problems) => unknown;

/** One operator's value: a list for `in`-like operators, a Boolean for `isNull`/`isEmpty`, else one value. */
function operatorValue(field: FieldDefinition, op: Operator, raw: unknown, path: string, problems: Problems, read: Read, list: (raw: unknown) => unknown[] | null): unknown {
  if (flagOperators.has(op)) {
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    return void problems.push({ path, message: 'must be true or false' });
  }
  if (!listOperators.has(op)) return read(field, raw, path, problems);
  const items = list(raw);
  if (!items?.length || items.length > whereLimits.listValues) return void problems.push({ path, message: `must be 1 to ${whereLimits.listValues} values` });
  return items.map((item, i) => read(field, item, `${path}[${i}]`, problems));
}

/** A field's conditions `{op: value}` as GraphQL's input; unknown operators are problems. */
function condition(field: FieldDefinition, given: [string, unknown][], path: (op: string) => string, problems: Problems, read: Read, list: (raw: unknown) => unknown[] | null): Values {
  const out: Values = {};
  for (const [op, raw] of given) {
    if (op === 'mode') out.mode = modeValue(field, raw, path(op), problems);
    else if (!operatorsOf(field).includes(op as Operator)) problems.push({ path: path(op), message: `is not an operator of ${field.name} (${[...operatorsOf(field), ...(takesMode(field) ? ['mode'] : [])].join(', ')})` });
    else out[op] = operatorValue(field, op as Operator, raw, path(op), problems, read, list);
  }
  return out;
}

/** `filter`'s JSON as GraphQL's `where`, every name and value checked (depth is bounded by the service). */
function fromJson(d: EntityDefinition, given: unknown, path: string, depth: number, problems: Problems): Values {
  if (!isObject(given)) return (problems.push({ path, message: 'must be an object' }), {});
  if (depth > whereLimits.depth) return (problems.push({ path, message: `nests groups deeper than ${whereLimits.depth} levels` }), {});
  const out: Values = {};
  for (const [key, value] of Object.entries(given)) {
    const at = `${path}.${key}`;
    if (key === 'AND' || key === 'OR') {
      if (Array.isArray(value)) out[key] = value.map((w, i) => fromJson(d, w, `${at}[${i}]`, depth + 1, problems));
      else problems.push({ path: at, message: 'must be a list of conditions' });
    } else if (key === 'NOT') out.NOT = fromJson(d, value, at, depth + 1, problems);
    else if (relationsOf(d).has(key)) out[key] = fromJson(relationTarget(relationsOf(d).get(key)!), value, at, depth + 1, problems);
    else if (filterableInverses(d).has(key)) out[key] = quantified(filterableInverses(d).get(key)!.source, value, at, depth, problems);
    else if (filterableLinks(d).has(key)) out[key] = quantified(relationTarget(filterableLinks(d).get(key)!), value, at, depth, problems);
    else {
      const field = fieldOf(d, key);
      if (!field) problems.push({ path: at, message: 'is not a filterable field' });
      else if (!isObject(value)) problems.push({ path: at, message: 'must be an object of operators' });
      else out[key] = condition(field, Object.entries(value), (op) => `${at}.${op}`, problems, jsonValue, (raw) => (Array.isArray(raw) ? raw : null));
    }
  }
  return out;
}

/** A reverse side's `{ some, none, every }`, each the referring entity's where. */
function quantified(source: EntityDefinition, given: unknown, path: string, depth: number, problems: Problems): Values {
  if (!isObject(given)) return (problems.push({ path, message: 'must be an object of some, none, every' }), {});
  const out: Values = {};
  for (const [key, value] of Object.entries(given)) {
    if (key === 'some' || key === 'none' || key === 'every') out[key] = fromJson(source, value, `${path}.${key}`, depth + 1, problems);
    else problems.push({ path: `${path}.${key}`, message: 'must be some, none or every' });
  }
  return out;
}

/** The `where` variable of a LIST request: `filter` and the `{field}[op]` parameters, or undefined. */
export function restWhere(d: EntityDefinition, params: Record<string, string | undefined>, problems: Problems): Values | undefined {
  const byField = new Map<FieldDefinition, [string, unknown][]>();
  for (const [name, raw] of Object.entries(params)) {
    const match = operatorParameter.exec(name);
    if (!match || raw === undefined) continue;
    const field = fieldOf(d, match[1]!);
    if (!field) problems.push({ path: name, message: 'is not a filterable field' });
    else byField.set(field, [...(byField.get(field) ?? []), [match[2]!, raw]]);
  }
  const fromParams: Values = {};
  for (const [field, given] of byField) {
    fromParams[field.name] = condition(field, given, (op) => `${field.name}[${op}]`, problems, (f, raw, path, p) => filterValue(f, String(raw), path, p), (raw) => String(raw).split(',').map((s) => s.trim()).filter(Boolean));
  }
  let filter: Values | undefined;
  if (params.filter !== undefined) {
    try {
      filter = fromJson(d, JSON.parse(params.filter), 'filter', 1, problems);
    } catch {
      problems.push({ path: 'filter', message: 'must be JSON: the `where` of GraphQL' });
    }
  }
  const hasParams = Object.keys(fromParams).length > 0;
  if (!filter) return hasParams ? fromParams : undefined;
  return hasParams ? { ...filter, AND: [...((filter.AND as Values[] | undefined) ?? []), fromParams] } : filter;
}
