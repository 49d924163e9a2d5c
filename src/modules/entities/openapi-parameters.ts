// The parameters of an entity's LIST (and its aggregate and READ): paging, sorting, the fields to
// answer (`fields`, `metas`, `child`, `expand`), each filterable field's equality and `_min`/`_max`,
// the operators (`{field}[op]`) and `filter` (the where as JSON), each with its allowed values.
import { type EntityDefinition, type FieldDefinition, isRanged } from '../../config/entity-definition.js';
import { relationTarget } from '../../config/entity-relations.js';
import { expandables, pickableFields } from './rest-documents.js';
import { ref, type Schema } from './openapi-schemas.js';
import { graphqlNames } from './graphql-names.js';
import { decimalTextPattern } from '../../shared/decimal.js';
import { int32 } from './validate.js';
import { filterableInverses, flagOperators, listOperators, operatorsOf, relationsOf, takesMode, whereFields, whereLimits } from './where.js';

export const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const json = (description: string, schema: Schema, example?: unknown): Schema => ({
  description,
  content: { 'application/json': { schema, ...(example !== undefined ? { example } : {}) } },
});

export const query = (name: string, schema: Schema, description: string, extra: Schema = {}): Schema => ({ name, in: 'query', required: false, description, schema, ...extra });
export const path = (name: string, description: string): Schema => ({ name, in: 'path', required: true, description, schema: { type: 'string', format: 'uuid' } });
/** A comma-separated list in one parameter (`fields=title,status`). */
export const commaList = (items: Schema, maxItems?: number): Schema => ({ type: 'array', items, minItems: 1, ...(maxItems ? { maxItems } : {}) });

export const systemDates = ['createdAt', 'updatedAt'];
export const listParameterNames = new Set(['page', 'limit', 'sortBy', 'sortOrder', 'fields', 'distinct', 'ids', 'search', 'from', 'to', 'dateField', 'metas', 'child', 'expand']);
export const isDateType = (f: FieldDefinition) => f.type === 'date' || f.type === 'datetime';

/** The schema of a filter value as the query string gives it (one value, even for a multiselect). */
export function filterSchema(field: FieldDefinition): Schema {
  switch (field.type) {
    case 'number':
      return { type: 'number' };
    case 'integer':
      return { type: 'integer', format: 'int32', minimum: int32.min, maximum: int32.max };
    case 'decimal':
      return { type: 'string', format: 'decimal', pattern: decimalTextPattern };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'select':
    case 'multiselect':
      return field.enum ? { type: 'string', enum: [...field.enum] } : { type: 'string', maxLength: 500 };
    default:
      return { type: 'string', maxLength: 500 };
  }
}

export function filterParameters(d: EntityDefinition): Schema[] {
  const out: Schema[] = [];
  for (const field of d.fields.filter((f) => f.filterable && !listParameterNames.has(f.name))) {
    // No `example` on filters: Swagger UI would fill every filter in with it when trying LIST out.
    const what = field.type === 'multiselect' ? 'Records whose list holds this value' : 'Records with this value';
    out.push(query(field.name, filterSchema(field), `${what}; filters combine with AND.`));
    if (isRanged(field)) {
      out.push(query(`${field.name}_min`, filterSchema(field), `Records whose ${field.name} is at least this (inclusive).`));
      out.push(query(`${field.name}_max`, filterSchema(field), `Records whose ${field.name} is at most this (inclusive).`));
    }
  }
  return out;
}

/** A field's conditions in `filter`'s JSON: each operator of its type with its value's schema. */
export function conditionSchema(field: FieldDefinition): Schema {
  const value = filterSchema(field);
  const properties: Record<string, Schema> = {};
  for (const op of operatorsOf(field)) {
    properties[op] = flagOperators.has(op) ? { type: 'boolean' } : listOperators.has(op) ? { type: 'array', items: value, minItems: 1, maxItems: whereLimits.listValues } : value;
  }
  if (takesMode(field)) properties.mode = { type: 'string', enum: ['default', 'insensitive'], description: '`insensitive`: comparisons ignore case.' };
  return { type: 'object', additionalProperties: false, properties };
}

/**
 * `TaskWhere`: the JSON of `filter` (GraphQL's `where`), recursive through AND, OR and NOT, into a
 * related record's where (`customer`) and a reverse side's some/none/every (`projects`).
 */
export function whereSchema(d: EntityDefinition): Schema {
  const self = ref(graphqlNames(d).where);
  const related = [...relationsOf(d)].map(([name, f]) => [name, { ...ref(graphqlNames(relationTarget(f)).where), description: `Its ${name} meets these.` }]);
  const referring = [...filterableInverses(d)].map(([name, { source, field }]) => {
    const where = ref(graphqlNames(source).where);
    return [name, { type: 'object', additionalProperties: false, description: `The ${source.slug} whose ${field.relation} this is (among those the caller can see): some, none or every meets the conditions.`, properties: { some: where, none: where, every: where } }];
  });
  return {
    type: 'object',
    additionalProperties: false,
    description: `Conditions on ${d.slug} (the fields' conditions and the groups combine with AND); at most ${whereLimits.depth} levels of groups and ${whereLimits.conditions} conditions.`,
    properties: {
      ...Object.fromEntries(whereFields(d).map((f) => [f.name, conditionSchema(f)])),
      ...Object.fromEntries([...related, ...referring]),
      AND: { type: 'array', items: self, description: 'Every one of these holds.' },
      OR: { type: 'array', items: self, description: 'At least one of these holds.' },
      NOT: self,
    },
  };
}

