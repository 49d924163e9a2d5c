// OpenAPI component schemas of one entity (or child) definition: the record as REST answers it, the
// create and update bodies as validate.ts accepts them, and the envelopes around them. Everything is
// derived from the sanitized definition, so the document says what the service enforces: types,
// `required`, enums with the stored strings, min/max, patterns, formats, and `null` where a field
// may be cleared. Examples: openapi-examples.ts.
import { type ChildDefinition, type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { mediaFields, readableLinks, readableRelations, relationTarget } from '../../config/entity-relations.js';
import { graphqlNames } from './graphql-names.js';
import { expandedLinks } from './rest-documents.js';
import { decimalShape, int32 } from './validate.js';

export type Schema = Record<string, unknown>;
type Owner = EntityDefinition | ChildDefinition;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const uuid = { type: 'string', format: 'uuid' };
const dateTime = { type: 'string', format: 'date-time' };

/** Component names of one definition's schemas. */
export function schemaNames(owner: Owner) {
  const { type, createInput, updateInput } = graphqlNames(owner);
  return { record: type, createInput, updateInput, list: `${type}ListResponse`, one: `${type}Response` };
}

/** The schema of a field's value (never null). */
function valueSchema(field: FieldDefinition): Schema {
  const { min, max, pattern } = field.validation ?? {};
  const text = { type: 'string', ...(min !== undefined ? { minLength: Math.max(0, Math.ceil(min)) } : {}), ...(max !== undefined ? { maxLength: Math.max(0, Math.floor(max)) } : {}), ...(pattern !== undefined ? { pattern } : {}) };
  const range = { ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}) };
  switch (field.type) {
    case 'string':
    case 'text':
      return text;
    case 'email':
      return { ...text, format: 'email' };
    case 'url':
      return { ...text, format: 'uri', description: 'An http(s) URL' };
    case 'number':
      return { type: 'number', ...range };
    case 'decimal': {
      const { precision, scale } = decimalShape(field);
      const bounds = [min !== undefined ? `at least ${min}` : '', max !== undefined ? `at most ${max}` : ''].filter(Boolean).join(' and ');
      return {
        type: 'string',
        format: 'decimal',
        pattern: scale ? `^-?\\d{1,${precision - scale}}(\\.\\d{1,${scale}})?$` : `^-?\\d{1,${precision}}$`,
        description: `An exact decimal of ${precision - scale} digits before the point and ${scale} after, as a string (answers have exactly ${scale} after it)${bounds ? `, ${bounds}` : ''}.`,
      };
    }
    case 'integer':
      // A 32-bit column: the definition's bounds within it.
      return { type: 'integer', format: 'int32', minimum: Math.max(min ?? int32.min, int32.min), maximum: Math.min(max ?? int32.max, int32.max) };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return dateTime;
    case 'select':
      return { type: 'string', enum: [...field.enum!] };
    case 'multiselect':
      return { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100, ...(field.enum ? { enum: [...field.enum] } : {}) } };
    case 'json':
      return { description: 'Any JSON value' };
    case 'relation':
      if (field.many) return { type: 'array', items: uuid, maxItems: 100, uniqueItems: true, description: `Ids of ${field.to} records of the team (the related ${field.relation}); the ones you can see, up to 100.` };
      return { ...uuid, description: `The id of a ${field.to} record of the team (the related ${field.relation}).` };
    case 'media':
      if (field.many) return { type: 'array', items: uuid, maxItems: 100, uniqueItems: true, description: `Ids of media of the team (the ${field.relation}, in order), up to 100.` };
      return { ...uuid, description: `The id of a media record of the team (the ${field.relation}).` };
  }
}

/** `schema` that also takes null (a JSON field already takes anything). */
function orNull(schema: Schema): Schema {
  if (typeof schema.type !== 'string') return schema;
  return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
}

function described(field: FieldDefinition, schema: Schema): Schema {
  const notes = [field.label, field.unique ? 'Unique within a team.' : undefined].filter(Boolean);
  return notes.length ? { ...schema, description: [schema.description, ...notes].filter(Boolean).join('. ') } : schema;
}

// ---- components -------------------------------------------------------------------------------

