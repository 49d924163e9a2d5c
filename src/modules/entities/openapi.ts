// The OpenAPI operation of one entity route, typed by its definition: operationId, the parameters
// with their allowed values (LIST: paging, sortable fields, date fields, each filterable field and
// its `_min`/`_max`), the request body and every answer with its envelope and a realistic example.
// REST declares one route per entity and operation (rest.ts) and attaches this fragment; the
// document (rest/openapi.ts) puts it in place of what it would derive from the route's zod schemas
// and merges `schemas` into `components.schemas`. A disabled operation has no route, so no fragment.
import { type ChildDefinition, type EntityDefinition, type FieldDefinition, type Operation } from '../../config/entity-definition.js';
import { entitySchemas, ref, schemaNames, type Schema } from './openapi-schemas.js';
import { exampleCreate, exampleRecord, exampleUpdate } from './openapi-examples.js';
import { graphqlNames } from './graphql-names.js';
import { showDecimal } from '../../shared/decimal.js';
import { decimalShape } from './validate.js';
import { extremeFields, groupFields, maxGroups, numberFields } from './aggregate.js';
import { aggregateNames } from './aggregate-schema.js';
import { commaList, filterSchema, json, listParameters, path, query, shapeParameters, upperFirst, whereSchema } from './openapi-parameters.js';

/** What a route's declaration carries into the document (see RestRoute.openapi). */
export interface EntityOpenApi {
  operationId: string;
  summary: string;
  description: string;
  parameters: Schema[];
  requestBody?: Schema;
  responses: Record<string, Schema>;
  /** Component schemas the operation refers to. */
  schemas: Record<string, Schema>;
}

const valuesSchema = (fields: FieldDefinition[], value: (f: FieldDefinition) => Schema): Schema => ({
  type: 'object',
  properties: Object.fromEntries(fields.map((f) => [f.name, { anyOf: [value(f), { type: 'null' }] }])),
});

/** GET /api/v1/{entity}/aggregate: LIST's filters, groupBy and the measures; groups with what was asked for. */
export function aggregateOpenApi(d: EntityDefinition): EntityOpenApi {
  const a = aggregateNames(d);
  const grouped = groupFields(d).map((f) => f.name);
  const numbers = numberFields(d).map((f) => f.name);
  const extremes = extremeFields(d).map((f) => f.name);
  const fieldList = (names: string[]) => commaList({ type: 'string', enum: names });
  const list = { style: 'form', explode: false };
  const parameters = [
    ...(grouped.length ? [query('groupBy', { ...fieldList(grouped), maxItems: 3 }, 'Up to 3 comma-separated fields to group by; none: one group of every matching record.', list)] : []),
    query('count', { type: 'boolean', default: true }, 'Each group’s number of records (false leaves it out).'),
    ...(numbers.length ? [query('sum', fieldList(numbers), 'Sums of these number fields.', list), query('avg', fieldList(numbers), 'Averages of these number fields.', list)] : []),
    query('min', fieldList(extremes), 'Minimums of these fields.', list),
    query('max', fieldList(extremes), 'Maximums of these fields.', list),
    ...listParameters(d).filter((p) => !['page', 'limit', 'cursor', 'sortBy', 'sortOrder', 'fields', 'distinct', 'metas', 'child', 'expand'].includes(p.name as string)),
  ];
  const sumSchema = (f: FieldDefinition): Schema => (f.type === 'decimal' ? filterSchema(f) : { type: 'number' });
  const group: Schema = {
    type: 'object',
    required: ['count'],
    properties: {
      ...(grouped.length ? { key: valuesSchema(groupFields(d), filterSchema) } : {}),
      count: { type: 'integer', minimum: 0 },
      ...(numbers.length ? { sum: valuesSchema(numberFields(d), sumSchema), avg: valuesSchema(numberFields(d), sumSchema) } : {}),
      min: valuesSchema(extremeFields(d), filterSchema),
      max: valuesSchema(extremeFields(d), filterSchema),
    },
  };
  const example = { success: true, data: [{ ...(grouped[0] ? { key: { [grouped[0]]: exampleRecord(d)[grouped[0]] ?? null } } : {}), count: 3, ...(numbers[0] ? { sum: { [numbers[0]]: numberFields(d)[0]!.type === 'decimal' ? showDecimal(9, decimalShape(numberFields(d)[0]!).scale) : 9 } } : {}) }] };
  const scopes = d.permissions.list;
  return {
    operationId: `aggregate${upperFirst(graphqlNames(d).list)}`,
    summary: `Aggregate ${d.pluralName}`,
    description: `Counts, sums, averages, minimums and maximums over the records LIST would answer for the same filters, per group (sorted by key, empty values last, at most ${maxGroups}). ${scopes.length ? `Scope: ${scopes.join(' or ')}.` : 'No scope grants this operation.'}`,
    parameters,
    responses: { '200': json(`Groups of ${d.slug}`, ref(a.result), example), ...errors(d, scopes[0], ['query'], {}) },
    schemas: { ...entitySchemas(d), [graphqlNames(d).where]: whereSchema(d), [a.result]: { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data: { type: 'array', items: group } } } },
  };
}

