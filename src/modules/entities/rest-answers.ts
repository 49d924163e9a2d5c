// GraphQL answers of the entity documents as REST has always answered them. The routes run their
// documents with `storedValues` (rest/route.ts), so selects already come as their stored strings
// (`in-progress`, not `IN_PROGRESS`); here, in place: the owner ids left out when GraphQL gives them as
// null (anonymous readers of public entities), children under their slug, distinct values in the
// field's own JSON type. A field an `@include` left out may be present as undefined (graphql-jit): it
// is absent from the answer all the same.
import { type ChildDefinition, type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { expandableRelations } from '../../config/entity-relations.js';
import { AppError } from '../../shared/errors.js';
import { childField } from './prisma-model.js';
type Values = Record<string, unknown>;

type Owner = EntityDefinition | ChildDefinition;

/** The owner ids GraphQL gives as null (anonymous readers of public entities) are absent from REST's record. */
function withoutHiddenOwners(record: Values): void {
  if (record.userId === null) delete record.userId;
  if (record.teamId === null) delete record.teamId;
}

/** A function turning one GraphQL record of `owner` (and its children) into its REST form, in place. */
export function recordMapper(owner: Owner): (record: Values) => Values {
  const children = 'children' in owner ? owner.children.map((c) => ({ key: childField(c), slug: c.slug, map: recordMapper(c) })) : [];
  const relations = 'children' in owner ? expandableRelations(owner).map((f) => f.relation) : [];
  return (record) => {
    withoutHiddenOwners(record);
    // Expanded related records (one level: expand=customer), null when none or not the caller's to see.
    // A many-to-many relation expands into a list.
    for (const relation of relations) {
      const related = record[relation] as Values | Values[] | null | undefined;
      if (Array.isArray(related)) related.forEach(withoutHiddenOwners);
      else if (related) withoutHiddenOwners(related);
    }
    for (const child of children) {
      const rows = record[child.key] as Values[] | undefined;
      if (rows === undefined) continue;
      rows.forEach(child.map);
      if (child.key === child.slug) continue;
      delete record[child.key];
      record[child.slug] = rows;
    }
    return record;
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
      if (!values.length) {
        const items = page.items as Values[];
        items.forEach(record);
        return items;
      }
      const field = typed.find((f) => page[typedDistinctAlias(f)] !== undefined);
      if (!field) return values;
      const as = (v: string): unknown => (field.type === 'boolean' ? v === 'true' : Number(v));
      return values.map((entry) => ({ ...entry, value: as(entry.value as string) }));
    },
    pagination: (page: Values) => ({ page: page.page, limit: page.limit, total: page.total, totalPages: page.totalPages, nextCursor: page.endCursor ?? null }),
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