/** A media record as an expanded media field gives it (rest-documents mediaSelection; with `fields`, only the named members). */
const expandedMedia: Schema = {
  type: 'object',
  description: 'A media record of the team (GET /api/v1/media/{id}).',
  properties: {
    id: uuid,
    url: { type: 'string' },
    filename: { type: 'string' },
    mimeType: { type: 'string' },
    fileSize: { type: 'integer', description: 'Bytes.' },
    width: { type: ['integer', 'null'] },
    height: { type: ['integer', 'null'] },
    title: { type: ['string', 'null'] },
    alt: { type: ['string', 'null'] },
    caption: { type: ['string', 'null'] },
    renditions: {
      type: 'array',
      description: 'Resized copies of an uploaded image (WebP, GET with media:read); empty for videos and registered files.',
      items: { type: 'object', properties: { width: { type: 'integer' }, url: { type: 'string', description: '/api/v1/media/{id}/render?w=…' } }, required: ['width', 'url'] },
    },
    createdAt: dateTime,
    updatedAt: dateTime,
    userId: uuid,
    teamId: uuid,
  },
};

const metasSchema = (clearable: boolean): Schema => ({
  type: 'object',
  description: clearable ? 'Merged into the stored metas; a null value removes the key.' : 'String keys to string values.',
  maxProperties: 100,
  propertyNames: { minLength: 1, maxLength: 100 },
  additionalProperties: clearable ? { type: ['string', 'null'], maxLength: 10_000 } : { type: 'string', maxLength: 10_000 },
});

function recordSchema(owner: Owner, parent: EntityDefinition | null): Schema {
  const entity = parent ? null : (owner as EntityDefinition);
  const properties: Record<string, Schema> = { id: uuid };
  for (const f of owner.fields) properties[f.name] = described(f, f.required || f.type === 'multiselect' ? valueSchema(f) : orNull(valueSchema(f)));
  for (const f of entity?.links ?? []) properties[f.name] = valueSchema(f);
  for (const f of owner.virtuals) properties[f.name] = { ...described(f, orNull(valueSchema(f))), readOnly: true };
  Object.assign(properties, {
    createdAt: dateTime,
    updatedAt: dateTime,
    userId: { ...uuid, description: 'The creator; absent for anonymous readers of public entities.' },
    teamId: { ...uuid, description: 'The owning team; absent for anonymous readers of public entities.' },
  });
  if (parent) properties.parentId = { ...uuid, description: `The ${parent.name} this record belongs to.` };
  if (entity?.softDelete) properties.deletedAt = { type: ['string', 'null'], format: 'date-time', description: 'Set by a (soft) delete.' };
  if (entity?.metas) properties.metas = { ...metasSchema(false), description: 'With `metas=all`, and in write answers.' };
  for (const child of entity?.children ?? []) properties[child.slug] = { type: 'array', items: ref(child.name), description: `With \`child=${child.slug}\` or \`child=all\`: the ${child.slug}, oldest first.` };
  for (const f of entity ? readableRelations(entity) : []) {
    properties[f.relation] = { anyOf: [ref(relationTarget(f).name), { type: 'null' }], description: `With \`expand=${f.relation}\`: the ${relationTarget(f).name} of ${f.name}, null when none or one you cannot see.` };
  }
  for (const f of entity ? mediaFields(entity) : []) {
    properties[f.relation] = f.many
      ? { type: 'array', items: expandedMedia, description: `With \`expand=${f.relation}\`: the media of ${f.name}, in order (active ones).` }
      : { anyOf: [expandedMedia, { type: 'null' }], description: `With \`expand=${f.relation}\`: the media of ${f.name}, null when none.` };
  }
  for (const f of entity ? readableLinks(entity) : []) {
    properties[f.relation] = { type: 'array', items: ref(relationTarget(f).name), maxItems: expandedLinks, description: `With \`expand=${f.relation}\`: the ${f.to} records of ${f.name} you can see, the ${expandedLinks} oldest.` };
  }
  const required = ['id', ...owner.fields.map((f) => f.name), ...(entity?.links ?? []).map((f) => f.name), ...owner.virtuals.map((f) => f.name), 'createdAt', 'updatedAt', ...(parent ? ['parentId'] : []), ...(entity?.softDelete ? ['deletedAt'] : [])];
  return { type: 'object', description: `A ${owner.name} record.${parent ? '' : ' With `fields`, only the named members are present.'}`, properties, required };
}