/** The trash's routes (soft-deleting entities): `list` its records with LIST's parameters, `restore` one. */
export function trashOpenApi(d: EntityDefinition, kind: 'list' | 'restore'): EntityOpenApi {
  const s = schemaNames(d);
  if (kind === 'list') {
    const listed = entityOpenApi(d, 'list');
    return { ...listed, operationId: `list${upperFirst(graphqlNames(d).trash)}`, summary: `List the trash of ${d.slug}`, description: `The deleted ${d.slug} the caller would see were they live, with LIST's parameters. Scope: ${d.permissions.list.join(' or ') || 'none grants it'}.` };
  }
  const scopes = d.permissions.delete;
  return {
    operationId: graphqlNames(d).restore,
    summary: `Restore a ${d.name} from the trash`,
    description: `Takes the record out of the trash, as a new change (its version is kept, its hooks run). 409 naming the field when a live record has taken its unique value since. Scope: ${scopes.join(' or ') || 'none grants it'}.`,
    parameters: [path('id', `The ${d.name}'s id.`)],
    responses: { '200': json(`The restored ${d.name}`, ref(s.one), { success: true, data: { ...exampleRecord(d, { written: true }), deletedAt: null } }), ...errors(d, scopes[0], ['404', '409'], {}) },
    schemas: entitySchemas(d),
  };
}

/** The errors an operation can answer, with the contract's envelopes and messages. */
export function errors(owner: { name: string }, scope: string | undefined, codes: string[], validationExample: Record<string, string>): Record<string, Schema> {
  const all: Record<string, Schema> = {
    '400': codes.includes('query')
      ? json('Invalid query parameters', ref('QueryValidationError'), { success: false, error: 'Invalid query parameters', code: 'VALIDATION_ERROR', details: { errors: [{ path: 'limit', code: 'invalid', message: 'must be an integer from 1 to 100' }] } })
      : json('The body is not a JSON object (empty, malformed, or text with NUL characters)', ref('Error'), { success: false, error: 'Malformed JSON in request body', code: 'VALIDATION_ERROR' }),
    '401': json('No valid session or API key', ref('Error'), { success: false, error: 'Unauthorized', code: 'AUTHENTICATION_FAILED' }),
    '403': json('The caller lacks the scope (or the team its plan limit)', ref('Error'), { success: false, error: scope ? `Insufficient permissions - ${scope} scope required` : 'Forbidden', code: 'FORBIDDEN' }),
    '404': json('No such record, or not one the caller can see', ref('Error'), { success: false, error: `${owner.name} not found`, code: 'NOT_FOUND' }),
    '409': json('A unique field already has this value in the team', ref('Error'), { success: false, error: 'A record with the same unique value already exists in this team', code: 'CONFLICT' }),
    '422': json('Validation failed: `details` maps each refused member to a message', ref('ValidationFailedError'), { success: false, error: 'Validation failed', code: 'VALIDATION_FAILED', details: validationExample }),
    '429': json('Rate limit exceeded (per key and scope, or per tier)', ref('RateLimitError'), { success: false, error: 'Rate limit exceeded', retryAfter: 42 }),
  };
  const wanted = new Set(['401', '403', '429', ...codes.map((c) => (c === 'query' || c === 'body' ? '400' : c))]);
  return Object.fromEntries(Object.entries(all).filter(([status]) => wanted.has(status)));
}

