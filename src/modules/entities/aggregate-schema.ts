// GraphQL face of aggregation (aggregate.ts), per entity with LIST: `tasksAggregate(groupBy:
// [TaskGroupField!], where, filter, search, ids, from, to, dateField)` → `TaskAggregate { groups {
// key { status } count sum { estimatedHours } avg { … } min { … } max { … } } }`, with LIST's scopes.
import type { GraphQLResolveInfo } from 'graphql';
import type { EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import type { Builder } from '../../graphql/builder.js';
import { selectedBelow } from '../../graphql/selection.js';
import { aggregate, extremeFields, groupFields, maxGroups, numberFields, type AggregateGroup, type AggregateQuery, type Measures } from './aggregate.js';
import { graphqlNames } from './graphql-names.js';
import type { AnyRef, EntityTypes } from './graphql-refs.js';
import { valueType } from './graphql-types.js';

type Values = Record<string, unknown>;
type Loose = { expose: (name: string, options: object) => unknown };

/** The fields each measure is selected for (`groups { sum { estimatedHours } }`). */
const measuresAsked = (info: GraphQLResolveInfo): Measures => ({
  sum: selectedBelow(info, ['groups', 'sum']),
  avg: selectedBelow(info, ['groups', 'avg']),
  min: selectedBelow(info, ['groups', 'min']),
  max: selectedBelow(info, ['groups', 'max']),
});

/** Names of the aggregate's types and field: `TaskAggregate`, `tasksAggregate`… */
export function aggregateNames(d: EntityDefinition) {
  const { type, list } = graphqlNames(d);
  return { field: `${list}Aggregate`, result: `${type}Aggregate`, group: `${type}AggregateGroup`, groupField: `${type}GroupField`, key: `${type}GroupKey`, numbers: `${type}Numbers`, extremes: `${type}Extremes` };
}

/** An object of nullable values, one per field (a group's key, its sums, its minimums…). */
function valuesType(b: Builder, name: string, description: string, fields: FieldDefinition[], type: (f: FieldDefinition) => unknown): AnyRef {
  return b.objectRef<Values>(name).implement({
    description,
    fields: (t) => Object.fromEntries(fields.map((f) => [f.name, (t as unknown as Loose).expose(f.name, { type: type(f), nullable: true })])) as never,
  }) as unknown as AnyRef;
}

export function registerAggregate(b: Builder, d: EntityDefinition, types: EntityTypes, authScopes: unknown): void {
  const names = aggregateNames(d);
  const grouped = groupFields(d);
  const numbers = numberFields(d);
  const valueOf = (f: FieldDefinition) => valueType(f, types.enums);
  const key = grouped.length ? valuesType(b, names.key, `A group's value of each groupBy field (null for the others).`, grouped, valueOf) : null;
  const groupField = grouped.length ? b.enumType(names.groupField, { description: `Fields ${d.slug} group by.`, values: Object.fromEntries(grouped.map((f) => [f.name, { value: f.name }])) }) : null;
  // Sums of integers may pass what an Int holds: sums and averages are Floats, a decimal's Decimals (exact).
  const sums = numbers.length ? valuesType(b, names.numbers, `Sums or averages of ${d.name}'s number fields (null when no record has a value).`, numbers, (f) => (f.type === 'decimal' ? 'Decimal' : 'Float')) : null;
  const extremes = valuesType(b, names.extremes, `Minimums or maximums of ${d.name}'s numbers, dates and stamps.`, extremeFields(d), valueOf);

  const group = b.objectRef<AggregateGroup>(names.group).implement({
    description: `The records of one group of ${d.slug} (all matching records without groupBy).`,
    fields: (t) => ({
      ...(key ? { key: t.field({ type: key as never, resolve: (g) => g.key as never }) } : {}),
      count: t.int({ resolve: (g) => g.count }),
      ...(sums ? { sum: t.field({ type: sums as never, resolve: (g) => g.sum as never }), avg: t.field({ type: sums as never, resolve: (g) => g.avg as never }) } : {}),
      min: t.field({ type: extremes as never, resolve: (g) => g.min as never }),
      max: t.field({ type: extremes as never, resolve: (g) => g.max as never }),
    }),
  });
  const result = b.objectRef<AggregateGroup[]>(names.result).implement({
    fields: (t) => ({ groups: t.field({ type: [group], description: `Sorted by key, empty values last; at most ${maxGroups}.`, resolve: (groups) => groups }) }),
  });

  b.queryFields((t) => ({
    [names.field]: t.field({
      type: result,
      description: `Counts, sums, averages, minimums and maximums of ${d.slug}, over the records LIST would answer for the same filters, optionally per group.`,
      authScopes: authScopes as never,
      args: {
        ...(groupField ? { groupBy: t.arg({ type: [groupField] as never, description: 'Up to 3 fields; none: one group of every matching record.' }) } : {}),
        ...(types.where ? { where: t.arg({ type: types.where as never }) } : {}),
        ...(types.filter ? { filter: t.arg({ type: types.filter as never }) } : {}),
        search: t.arg.string(),
        ids: t.arg.idList(),
        from: t.arg({ type: 'Date' }),
        to: t.arg({ type: 'Date' }),
        dateField: t.arg({ type: types.dateField as never }),
      },
      // Only the measures selected are computed (REST's `sum=`… are `@include`s of its document).
      resolve: (_root, args, ctx, info) => aggregate(ctx, d, args as AggregateQuery, measuresAsked(info)) as never,
    }),
  }));
}
