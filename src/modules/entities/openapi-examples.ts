// Examples of an entity's records and bodies for its OpenAPI document, made from the sanitized
// definition and checked against its rules (a pattern, min/max, an enum), so that Swagger UI shows
// a record the API would accept.
import { type ChildDefinition, type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { parseDecimal } from '../../shared/decimal.js';
import { decimalShape } from './validate.js';

type Owner = EntityDefinition | ChildDefinition;

const textSamples: Record<string, string> = {
  title: 'Prepare the quarterly report',
  name: 'Acme Corporation',
  description: 'Collect the figures from each office and summarise them.',
  body: 'Called about the renewal; send the new prices on Monday.',
  excerpt: 'What changed this quarter, in two paragraphs.',
  slug: 'quarterly-report',
  phone: '+34 910 000 000',
  office: 'Madrid',
  salesRep: 'Ana García',
};

const matches = (field: FieldDefinition, value: string) => {
  const { min, max, pattern } = field.validation ?? {};
  return (min === undefined || value.length >= min) && (max === undefined || value.length <= max) && (pattern === undefined || new RegExp(pattern, 'u').test(value));
};

/** A value the service accepts for `field`, or undefined when none of the samples fits its rules. */
export function exampleValue(field: FieldDefinition): unknown {
  const { min, max } = field.validation ?? {};
  const clamp = (n: number) => Math.min(max ?? n, Math.max(min ?? n, n));
  switch (field.type) {
    case 'number':
      return clamp(8);
    case 'integer':
      return Math.round(clamp(1042));
    case 'decimal': {
      const parsed = parseDecimal(clamp(12.5), decimalShape(field));
      return 'value' in parsed ? parsed.value : undefined;
    }
    case 'boolean':
      return typeof field.default === 'boolean' ? field.default : false;
    case 'date':
      return '2026-12-01';
    case 'datetime':
      return '2026-11-23T09:30:00.000Z';
    case 'select':
      return typeof field.default === 'string' ? field.default : field.enum![0];
    case 'multiselect':
      return field.enum ? field.enum.slice(0, 2) : ['important'];
    case 'json':
      return { source: 'import' };
    case 'email':
      return ['ana@example.com'].find((v) => matches(field, v));
    case 'url':
      return ['https://example.com'].find((v) => matches(field, v));
    case 'relation':
      return field.many ? [ids.relatedId] : ids.relatedId;
    case 'media':
      return field.many ? [ids.mediaId] : ids.mediaId;
    default:
      return [textSamples[field.name], `Example ${field.name}`, 'example', 'example-1', 'x'].find((v): v is string => v !== undefined && matches(field, v));
  }
}

function exampleFields(fields: readonly FieldDefinition[], only?: (f: FieldDefinition) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (only && !only(field)) continue;
    const value = exampleValue(field);
    if (value !== undefined) out[field.name] = value;
  }
  return out;
}

const ids = { id: '7d0f6a52-3c1e-4b8a-9f3e-2a6c1d9b4e10', userId: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed', teamId: '9b2f3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', parentId: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', relatedId: '5c8e2a1f-6d3b-4e9a-8b7c-1f0e2d3c4b5a', mediaId: 'a4c1e7b2-9d3f-4e6a-8b1c-2d5f7e9a0b3c' };

/** A record as REST answers it (`written`: a write's answer, with metas when the entity has them). */
export function exampleRecord(owner: Owner, options: { child?: boolean; written?: boolean } = {}): Record<string, unknown> {
  const { child = false, written = false } = options;
  const entity = 'slug' in owner && 'access' in owner ? (owner as EntityDefinition) : null;
  return {
    id: ids.id,
    ...exampleFields(owner.fields),
    ...exampleFields(entity?.links ?? []),
    ...exampleFields(owner.virtuals),
    createdAt: '2026-11-20T08:15:00.000Z',
    updatedAt: '2026-11-21T16:40:00.000Z',
    userId: ids.userId,
    teamId: ids.teamId,
    ...(child ? { parentId: ids.parentId } : {}),
    ...(entity?.softDelete ? { deletedAt: null } : {}),
    ...(entity?.metas && written ? { metas: { source: 'web' } } : {}),
  };
}

/** A create body: the required fields and a few others. */
export function exampleCreate(owner: Owner): Record<string, unknown> {
  return exampleFields(owner.fields, (f) => f.required || f.type === 'select' || f.type === 'date');
}

/** An update body: one or two fields. */
export function exampleUpdate(owner: Owner): Record<string, unknown> {
  const field = owner.fields.find((f) => f.type === 'select') ?? owner.fields.find((f) => f.required) ?? owner.fields[0]!;
  const value = field.type === 'select' ? (field.enum![1] ?? field.enum![0]) : exampleValue(field);
  return value === undefined ? {} : { [field.name]: value };
}