/** What a bad body is told: the first required field missing, a select field's allowed values. */
function validationExample(fields: readonly FieldDefinition[]): Record<string, string> {
  const required = fields.find((f) => f.required);
  const select = fields.find((f) => f.type === 'select');
  return { ...(required ? { [required.name]: 'is required' } : {}), ...(select ? { [select.name]: `must be one of ${select.enum!.join(', ')}` } : {}), ...(!required && !select ? { body: 'at least one field is required' } : {}) };
}

const body = (name: string, example: unknown): Schema => ({ required: true, content: { 'application/json': { schema: ref(name), example } } });

function entityOperation(d: EntityDefinition, operation: Operation): Omit<EntityOpenApi, 'schemas'> {
  const names = graphqlNames(d);
  const s = schemaNames(d);
  const scopes = d.permissions[operation];
  const scopeText = scopes.length ? `Scope: ${scopes.join(' or ')}${d.access.public && (operation === 'list' || operation === 'read') ? ' (none needed to read published records: public entity)' : ''}.` : 'No scope grants this operation.';
  const unique = d.fields.some((f) => f.unique) ? ['409'] : [];
  const record = exampleRecord(d);
  const written = exampleRecord(d, { written: true });
  const id = path('id', `The ${d.name}'s id.`);
  switch (operation) {
    case 'list':
      return {
        operationId: `list${upperFirst(names.list)}`,
        summary: `List ${d.pluralName}`,
        description: `A page of ${d.slug}, filtered, searched and sorted. ${scopeText}`,
        parameters: listParameters(d),
        responses: { '200': json(`A page of ${d.slug}`, ref(s.list), { success: true, data: [record], pagination: { page: 1, limit: 10, total: 1, totalPages: 1, nextCursor: null } }), ...errors(d, scopes[0], ['query'], {}) },
      };
    case 'read':
      return {
        operationId: `get${d.name}`,
        summary: `Get a ${d.name}`,
        description: `One ${d.name} by id. ${scopeText}`,
        parameters: [id, ...shapeParameters(d)],
        responses: { '200': json(`The ${d.name}`, ref(s.one), { success: true, data: record }), ...errors(d, scopes[0], ['query', '404'], {}) },
      };
    case 'create':
      return {
        operationId: names.create,
        summary: `Create a ${d.name}`,
        description: `Required fields must be present; the others take their defaults.${d.planLimit ? ` Counts towards the plan's \`${d.planLimit}\` limit (403 past it).` : ''} ${scopeText}`,
        parameters: [],
        requestBody: body(s.createInput, { ...exampleCreate(d), ...(d.metas ? { metas: { source: 'web' } } : {}) }),
        responses: { '201': json(`The created ${d.name}`, ref(s.one), { success: true, data: written }), ...errors(d, scopes[0], ['body', '422', ...unique], validationExample(d.fields)) },
      };
    case 'update':
      return {
        operationId: names.update,
        summary: `Update a ${d.name}`,
        description: `Partial: only the given members change, \`null\` clears an optional field${d.metas ? ', metas merge (a null value removes a key)' : ''}. ${scopeText}`,
        parameters: [id],
        requestBody: body(s.updateInput, exampleUpdate(d)),
        responses: { '200': json(`The updated ${d.name}`, ref(s.one), { success: true, data: { ...written, ...exampleUpdate(d) } }), ...errors(d, scopes[0], ['body', '404', '422', ...unique], validationExample(d.fields)) },
      };
    case 'delete':
      return {
        operationId: names.delete,
        summary: `Delete a ${d.name}`,
        description: `${d.softDelete ? 'Marks the record deleted (it goes to the trash) and answers it with `deletedAt`; with `purge=true`, removes it for good, live or trashed, and answers a message.' : 'Removes the record.'} ${scopeText}`,
        parameters: [id, query('purge', { type: 'boolean', default: false }, 'Remove the record for good (owners and admins of the team; a private record: its creator). 403 for other roles.')],
        responses: {
          '200': d.softDelete
            ? json(`The ${d.name}, with deletedAt (or, purged, a message)`, { anyOf: [ref(s.one), ref('MessageResponse')] }, { success: true, data: { ...written, deletedAt: '2026-11-23T10:00:00.000Z' } })
            : json(`The ${d.name} is deleted`, ref('MessageResponse'), { success: true, message: `${d.name} deleted` }),
          ...errors(d, scopes[0], ['404'], {}),
        },
      };
  }
}

