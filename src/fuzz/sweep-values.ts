// The values a sweep gives an operator, by class: in range, at a boundary (the edges of the column and
// of the limits), of the wrong type, and hostile (NUL, 2^31, 1e999, `__proto__`, a lone surrogate…).
// Chosen from what an operator takes (a flag for isNull/isEmpty, a list for in/notIn/hasSome/hasEvery,
// a mode, else one value) and the field's kind of value, written as each face writes it: REST's query
// string and `filter` JSON take stored values (`in-progress`), GraphQL its enum names (`IN_PROGRESS`).
import type { EntityDefinition, FieldDefinition } from '../config/entity-definition.js';
import { refText } from './hostile-values.js';
import type { JsonTree } from './json-text.js';

/** The kinds of values a condition compares with. */
export interface ValueKind {
  type: 'text' | 'int' | 'float' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'id' | 'enum';
  /** An enumeration's values: stored and as a GraphQL enum value name. */
  values?: { stored: string; name: string }[];
  /** A relation's target entity (its slug), whose seeded records are valid ids. */
  target?: string;
  min?: number;
  max?: number;
}

export const valueClasses = ['valid', 'boundary', 'wrong', 'hostile'] as const;
export type ValueClass = (typeof valueClasses)[number];
/** How a face writes a value: REST (query string, `filter` JSON: stored values) or GraphQL (enum names). */
export type Face = 'rest' | 'graphql';

/** Every operator of `where` (where.ts), `mode`, and one that no type has. */
export const everyOperator = ['eq', 'ne', 'in', 'notIn', 'lt', 'lte', 'gt', 'gte', 'contains', 'startsWith', 'endsWith', 'isNull', 'has', 'hasSome', 'hasEvery', 'isEmpty', 'mode', 'like'] as const;
const flagOperators = new Set(['isNull', 'isEmpty']);
const listOperators = new Set(['in', 'notIn', 'hasSome', 'hasEvery']);

/** `in-progress` → `IN_PROGRESS`, as the GraphQL schema names a stored value (graphql-names.ts). */
const enumName = (value: string) => {
  const name = value.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '') || '_';
  return /^[0-9]/.test(name) ? `_${name}` : name;
};

/** The kind of `field`'s values (the stamps createdAt and updatedAt are datetimes). */
export function kindOf(field: Pick<FieldDefinition, 'type' | 'enum' | 'to' | 'validation'>): ValueKind {
  const range = { min: field.validation?.min, max: field.validation?.max };
  switch (field.type) {
    case 'integer':
      return { type: 'int', ...range };
    case 'number':
      return { type: 'float', ...range };
    case 'decimal':
      return { type: 'decimal', ...range };
    case 'boolean':
    case 'date':
    case 'datetime':
      return { type: field.type };
    case 'relation':
      return { type: 'id', target: field.to };
    case 'media':
      return { type: 'id' };
    case 'select':
    case 'multiselect':
      return field.enum ? { type: 'enum', values: field.enum.map((stored) => ({ stored, name: enumName(stored) })) } : { type: 'text' };
    default:
      return { type: 'text' };
  }
}

/** The kind of the value named `name` in a where of `d`: a field, a stamp, else text. */
export function kindNamed(d: EntityDefinition, name: string): ValueKind {
  if (name === 'createdAt' || name === 'updatedAt') return { type: 'datetime' };
  const field = d.fields.find((f) => f.name === name) ?? d.links.find((f) => f.name === name);
  return field ? kindOf(field) : { type: 'text' };
}

/** What an attacker puts in a filter, one per case in turn. */
const hostileValues: JsonTree[] = ['\u0000', '2147483648', { raw: '1e999' }, '__proto__', "' OR 1=1 --", '%_\\', '\ud800', '10000-01-01', '+275760-09-13T00:00:00.000Z', -0, { raw: '9007199254740993' }, 'ǅİﬃ', null, { entries: [['__proto__', { entries: [['x', 1]] }]] }, 'x'.repeat(10_001), '-1e308'];

const pick = <T>(list: readonly T[], n: number): T => list[n % list.length]!;