/** `{field}[op]` for each filterable field's operators, and `filter` for AND/OR/NOT. */
export function operatorParameters(d: EntityDefinition): Schema[] {
  const out: Schema[] = [];
  for (const field of d.fields.filter((f) => f.filterable)) {
    const conditions = conditionSchema(field).properties as Record<string, Schema>;
    for (const [op, schema] of Object.entries(conditions)) {
      const listed = schema.type === 'array';
      out.push(query(`${field.name}[${op}]`, schema, op === 'mode' ? `How the text operators on ${field.name} compare.` : `${field.name} ${op}${listed ? ' (comma-separated values)' : ''}.`, listed ? { style: 'form', explode: false } : {}));
    }
  }
  const names = graphqlNames(d);
  out.push({
    name: 'filter',
    in: 'query',
    required: false,
    description: `The JSON of GraphQL's \`where\` (${names.where}), for AND, OR and NOT: \`{"OR":[{"status":{"eq":"done"}},{"priority":{"in":["high","urgent"]}}]}\`. Values as REST gives them (stored values of selects). Combined with the other filters by AND.`,
    // An empty example: without one, Swagger UI's Try it out fills in a sample of the whole recursive
    // schema, ~100 KB of query string that no server takes (431).
    content: { 'application/json': { schema: ref(names.where), example: {} } },
  });
  return out;
}

/** `fields`, `metas`, `child` and `expand`: what LIST and READ answer with. */
export function shapeParameters(d: EntityDefinition): Schema[] {
  const relations = expandables(d);
  const related = relations.flatMap((r) => r.pickable.map((name) => `${r.name}.${name}`));
  const names = [...pickableFields(d), ...related];
  return [
    query('fields', commaList({ type: 'string', enum: names }), 'Comma-separated names of the members to return.', { style: 'form', explode: false }),
    ...(d.metas ? [query('metas', { type: 'string', enum: ['all'] }, '`all` adds each record\'s `metas` object.')] : []),
    ...(d.children.length ? [query('child', { type: 'string', enum: ['all', ...d.children.map((c) => c.slug)] }, 'Adds the named child records (or all of them) as arrays under their slug.')] : []),
    ...(relations.length
      ? [query('expand', commaList({ type: 'string', enum: relations.map((r) => r.name) }), 'Comma-separated relations (and media fields) whose related record each record carries inline (null when none, or one you cannot see); needs the related entity’s read scope (media: media:read). `fields` may name its members (`customer.name`).', { style: 'form', explode: false })]
      : []),
  ];
}

export function listParameters(d: EntityDefinition): Schema[] {
  const sortable = [...d.fields.filter((f) => f.sortable).map((f) => f.name), ...systemDates];
  const dateFields = [...d.fields.filter(isDateType).map((f) => f.name), ...systemDates];
  return [
    query('page', { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 }, 'Page number, from 1.'),
    query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 10 }, 'Records per page.'),
    query('cursor', { type: 'string', maxLength: 2000 }, 'Cursor mode: the records after this `pagination.nextCursor` of a previous page (same sort and filters; not with `page`).'),
    query('sortBy', { type: 'string', enum: sortable, default: 'createdAt' }, 'Field to sort by (ties broken by id).'),
    query('sortOrder', { type: 'string', enum: ['asc', 'desc'], default: 'desc' }, 'Sort direction.'),
    ...shapeParameters(d),
    query('distinct', { type: 'boolean', default: false }, 'With `fields=<one filterable field>`: the distinct values of that field instead of records.'),
    query('ids', commaList({ type: 'string', format: 'uuid' }, 100), 'Only these records (comma-separated ids, at most 100).', { style: 'form', explode: false }),
    ...(d.fields.some((f) => f.searchable) ? [query('search', { type: 'string', maxLength: 200 }, `Case-insensitive text across ${d.fields.filter((f) => f.searchable).map((f) => f.name).join(', ')}.`)] : []),
    query('from', { type: 'string', format: 'date' }, 'First day of the range on `dateField` (inclusive), YYYY-MM-DD.'),
    query('to', { type: 'string', format: 'date' }, 'Last day of the range on `dateField` (inclusive), YYYY-MM-DD.'),
    query('dateField', { type: 'string', enum: dateFields, default: 'createdAt' }, 'The field `from` and `to` apply to.'),
    ...filterParameters(d),
    ...operatorParameters(d),
  ];
}

/** A group's values of `fields` (key, sums, minimums…): each field's value, or null. */