/** Child routes: `list` (or `read`) lists a record's children; `create`, `update`, `delete` change one. Reads follow the parent's read scope, writes its update scope. */
function childOperation(d: EntityDefinition, child: ChildDefinition, operation: Operation): Omit<EntityOpenApi, 'schemas'> {
  const s = schemaNames(child);
  const prefix = `${d.name}${child.name}`;
  const readScope = d.permissions.read[0];
  const writeScope = d.permissions.update[0];
  const scopeText = (scopes: string[]) => (scopes.length ? `Scope: ${scopes.join(' or ')} (the ${d.name}'s).` : 'No scope grants this operation.');
  const parent = path('id', `The ${d.name}'s id.`);
  const childId = path('childId', `The ${child.name}'s id.`);
  const record = exampleRecord(child, { child: true });
  switch (operation) {
    case 'list':
    case 'read':
      return {
        operationId: `list${prefix}s`,
        summary: `List a ${d.name}'s ${child.slug}`,
        description: `Every ${child.name} of the ${d.name}, oldest first. ${scopeText(d.permissions.read)}`,
        parameters: [parent],
        responses: { '200': json(`The ${child.slug}`, ref(s.list), { success: true, data: [record] }), ...errors(d, readScope, ['404'], {}) },
      };
    case 'create':
      return {
        operationId: `create${prefix}`,
        summary: `Add a ${child.name} to a ${d.name}`,
        description: scopeText(d.permissions.update),
        parameters: [parent],
        requestBody: body(s.createInput, exampleCreate(child)),
        responses: { '201': json(`The created ${child.name}`, ref(s.one), { success: true, data: record }), ...errors(d, writeScope, ['body', '404', '422'], validationExample(child.fields)) },
      };
    case 'update':
      return {
        operationId: `update${prefix}`,
        summary: `Update a ${d.name}'s ${child.name}`,
        description: `Partial: only the given members change. ${scopeText(d.permissions.update)}`,
        parameters: [parent, childId],
        requestBody: body(s.updateInput, exampleUpdate(child)),
        responses: { '200': json(`The updated ${child.name}`, ref(s.one), { success: true, data: { ...record, ...exampleUpdate(child) } }), ...errors(child, writeScope, ['body', '404', '422'], validationExample(child.fields)) },
      };
    case 'delete':
      return {
        operationId: `delete${prefix}`,
        summary: `Delete a ${d.name}'s ${child.name}`,
        description: scopeText(d.permissions.update),
        parameters: [parent, childId],
        responses: { '200': json(`The ${child.name} is deleted`, ref('MessageResponse'), { success: true, message: 'Child record deleted' }), ...errors(child, writeScope, ['404'], {}) },
      };
  }
}

/**
 * The OpenAPI fragment of one entity route: `operation` of `definition`, or, with `child` (a child
 * definition or its slug), of that child's route (`list`/`read`: GET the children).
 */
/**
 * The OpenAPI of an app's custom operation on one record (`POST /api/v1/orders/{id}/pay`): the id in
 * the path, no body, and the record in REST form as its answer; `scope` is the one its field declares.
 */
export function recordActionOpenApi(d: EntityDefinition, action: { operationId: string; summary: string; description: string; scope: string }): EntityOpenApi {
  const s = schemaNames(d);
  return {
    operationId: action.operationId,
    summary: action.summary,
    description: `${action.description} Scope: ${action.scope}.`,
    parameters: [path('id', `The ${d.name}'s id.`)],
    responses: { '200': json(`The ${d.name}`, ref(s.one), { success: true, data: exampleRecord(d, { written: true }) }), ...errors(d, action.scope, ['404', '409', '422'], validationExample(d.fields)) },
    schemas: entitySchemas(d),
  };
}

export function entityOpenApi(definition: EntityDefinition, operation: Operation, child?: ChildDefinition | string): EntityOpenApi {
  const childDefinition = typeof child === 'string' ? definition.children.find((c) => c.slug === child) : child;
  if (child !== undefined && !childDefinition) throw new Error(`Entity ${definition.slug} has no child ${String(child)}`);
  const fragment = childDefinition ? childOperation(definition, childDefinition, operation) : entityOperation(definition, operation);
  return { ...fragment, schemas: { ...entitySchemas(definition), ...(operation === 'list' ? { [graphqlNames(definition).where]: whereSchema(definition) } : {}) } };
}