/** One value of `kind` in class `klass` (`n` turns among the class's values). */
export function oneValue(kind: ValueKind, klass: ValueClass, n: number, face: Face): JsonTree {
  const stored = (i: number) => (face === 'graphql' ? kind.values![i]!.name : kind.values![i]!.stored);
  if (klass === 'hostile') return pick(hostileValues, n);
  switch (kind.type) {
    case 'text':
      return klass === 'valid' ? 'seed' : klass === 'boundary' ? pick(['', 'x'.repeat(500), 'É'], n) : face === 'rest' ? 'x'.repeat(501) : pick<JsonTree>([12, { entries: [] }, ['a']], n);
    case 'int':
      return klass === 'valid' ? Math.max(kind.min ?? 0, 0) + 3 : klass === 'boundary' ? pick([kind.min ?? -2147483648, kind.max ?? 2147483647, 0], n) : pick<JsonTree>(['three', 1.5, ''], n);
    case 'float':
      return klass === 'valid' ? Math.max(kind.min ?? 0, 0) + 1.5 : klass === 'boundary' ? pick([kind.min ?? -1e308, kind.max ?? 1e308, -0, 5e-324], n) : pick<JsonTree>(['1,5', 'NaN', ''], n);
    case 'decimal':
      // Conditions compare with any decimal, whatever the column's digits (a string; JSON numbers too in REST's filter).
      return klass === 'valid' ? '12.50' : klass === 'boundary' ? pick<JsonTree>(['0', '-0.01', '9'.repeat(40), `0.${'0'.repeat(39)}1`], n) : pick<JsonTree>(['twelve', '1e3', '1,5', '.5'], n);
    case 'boolean':
      return klass === 'valid' ? true : klass === 'boundary' ? false : pick<JsonTree>(['yes', 1, 'TRUE'], n);
    case 'date':
      return klass === 'valid' ? '2030-01-02' : klass === 'boundary' ? pick(['0001-01-01', '9999-12-31'], n) : pick(['2030-02-30', '2030-1-2', '2030-01-02T00:00:00Z'], n);
    case 'datetime':
      return klass === 'valid' ? '2030-01-01T00:00:00.000Z' : klass === 'boundary' ? pick(['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z'], n) : pick<JsonTree>(['2030-01-01', 'yesterday', 1700000000], n);
    case 'id':
      // The fuzzing caller's own record of the target (valid), the victim's (a boundary of another kind), or the nil id.
      if (klass === 'valid') return kind.target ? refText(`attacker.${kind.target}Id`) : '00000000-0000-4000-8000-000000000000';
      return klass === 'boundary' ? pick([kind.target ? refText(`victim.${kind.target}Id`) : '00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000'], n) : pick(['not-a-uuid', 'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ'], n);
    case 'enum':
      // A REST client may give GraphQL's name in JSON; a GraphQL client may not give the stored value.
      return klass === 'valid' ? stored(0) : klass === 'boundary' ? stored(kind.values!.length - 1) : pick(['not-a-value', face === 'graphql' ? kind.values![0]!.stored : kind.values![0]!.name.toLowerCase() + '!'], n);
  }
}

/** The operand of `op` on a field of `kind` in class `klass`: a flag, a list, a mode or one value. */
export function operand(kind: ValueKind, op: string, klass: ValueClass, n: number, face: Face): JsonTree {
  if (flagOperators.has(op)) return klass === 'valid' ? true : klass === 'boundary' ? false : klass === 'wrong' ? pick<JsonTree>(['yes', 1, 'TRUE'], n) : pick(hostileValues, n);
  if (op === 'mode') {
    const [insensitive, exact] = face === 'graphql' ? ['INSENSITIVE', 'DEFAULT'] : ['insensitive', 'default'];
    return klass === 'valid' ? insensitive : klass === 'boundary' ? exact : klass === 'wrong' ? pick<JsonTree>(['loose', true], n) : pick(hostileValues, n);
  }
  if (!listOperators.has(op)) return oneValue(kind, klass, n, face);
  const one = oneValue(kind, 'valid', n, face);
  switch (klass) {
    case 'valid':
      return [one, oneValue(kind, 'boundary', n, face)];
    case 'boundary':
      // The limit of a list (100 values), or one value.
      return n % 2 ? [one] : Array.from({ length: 100 }, () => one);
    case 'wrong':
      return pick<JsonTree>([[], one, Array.from({ length: 101 }, () => one)], n);
    default:
      return [pick(hostileValues, n), one];
  }
}
