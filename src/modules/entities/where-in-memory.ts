// LIST's filters decided in memory for records already read, so that many subscriptions with
// different filters share one read of the records that changed (realtime). It is a second
// implementation of what SQL decides, so it takes only what it can decide exactly as PostgreSQL
// does, and answers null (read with SQL instead) for everything else:
//   decided: equality, in and notIn on every scalar (uuids compared as PostgreSQL parses them, case
//     ignored); lt/lte/gt/gte on numbers, dates and instants; isNull; booleans; select values;
//     multiselect has/hasSome/hasEvery/isEmpty; case-sensitive contains/startsWith/endsWith (LIKE
//     with an escaped pattern compares characters, as JavaScript does);
//   not decided: numbers past 2^53 (Prisma rounds some on their way), `mode: insensitive` (case folding is the database's locale: ILIKE and lower() differ
//     between collations, and from JavaScript's), lt/gt on text (collation order), `search`, relations
//     and reverse sides (`is`, `some`, `none`: other tables), json, and any shape it does not know.
// Conditions follow SQL's three-valued logic: a comparison with NULL is unknown, NOT of unknown is
// unknown, and a record is kept only when the whole is true (as a WHERE keeps it).
import type { EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import { whereFields } from './where.js';
import { isDecimalText, unitsOf } from '../../shared/decimal.js';

type Values = Record<string, unknown>;
/** SQL's truth values: true, false, and null for unknown. */
type Truth = boolean | null;
/** A condition over a stored row (Prisma's: dates as Date, numbers, strings, lists). */
type Test = (row: Values) => Truth;

/** How a column's values compare. */
type Kind = 'uuid' | 'text' | 'number' | 'decimal' | 'time' | 'boolean' | 'list';

/** A condition this module does not decide exactly: the filters are then read with SQL. */
class Undecided extends Error {}
const undecided = (): never => {
  throw new Undecided();
};

function kindOf(field: Pick<FieldDefinition, 'type'>): Kind {
  switch (field.type) {
    case 'relation':
    case 'media':
      return 'uuid';
    case 'number':
    case 'integer':
      return 'number';
    case 'decimal':
      return 'decimal';
    case 'date':
    case 'datetime':
      return 'time';
    case 'boolean':
      return 'boolean';
    case 'multiselect':
      return 'list';
    case 'string':
    case 'text':
    case 'email':
    case 'url':
    case 'select':
      return 'text';
    default:
      return undecided();
  }
}

const everyTrue = (tests: Test[]): Test => (row) => {
  let unknown = false;
  for (const test of tests) {
    const v = test(row);
    if (v === false) return false;
    if (v === null) unknown = true;
  }
  return unknown ? null : true;
};
const someTrue = (tests: Test[]): Test => (row) => {
  let unknown = false;
  for (const test of tests) {
    const v = test(row);
    if (v === true) return true;
    if (v === null) unknown = true;
  }
  return unknown ? null : false;
};
const negated = (test: Test): Test => (row) => {
  const v = test(row);
  return v === null ? null : !v;
};
const constant = (v: Truth): Test => () => v;

/** A text as the database receives it: lone surrogates become U+FFFD on their way to UTF-8. */
const asSent = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
/** A LIKE pattern's literal text (where.ts escapes `\`, `%` and `_` with a backslash). */
const unescaped = (pattern: string) => pattern.replace(/\\([\s\S])/g, '$1');

/** A decimal as exact units of 10^-40 (more digits than a numeric column or a condition holds). */
const decimalUnits = (text: string): bigint => unitsOf(text, 40);

/** A filter value in the form its kind compares: uuids lower-cased, instants as milliseconds, decimals exactly. */
function operand(kind: Kind, value: unknown): Cell {
  if (kind === 'uuid' && typeof value === 'string') return value.toLowerCase();
  if (kind === 'text' && typeof value === 'string') return asSent(value);
  if (kind === 'time' && value instanceof Date) return value.getTime();
  // Prisma sends some numbers past 2^53 rounded to 16 significant digits (measured): not the value given.
  if (kind === 'number' && typeof value === 'number') return Math.abs(value) <= Number.MAX_SAFE_INTEGER ? value : undecided();
  if (kind === 'decimal' && isDecimalText(value)) return decimalUnits(value);
  if (kind === 'boolean' && typeof value === 'boolean') return value;
  return undecided();
}

/** A stored value in the form its kind compares (null for NULL). */
function stored(kind: Kind, value: unknown): Cell | null {
  if (value === null || value === undefined) return null;
  if (kind === 'time') return value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
  // Prisma's Decimal writes an exponent past 21 digits or 7 zeros (String): toFixed() never does.
  if (kind === 'decimal') return decimalUnits(typeof value === 'object' && 'toFixed' in value ? String((value as { toFixed(): string }).toFixed()) : String(value));
  return value as string | number | boolean;
}

type Cell = string | number | bigint | boolean;
type Ordered = number | bigint;
const orderings = { lt: (a: Ordered, b: Ordered) => a < b, lte: (a: Ordered, b: Ordered) => a <= b, gt: (a: Ordered, b: Ordered) => a > b, gte: (a: Ordered, b: Ordered) => a >= b };

/** One operator of a column's condition object (`{ in: [...] }`, `{ gte: … }`). */
function operatorTest(name: string, kind: Kind, op: string, value: unknown): Test {
  const cell = (row: Values) => stored(kind, row[name]);
  if (kind === 'list') return listTest(name, op, value);
  switch (op) {
    case 'equals':
    case 'not': {
      if (value === null) return (row) => (cell(row) === null) === (op === 'equals');
      const v = operand(kind, value);
      return (row) => {
        const c = cell(row);
        return c === null ? null : (c === v) === (op === 'equals');
      };
    }
    case 'in':
    case 'notIn': {
      if (!Array.isArray(value)) return undecided();
      // An empty list is decided before any row: nothing is in it (Prisma: always false / always true).
      if (!value.length) return constant(op === 'notIn');
      const set = new Set(value.map((v) => operand(kind, v)));
      return (row) => {
        const c = cell(row);
        return c === null ? null : set.has(c) === (op === 'in');
      };
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      if (kind !== 'number' && kind !== 'decimal' && kind !== 'time') return undecided(); // text order is the collation's
      const v = operand(kind, value) as Ordered;
      const holds = orderings[op];
      return (row) => {
        const c = cell(row) as Ordered | null;
        return c === null ? null : holds(c, v);
      };
    }
    case 'contains':
    case 'startsWith':
    case 'endsWith': {
      if (kind !== 'text' || typeof value !== 'string') return undecided();
      const literal = asSent(unescaped(value));
      const holds = op === 'contains' ? (c: string) => c.includes(literal) : op === 'startsWith' ? (c: string) => c.startsWith(literal) : (c: string) => c.endsWith(literal);
      return (row) => {
        const c = cell(row) as string | null;
        return c === null ? null : holds(c);
      };
    }
    default:
      return undecided();
  }
}

/** An operator on a multiselect (a text[] column). */
function listTest(name: string, op: string, value: unknown): Test {
  const cell = (row: Values) => row[name] as string[] | null | undefined;
  const items = (list: unknown) => (Array.isArray(list) && list.every((v) => typeof v === 'string') ? list.map(asSent) : undecided());
  const test = (holds: (c: string[]) => boolean): Test => (row) => {
    const c = cell(row);
    return c === null || c === undefined ? null : holds(c);
  };
  switch (op) {
    case 'has': {
      const [v] = items([value]);
      return test((c) => c.includes(v!));
    }
    case 'hasSome': {
      const vs = items(value);
      return test((c) => vs.some((v) => c.includes(v)));
    }
    case 'hasEvery': {
      const vs = items(value);
      return test((c) => vs.every((v) => c.includes(v)));
    }
    case 'isEmpty':
      if (typeof value !== 'boolean') return undecided();
      return test((c) => (c.length === 0) === value);
    default:
      return undecided();
  }
}

/** A column's condition: NULL, a value (equality), or an object of operators (ANDed). */
function columnTest(name: string, kind: Kind, given: unknown): Test {
  if (given === null) return (row) => stored(kind, row[name]) === null;
  if (typeof given !== 'object' || given instanceof Date) return kind === 'list' ? undecided() : operatorTest(name, kind, 'equals', given);
  const entries = Object.entries(given as Values).filter(([, v]) => v !== undefined);
  if (entries.some(([op, v]) => op === 'mode' && v !== 'default')) return undecided();
  return everyTrue(entries.filter(([op]) => op !== 'mode').map(([op, v]) => operatorTest(name, kind, op, v)));
}

/** The kinds of the columns a where of `d` may name, by name. */
const kindsOf = new WeakMap<EntityDefinition, Map<string, Kind | null>>();
function columnKinds(d: EntityDefinition): Map<string, Kind | null> {
  let kinds = kindsOf.get(d);
  if (!kinds) {
    const of = (f: FieldDefinition) => {
      try {
        return kindOf(f);
      } catch {
        return null;
      }
    };
    kinds = new Map<string, Kind | null>([['id', 'uuid'], ...whereFields(d).map((f) => [f.name, of(f)] as [string, Kind | null]), ...d.fields.map((f) => [f.name, of(f)] as [string, Kind | null])]);
    kindsOf.set(d, kinds);
  }
  return kinds;
}

/** Prisma's where object (the keys of one object combine with AND). */
function whereTest(d: EntityDefinition, where: unknown): Test {
  if (typeof where !== 'object' || where === null || Array.isArray(where)) return undecided();
  const tests: Test[] = [];
  for (const [key, value] of Object.entries(where as Values)) {
    if (value === undefined) continue;
    if (key === 'AND' || key === 'OR') {
      const parts = Array.isArray(value) ? value : [value];
      // Prisma drops an empty group as if it were absent: never made by where.ts, not decided here.
      if (!parts.length) return undecided();
      const inner = parts.map((w) => whereTest(d, w));
      tests.push(key === 'AND' ? everyTrue(inner) : someTrue(inner));
    } else if (key === 'NOT') {
      const parts = Array.isArray(value) ? value : [value];
      if (!parts.length || parts.some((w) => typeof w === 'object' && w !== null && !Object.keys(w).length)) return undecided();
      // NOT [a, b] is NOT a AND NOT b.
      tests.push(everyTrue(parts.map((w) => negated(whereTest(d, w)))));
    } else {
      const kind = columnKinds(d).get(key);
      if (!kind) return undecided(); // a relation, a reverse side, json, or a name it does not know
      tests.push(columnTest(key, kind, value));
    }
  }
  return everyTrue(tests);
}

/**
 * The records `conditions` (Prisma where objects of `d`, ANDed: what filterWhere makes of a LIST's
 * filters) keep, decided on a row as Prisma reads it (its columns' raw values: dates as Date), exactly
 * as the database would; null when they cannot be decided in memory (read them with SQL).
 */
export function inMemoryFilter(d: EntityDefinition, conditions: readonly unknown[]): ((row: Values) => boolean) | null {
  try {
    const test = everyTrue(conditions.map((w) => whereTest(d, w)));
    return (row) => test(row) === true;
  } catch (error) {
    if (error instanceof Undecided) return null;
    throw error;
  }
}
