// REST bodies of creates and updates as the typed `input` of the entity's mutation. The body is checked
// first with the validator the service uses (validate.ts), so that REST keeps the contract's 422
// `Validation failed` with a message per field for what GraphQL's types would refuse with a different
// error (a wrong type, a value outside the enum, an unknown field); then each given field is written
// in its GraphQL type: stored enum strings become enum value names (`in-progress` → `IN_PROGRESS`),
// instants a normalized ISO 8601 string, the rest as sent.
import type { FieldDefinition } from '../../config/entity-definition.js';
import { enumValueName, hasEnum } from './graphql-names.js';
import { validateRecord } from './validate.js';

type Values = Record<string, unknown>;

function inputValue(field: FieldDefinition, value: unknown): unknown {
  if (value === null) return null;
  if (hasEnum(field)) return Array.isArray(value) ? value.map((v: string) => enumValueName(v)) : enumValueName(value as string);
  if (field.type === 'datetime') return new Date(Date.parse(value as string)).toISOString();
  return value;
}

/**
 * The mutation's `input` for a request body: throws 422 VALIDATION_FAILED as the service would when
 * the body does not fit. `partial` for updates (given fields only); `metas` when the entity has them.
 */
export function bodyInput(fields: readonly FieldDefinition[], body: unknown, options: { partial: boolean; metas: boolean }): Values {
  validateRecord(fields, body, options);
  const given = body as Values;
  const input: Values = {};
  for (const field of fields) {
    if (Object.hasOwn(given, field.name) && given[field.name] !== undefined) input[field.name] = inputValue(field, given[field.name]);
  }
  if (options.metas && given.metas !== undefined) input.metas = given.metas;
  return input;
}
