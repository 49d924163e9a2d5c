// Aggregation over the records a LIST would answer (the same caller rules, filters and RLS): the
// count, sums and averages of number fields, minimums and maximums of numbers, dates and the stamps,
// for all matching records or per group of up to three fields' values (`groupBy`). Groups come
// sorted by their key (empty values last); more than `maxGroups` is refused with 400 rather than cut.
import { isRanged, type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { checkListQuery, invalidQuery, type ListQuery } from './query.js';
import { delegateOf } from './repository.js';
import { baseWhere, callerFor, countMatching, filterWhere, versionedTeam } from './service.js';
import { atVersion } from './totals.js';
import { shown } from './validate.js';
import type { Values } from './validate.js';

export const maxGroups = 1000;
const maxGroupFields = 3;

/** Fields records may be grouped by: filterable ones with one value each (not multiselects). */
export const groupFields = (d: EntityDefinition) => d.fields.filter((f) => f.filterable && f.type !== 'multiselect');
/** Fields with sums and averages (a decimal's exact, as strings; its average rounded to its scale). */
export const numberFields = (d: EntityDefinition) => d.fields.filter((f) => f.type === 'number' || f.type === 'integer' || f.type === 'decimal');
/** Fields with minimums and maximums: numbers, dates and the stamps. */
export const extremeFields = (d: EntityDefinition): FieldDefinition[] => [
  ...d.fields.filter(isRanged),
  ...['createdAt', 'updatedAt'].map((name) => ({ name, type: 'datetime' }) as FieldDefinition),
];

/** The measures asked, each with the fields it is asked of (none asked: not computed); the count always is. */
export type Measures = Record<'sum' | 'avg' | 'min' | 'max', ReadonlySet<string>>;

/** Every measure of every field that has it. */
export const allMeasures = (d: EntityDefinition): Measures => {
  const numbers = new Set(numberFields(d).map((f) => f.name));
  const extremes = new Set(extremeFields(d).map((f) => f.name));
  return { sum: numbers, avg: numbers, min: extremes, max: extremes };
};

/** LIST's filters (where, filter, search, ids, from/to) and the fields to group by. */
export type AggregateQuery = Pick<ListQuery, 'where' | 'filter' | 'search' | 'ids' | 'from' | 'to' | 'dateField'> & { groupBy?: readonly string[] | null };

export interface AggregateGroup {
  /** The group's value of each groupBy field (as LIST shows values); empty without groupBy. */
  key: Values;
  count: number;
  sum: Values;
  avg: Values;
  min: Values;
  max: Values;
}

/** Prisma's `_sum`… of the fields of `fields` asked, when any is. */
function measure(key: string, fields: FieldDefinition[], asked: ReadonlySet<string>) {
  const named = fields.filter((f) => asked.has(f.name));
  return named.length ? { [key]: Object.fromEntries(named.map((f) => [f.name, true])) } : {};
}

function checkGroupBy(d: EntityDefinition, given: readonly string[]): FieldDefinition[] {
  const allowed = groupFields(d);
  const fields = [...new Set(given)].map((name) => allowed.find((f) => f.name === name));
  if (fields.length > maxGroupFields || fields.some((f) => !f)) {
    const message = fields.length > maxGroupFields ? `at most ${maxGroupFields} fields` : `must name fields among ${allowed.map((f) => f.name).join(', ') || '(none: no filterable field)'}`;
    throw invalidQuery([{ path: 'groupBy', message }]);
  }
  return fields as FieldDefinition[];
}

/** Prisma's aggregate of one row or group as an AggregateGroup (values shown as LIST shows them). */
function groupOf(d: EntityDefinition, by: FieldDefinition[], row: Values): AggregateGroup {
  const part = (name: string, fields: FieldDefinition[]) => {
    const values = (row[name] ?? {}) as Values;
    return Object.fromEntries(fields.map((f) => [f.name, shown(f, values[f.name] ?? null)]));
  };
  return {
    key: Object.fromEntries(by.map((f) => [f.name, shown(f, row[f.name] ?? null)])),
    count: Number((row._count as { _all: number })._all),
    sum: part('_sum', numberFields(d)),
    avg: part('_avg', numberFields(d)),
    min: part('_min', extremeFields(d)),
    max: part('_max', extremeFields(d)),
  };
}

/**
 * The groups of the records LIST would answer for `query`, with the count and the measures `asked`
 * (only those are computed: a count alone is an index-only scan where the sums would read every row).
 */
export async function aggregate(scope: RequestScope, d: EntityDefinition, query: AggregateQuery, asked: Measures = allMeasures(d)): Promise<AggregateGroup[]> {
  const caller = callerFor(scope, d, 'list');
  const { groupBy, ...filters } = query;
  const q = checkListQuery(d, filters, { fields: null, metas: false, children: [] });
  const by = checkGroupBy(d, groupBy ?? []);
  const where = { AND: [...baseWhere(d, caller), ...filterWhere(d, q)] };
  const measures = {
    _count: { _all: true },
    ...measure('_sum', numberFields(d), asked.sum),
    ...measure('_avg', numberFields(d), asked.avg),
    ...measure('_min', extremeFields(d), asked.min),
    ...measure('_max', extremeFields(d), asked.max),
  };
  const tx = await scope.db.tx();
  const model = delegateOf(tx, d.name);
  // A count alone is LIST's total for the same filters, and comes from its cache while the team's rows are unchanged.
  const countOnly = Object.values(asked).every((fields) => fields.size === 0);
  if (!by.length && countOnly) return [groupOf(d, by, { _count: { _all: await countMatching(tx, d, caller, q, where) } })];
  // Any other answer is remembered as a total is, while the team's rows are unchanged (totals.ts).
  const key = { aggregate: where, by: by.map((f) => f.name), measures };
  return atVersion(tx, d.tableName, versionedTeam(caller, q), key, async () => {
    if (!by.length) return [groupOf(d, by, await model.aggregate({ where, ...measures }))];
    // Prisma takes `nulls` only on a nullable column: a required field's groups are plainly sorted.
    const orderBy = by.map((f) => ({ [f.name]: f.required ? 'asc' : { sort: 'asc', nulls: 'last' } }));
    const rows = await model.groupBy({ by: by.map((f) => f.name), where, ...measures, orderBy, take: maxGroups + 1 });
    if (rows.length > maxGroups) {
      throw invalidQuery([{ path: 'groupBy', message: `makes more than ${maxGroups} groups: filter the records or group by fewer fields` }]);
    }
    return rows.map((row) => groupOf(d, by, row));
  }, (groups) => groups.length);
}
