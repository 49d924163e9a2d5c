// GraphQL answers of the entity documents as REST has always answered them: enum value names back to
// the stored strings (`IN_PROGRESS` → `in-progress`), the owner ids left out when GraphQL gives them as
// null (anonymous readers of public entities), children under their slug, distinct values in the
// field's own JSON type.
import type { ChildDefinition, EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import { AppError } from '../../shared/errors.js';
import { enumValueNames, hasEnum } from './graphql-names.js';
import { childField } from './prisma-model.js';
type Values = Record<string, unknown>;

type Owner = EntityDefinition | ChildDefinition;
type Stored = Map<string, string>;

/** Per enumerated field, enum value name → stored value. */
function storedValues(owner: Owner): Map<string, Stored> {
  const out = new Map<string, Stored>();
  for (const field of owner.fields) {
    if (hasEnum(field)) out.set(field.name, new Map([...enumValueNames(owner, field)].map(([stored, name]) => [name, stored])));
  }
  return out;
}

const ownerIds = new Set(['userId', 'teamId']);

/** A function mapping one GraphQL record of `owner` (and of its children) to its REST form. */
export function recordMapper(owner: Owner): (record: Values) => Values {
  const enums = storedValues(owner);
  const children = 'children' in owner ? owner.children.map((c) => ({ key: childField(c), slug: c.slug, map: recordMapper(c) })) : [];
  return (record) => {
    const out: Values = {};
    for (const [key, value] of Object.entries(record)) {
      if (value === null && ownerIds.has(key)) continue;
      const names = enums.get(key);
      out[key] = !names || value === null ? value : Array.isArray(value) ? value.map((v: string) => names.get(v) ?? v) : (names.get(value as string) ?? value);
    }
    for (const child of children) {
      if (!(child.key in out)) continue;
      const rows = out[child.key] as Values[];
      delete out[child.key];
      out[child.slug] = rows.map(child.map);
    }
    return out;
  };
}

/** Fields whose distinct values REST gives in their JSON type (numbers, booleans), not as GraphQL's strings. */
export const typedDistinctFields = (d: EntityDefinition) => d.fields.filter((f) => f.filterable && ['number', 'integer', 'boolean'].includes(f.type));
/** The alias by which a LIST answer says `field` was selected (distinct mode selects one field only). */
export const typedDistinctAlias = (field: FieldDefinition) => `typed_${field.name}`;

/** The LIST answer: records (or distinct values) and the contract's `pagination`. */
export function listAnswer(d: EntityDefinition) {
  const record = recordMapper(d);
  const typed = typedDistinctFields(d);
  return {
    data: (page: Values): Values[] => {
      const values = page.values as Values[];
      if (!values.length) return (page.items as Values[]).map(record);
      const field = typed.find((f) => typedDistinctAlias(f) in page);
      if (!field) return values;
      const as = (v: string): unknown => (field.type === 'boolean' ? v === 'true' : Number(v));
      return values.map((entry) => ({ ...entry, value: as(entry.value as string) }));
    },
    pagination: (page: Values) => ({ page: page.page, limit: page.limit, total: page.total, totalPages: page.totalPages }),
  };
}

/**
 * For a path whose every operation the definition turns off: the contract's 405 (the router names the
 * methods in `Allow`, none here). A path with some operation on needs no such route: the router
 * answers 405 for the others.
 */
export function refuseDisabled(slug: string, route: string): never {
  throw new AppError('METHOD_NOT_ALLOWED', `${route} is disabled for ${slug}`);
}