function inputSchema(owner: Owner, entity: EntityDefinition | null, update: boolean): Schema {
  const properties: Record<string, Schema> = {};
  for (const f of owner.fields) {
    const value = described(f, f.required ? valueSchema(f) : orNull(valueSchema(f)));
    properties[f.name] = !update && f.default !== undefined ? { ...value, default: f.default } : value;
  }
  for (const f of entity?.links ?? []) properties[f.name] = described(f, orNull(valueSchema(f)));
  if (entity?.metas) properties.metas = metasSchema(update);
  const required = update ? [] : owner.fields.filter((f) => f.required && f.default === undefined).map((f) => f.name);
  return {
    type: 'object',
    description: update ? 'Only the given members change; null clears an optional field. At least one member.' : 'Fields left out take their default.',
    properties,
    ...(required.length ? { required } : {}),
    ...(update ? { minProperties: 1 } : {}),
    additionalProperties: false,
  };
}

/** Schemas every entity operation refers to. */
export const sharedSchemas: Record<string, Schema> = {
  Pagination: {
    type: 'object',
    required: ['page', 'limit', 'total', 'totalPages', 'nextCursor'],
    properties: {
      page: { type: ['integer', 'null'], minimum: 1, description: 'Null in cursor mode (`cursor`).' },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      total: { type: 'integer', minimum: 0 },
      totalPages: { type: 'integer', minimum: 0 },
      nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the records after this page (keyset: stable under inserts and deletes); null on the last page.' },
    },
  },
  DistinctValue: {
    type: 'object',
    description: 'One value of a field, in distinct mode (`distinct=true` with one filterable field in `fields`).',
    required: ['value', 'label', 'entityType'],
    properties: { value: {}, label: { type: 'string' }, entityType: { type: 'string' } },
  },
  MessageResponse: { type: 'object', required: ['success', 'message'], properties: { success: { const: true }, message: { type: 'string' } } },
  QueryValidationError: {
    type: 'object',
    description: '`Invalid query parameters` with every refused parameter in `details.errors`; a parameter given twice or holding NUL names it in `details.parameter`.',
    required: ['success', 'error', 'code'],
    properties: {
      success: { const: false },
      error: { type: 'string' },
      code: { type: 'string', description: 'VALIDATION_ERROR' },
      details: {
        type: 'object',
        properties: {
          errors: { type: 'array', items: { type: 'object', required: ['path', 'code', 'message'], properties: { path: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } } } },
          parameter: { type: 'string' },
        },
      },
    },
  },
  ValidationFailedError: {
    type: 'object',
    description: '`Validation failed`: `details` maps each refused member to what is wrong with it.',
    required: ['success', 'error', 'code', 'details'],
    properties: { success: { const: false }, error: { type: 'string' }, code: { const: 'VALIDATION_FAILED' }, details: { type: 'object', additionalProperties: { type: 'string' } } },
  },
  RateLimitError: {
    type: 'object',
    required: ['success', 'error', 'retryAfter'],
    properties: { success: { const: false }, error: { type: 'string' }, retryAfter: { type: 'integer', description: 'Seconds until the limit resets' } },
  },
};

/** The component schemas of one definition (its children included), by name. */
export function entitySchemas(definition: EntityDefinition): Record<string, Schema> {
  const out: Record<string, Schema> = { ...sharedSchemas };
  const add = (owner: Owner, parent: EntityDefinition | null) => {
    const names = schemaNames(owner);
    const entity = parent ? null : definition;
    out[names.record] = recordSchema(owner, parent);
    out[names.createInput] = inputSchema(owner, entity, false);
    out[names.updateInput] = inputSchema(owner, entity, true);
    out[names.one] = { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data: ref(names.record) } };
    out[names.list] = parent
      ? { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data: { type: 'array', items: ref(names.record) } } }
      : {
          type: 'object',
          required: ['success', 'data', 'pagination'],
          properties: {
            success: { const: true },
            data: { type: 'array', items: { anyOf: [ref(names.record), ref('DistinctValue')] }, description: `${owner.name} records; DistinctValue items in distinct mode.` },
            pagination: ref('Pagination'),
          },
        };
  };
  add(definition, null);
  for (const child of definition.children) add(child, definition);
  return out;
}
