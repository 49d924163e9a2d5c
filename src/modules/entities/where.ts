// LIST's `where`: conditions with operators on an entity's filterable fields (and its createdAt and
// updatedAt), grouped with AND, OR and NOT. Operators by field type:
//   text (string, text, email, url): eq ne in notIn lt lte gt gte contains startsWith endsWith isNull,
//     with `mode: INSENSITIVE` for case-insensitive comparison;
//   number, integer, date, datetime: eq ne in notIn lt lte gt gte isNull;
//   select: eq ne in notIn isNull;   boolean: eq ne isNull;
//   multiselect: has hasSome hasEvery isEmpty;   relation (the related record's id): eq ne in notIn isNull.
// A filterable relation also takes the related entity's where (`customer: { office: { eq: "Madrid" } }`):
// records whose related record is one the caller can see (RLS) and meets it; it counts as a level.
// Its reverse side on the target takes `some`, `none` and `every` of the referring entity's where
// (`projects: { some: { status: { eq: ACTIVE } } }` on customers), over the referring records the caller
// can see: `every` holds when no such record fails the conditions (so also when there is none).
// Conditions of one field, and the fields of one `where`, combine with AND; `ne` and `notIn` never
// match an empty field (SQL's comparison: ask for `isNull: true` in an OR for those). A required field
// (and a stamp) is never empty: `isNull: true` on it matches no record, `isNull: false` every one.
// GraphQL types them (`TaskWhere`, `StringCondition`, `TaskStatusCondition`…: where-types.ts), REST
// builds the same value from its query string (rest-where.ts); `checkWhere` turns the coerced value
// into Prisma's where, refusing what types cannot say: depth, number of conditions, list sizes, texts
// and instants that cannot be stored. Field names come from the definition, never from the request.
import { type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { inversesOf, relationFields, relationTarget } from '../../config/entity-relations.js';
import { escapeLike } from '../../db/like.js';
import { isUuid } from '../../shared/validation.js';
import { inverseField, linksField } from './prisma-model.js';
import { isStorableTime } from './validate.js';
import { isDecimalText } from '../../shared/decimal.js';

type Values = Record<string, unknown>;
type Problems = { path: string; message: string }[];

/** Nesting of AND/OR/NOT groups, conditions (operators) in all, values in one `in`-like list. */
export const whereLimits = { depth: 4, conditions: 32, listValues: 100 } as const;

export type Operator = 'eq' | 'ne' | 'in' | 'notIn' | 'lt' | 'lte' | 'gt' | 'gte' | 'contains' | 'startsWith' | 'endsWith' | 'isNull' | 'has' | 'hasSome' | 'hasEvery' | 'isEmpty';

/** The stamps every record has, usable in `where` like datetime fields. */
const stamps: FieldDefinition[] = ['createdAt', 'updatedAt'].map((name) => ({ name, type: 'datetime', required: true }) as FieldDefinition);

/** The fields a `where` may name: the filterable ones, then the stamps. */
export const whereFields = (d: EntityDefinition): FieldDefinition[] => [...d.fields.filter((f) => f.filterable), ...stamps];

const comparisons: readonly Operator[] = ['eq', 'ne', 'in', 'notIn', 'lt', 'lte', 'gt', 'gte', 'isNull'];

export function operatorsOf(field: Pick<FieldDefinition, 'type'>): readonly Operator[] {
  switch (field.type) {
    case 'multiselect':
      return ['has', 'hasSome', 'hasEvery', 'isEmpty'];
    case 'boolean':
      return ['eq', 'ne', 'isNull'];
    case 'select':
    case 'relation':
    case 'media':
      return ['eq', 'ne', 'in', 'notIn', 'isNull'];
    case 'number':
    case 'integer':
    case 'decimal':
    case 'date':
    case 'datetime':
      return comparisons;
    default:
      return [...comparisons, 'contains', 'startsWith', 'endsWith'];
  }
}

/** Operators whose value is a list of the field's values. */
export const listOperators: ReadonlySet<Operator> = new Set(['in', 'notIn', 'hasSome', 'hasEvery']);
/** Operators whose value is a Boolean (is / is not). */
export const flagOperators: ReadonlySet<Operator> = new Set(['isNull', 'isEmpty']);
/** Whether a field's conditions take `mode` (case-insensitive text comparison). */
export const takesMode = (field: Pick<FieldDefinition, 'type'>) => operatorsOf(field).includes('contains');

const prismaOperator: Record<Exclude<Operator, 'isNull'>, string> = {
  eq: 'equals', ne: 'not', in: 'in', notIn: 'notIn', lt: 'lt', lte: 'lte', gt: 'gt', gte: 'gte',
  contains: 'contains', startsWith: 'startsWith', endsWith: 'endsWith', has: 'has', hasSome: 'hasSome', hasEvery: 'hasEvery', isEmpty: 'isEmpty',
};

// --- Checking, into Prisma's where ---------------------------------------------------------------

/** One value of a condition as GraphQL coerced it, checked and in the form Prisma stores. */
function storable(field: FieldDefinition, value: unknown, path: string, problems: Problems): unknown {
  const bad = (message: string) => (problems.push({ path, message }), undefined);
  switch (field.type) {
    case 'date': {
      const time = Date.parse(`${String(value)}T00:00:00Z`);
      return isStorableTime(time) ? new Date(time) : bad('must be a date (YYYY-MM-DD, years 0001 to 9999)');
    }
    case 'datetime':
      return value instanceof Date && isStorableTime(value.getTime()) ? value : bad('must be an ISO 8601 date-time (years 0001 to 9999)');
    case 'number':
    case 'integer':
    case 'boolean':
      return value;
    case 'decimal':
      // Compared with the column's numeric exactly, whatever its scale (`gt: "10.005"`).
      return isDecimalText(String(value)) ? String(value) : bad('must be a decimal number ("12.30")');
    case 'relation':
    case 'media':
      return isUuid(String(value)) ? String(value).toLowerCase() : bad('must be a record id (UUID)');
    default: {
      const text = String(value);
      return text.length > 500 ? bad('is too long (500 characters at most)') : text.includes('\u0000') ? bad('cannot contain NUL (\\u0000) characters') : text;
    }
  }
}

/** Prisma conditions (ANDed) for one field's condition object. */
function fieldConditions(field: FieldDefinition, given: Values, path: string, problems: Problems, counted: Counted): Values[] {
  const insensitive = given.mode === 'insensitive' ? { mode: 'insensitive' } : {};
  const out: Values[] = [];
  for (const [op, raw] of Object.entries(given) as [Operator | 'mode', unknown][]) {
    if (op === 'mode' || raw === null || raw === undefined) continue;
    counted.n++;
    const at = `${path}.${op}`;
    if (op === 'isNull') {
      // A required column holds no null: Prisma refuses `{field: null}` on it, and the answer is known.
      if (field.required) out.push(raw ? nothing : everything);
      else out.push(raw ? { [field.name]: null } : { NOT: { [field.name]: null } });
      continue;
    }
    let value: unknown;
    if (listOperators.has(op)) {
      const items = raw as unknown[];
      if (items.length > whereLimits.listValues) problems.push({ path: at, message: `must hold at most ${whereLimits.listValues} values` });
      value = items.map((item, i) => storable(field, item, `${at}[${i}]`, problems));
    } else if (op === 'isEmpty') value = raw;
    else value = storable(field, raw, at, problems);
    if (op === 'contains' || op === 'startsWith' || op === 'endsWith') value = escapeLike(String(value));
    out.push({ [field.name]: { [prismaOperator[op]]: value, ...insensitive } });
  }
  return out;
}

// Prisma drops empty groups (`OR: []`, `NOT: { AND: [] }`) as if they were not there; logic wants an
// OR of nothing to hold for no record, and a NOT of nothing for none either. Both are said explicitly.
const nothing: Values = { id: { in: [] } };
const everything: Values = { NOT: nothing };
/** Conditions that must all hold; none: every record. */
const all = (conditions: Values[]): Values => (conditions.length ? { AND: conditions } : everything);

/** What a where holds: conditions, and whether it reads other tables (relations, reverse sides). */
type Counted = { n: number; across: boolean };

function group(d: EntityDefinition, given: Values, path: string, depth: number, problems: Problems, counted: Counted): Values[] {
  if (depth > whereLimits.depth) {
    problems.push({ path, message: `nests groups deeper than ${whereLimits.depth} levels` });
    return [];
  }
  const out: Values[] = [];
  for (const [key, value] of Object.entries(given)) {
    if (value === null || value === undefined) continue;
    const nested = (w: Values, at: string, of = d) => all(group(of, w, at, depth + 1, problems, counted));
    if (key === 'OR' && !(value as Values[]).length) out.push(nothing);
    else if (key === 'AND' || key === 'OR') out.push({ [key]: (value as Values[]).map((w, i) => nested(w, `${path}.${key}[${i}]`)) });
    else if (key === 'NOT') out.push({ NOT: nested(value as Values, `${path}.NOT`) });
    else {
      const field = fieldsOf(d).get(key);
      const relation = field ? undefined : relationsOf(d).get(key);
      const inverse = field || relation ? undefined : filterableInverses(d).get(key);
      const link = field || relation || inverse ? undefined : filterableLinks(d).get(key);
      if (field) out.push(...fieldConditions(field, value as Values, `${path}.${key}`, problems, counted));
      else if (relation) {
        counted.across = true;
        const target = relationTarget(relation);
        const met = nested(value as Values, `${path}.${key}`, target);
        out.push({ [key]: { is: target.softDelete ? { AND: [{ deletedAt: null }, met] } : met } });
      } else if (inverse) {
        counted.across = true;
        const side = inverse.field.many ? 'record' : null;
        out.push(...manyConditions(inverse.source, inverseField(inverse.source, inverse.field), side, value as Values, `${path}.${key}`, nested));
      } else if (link) {
        counted.across = true;
        out.push(...manyConditions(relationTarget(link), linksField(link), 'related', value as Values, `${path}.${key}`, nested));
      }
      else problems.push({ path: `${path}.${key}`, message: 'is not a filterable field' });
    }
  }
  return out;
}

/**
 * some/none/every of the records of `listed` on a to-many side (a reverse side, or a many-to-many
 * relation through its join rows' `side`) as Prisma's relation filters, over those the caller can see
 * (RLS; soft-deleted ones are gone): `every` is "none that fails", as Prisma's own `every` would
 * count the deleted and the unseen.
 */
function manyConditions(listed: EntityDefinition, field: string, side: 'record' | 'related' | null, given: Values, path: string, nested: (w: Values, at: string, of: EntityDefinition) => Values): Values[] {
  const live = (met: Values) => (listed.softDelete ? { AND: [{ deletedAt: null }, met] } : met);
  const through = (met: Values) => (side ? { [side]: { is: live(met) } } : live(met));
  const out: Values[] = [];
  for (const [quantifier, w] of Object.entries(given)) {
    if (w === null || w === undefined) continue;
    const met = nested(w as Values, `${path}.${quantifier}`, listed);
    if (quantifier === 'some') out.push({ [field]: { some: through(met) } });
    else if (quantifier === 'none') out.push({ [field]: { none: through(met) } });
    else out.push({ [field]: { none: through({ NOT: met }) } });
  }
  return out;
}

/** `build(d)`, made once per definition (definitions are fixed once sanitized). */
function perDefinition<T>(build: (d: EntityDefinition) => T): (d: EntityDefinition) => T {
  const made = new WeakMap<EntityDefinition, T>();
  return (d) => {
    if (!made.has(d)) made.set(d, build(d));
    return made.get(d)!;
  };
}

/** The fields a where of `d` may name, by name. */
const fieldsOf = perDefinition((d) => new Map(whereFields(d).map((f) => [f.name, f])));

/** The filterable relations of `d` whose target can be listed, by relation name (`customer`): a where may hold their target's where. */
export const relationsOf = perDefinition((d): Map<string, FieldDefinition> => new Map(relationFields(d).filter((f) => f.filterable && relationTarget(f).operations.list).map((f) => [f.relation, f])));

/** The reverse sides a where of `d` may name (`projects` on customers): of filterable relations whose referring entity can be listed. */
export const filterableInverses = perDefinition((d) => new Map(inversesOf(d).filter((i) => i.field.filterable && i.source.operations.list).map((i) => [i.name, i])));

/** The filterable many-to-many relations of `d` whose target can be listed, by relation name (`tasks`). */
export const filterableLinks = perDefinition((d) => new Map(d.links.filter((f) => f.filterable && relationTarget(f).operations.list).map((f) => [f.relation, f])));

/**
 * A `where` (GraphQL-coerced: enums as stored strings, days as YYYY-MM-DD, instants as Date) as
 * Prisma's where (null when it has no condition), and whether it reads other entities' tables
 * (`across`: through a relation or a reverse side); problems (paths from `where`) are pushed.
 */
export function checkWhere(d: EntityDefinition, given: Values | null | undefined, problems: Problems): { where: Values | null; across: boolean } {
  if (!given) return { where: null, across: false };
  const counted: Counted = { n: 0, across: false };
  const conditions = group(d, given, 'where', 1, problems, counted);
  if (counted.n > whereLimits.conditions) problems.push({ path: 'where', message: `holds ${counted.n} conditions; at most ${whereLimits.conditions}` });
  return { where: conditions.length ? { AND: conditions } : null, across: counted.across };
}
