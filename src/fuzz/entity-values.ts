// Values of entity fields, read from the entity definitions: a valid record for seeding, and
// arbitraries of valid field values that the fuzzer mixes with hostile ones, so entity bodies and
// filters get past validation often enough to reach the database.
import fc from 'fast-check';
import type { FieldDefinition } from '../config/entity-definition.js';

/** A valid value of `field`, distinct per `n` (unique fields). */
function sampleValue(field: FieldDefinition, n: number): unknown {
  const min = field.validation?.min;
  switch (field.type) {
    case 'number':
    case 'integer':
      return Math.max(min ?? 0, 0) + n + 1;
    case 'decimal':
      return `${Math.max(min ?? 0, 0) + n + 1}.25`;
    case 'boolean':
      return true;
    case 'date':
      return '2030-01-0' + ((n % 9) + 1);
    case 'datetime':
      return '2030-01-01T00:00:00.000Z';
    case 'select':
      return field.enum?.[0] ?? 'a';
    case 'multiselect':
      return field.enum ? [field.enum[0]] : ['a'];
    case 'json':
      return { n };
    case 'email':
      return `seed${n}@example.com`;
    case 'url':
      return `https://example.com/${n}`;
    case 'relation':
    case 'media':
      // No record to relate to in a seed: the id of none (a required relation's seed is refused with 422).
      return field.many ? [] : '00000000-0000-4000-8000-000000000000';
    default:
      return `seed-${n}-${Math.random().toString(36).slice(2, 8)}`;
  }
}

/** A record with every required field valid (and unique where the field is unique); with `all`, every field but relations. */
export function sampleRecord(fields: readonly FieldDefinition[], n: number, all = false): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => f.required || (all && f.type !== 'relation' && f.type !== 'media')).map((f) => [f.name, sampleValue(f, n)]));
}

/** Valid-looking values of `field` (edges of its range included). */
export function fieldValue(field: FieldDefinition): fc.Arbitrary<unknown> {
  const min = field.validation?.min;
  const max = field.validation?.max;
  switch (field.type) {
    case 'number':
      return fc.oneof(fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true }), fc.constantFrom(min ?? 0, max ?? 0));
    case 'integer':
      return fc.integer({ min: min ?? -1e6, max: max ?? 1e6 });
    case 'decimal':
      // Strings at the field's scale (and past it, refused), and JSON numbers.
      return fc.oneof(fc.tuple(fc.integer({ min: min ?? -1e6, max: max ?? 1e6 }), fc.integer({ min: 0, max: 999 })).map(([whole, cents]) => `${whole}.${String(cents).padStart(3, '0').slice(0, field.scale ?? 2)}`), fc.integer({ min: min ?? -1e6, max: max ?? 1e6 }));
    case 'boolean':
      return fc.boolean();
    case 'date':
      return fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'datetime':
      return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
    case 'select':
      return fc.constantFrom(...(field.enum ?? ['a']));
    case 'multiselect':
      return fc.subarray([...(field.enum ?? ['a', 'b'])]);
    case 'json':
      return fc.jsonValue({ maxDepth: 3 });
    case 'email':
      return fc.emailAddress();
    case 'url':
      return fc.webUrl();
    case 'relation':
      return fc.uuid();
    case 'media':
      return field.many ? fc.array(fc.uuid(), { maxLength: 3 }) : fc.uuid();
    default:
      return fc.string({ minLength: Math.max(min ?? 0, 0), maxLength: Math.min(max ?? 40, 40) });
  }
}
