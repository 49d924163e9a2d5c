// The GraphQL names an entity definition generates: one place, read by the schema generator
// (schema.ts), the REST documents (rest.ts) and the OpenAPI document, so that the three cannot drift.
// `Task` with `status: select ['todo', 'in-progress']` gives the type `Task`, the enum `TaskStatus`
// with values `TODO` and `IN_PROGRESS` (standing for the stored strings), `CreateTaskInput`,
// `UpdateTaskInput`, `TaskFilter`, `TaskPage`, the queries `tasks` and `task`, the mutations
// `createTask`, `updateTask`, `deleteTask`, `restoreTaskVersion`; a soft-deleting `Post` also `trashedPosts` and
// `restorePost`; a child `Note` of customers gives `createNote`, … .
import { type ChildDefinition, type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { pluralOf } from '../../config/entity-names.js';

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A stored `select`/`multiselect` value as a GraphQL enum value name: `in-progress` → `IN_PROGRESS`, `2fa` → `_2FA`. */
export function enumValueName(value: string): string {
  const name = value.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '') || '_';
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/** The enum type of a `select` or enumerated `multiselect` field: `TaskStatus`, `CustomerVisitDays`. */
export const enumTypeName = (owner: { name: string }, field: Pick<FieldDefinition, 'name'>) => `${owner.name}${upperFirst(field.name)}`;

/** Whether a field's values are a GraphQL enum (select always; multiselect when it lists its values). */
export const hasEnum = (field: Pick<FieldDefinition, 'type' | 'enum'>) => (field.type === 'select' || field.type === 'multiselect') && !!field.enum?.length;

/**
 * Stored value → enum value name, for each enumerated field of `fields`. Refuses, at start-up, two
 * values of one field that would share a name (`a-b` and `a_b`).
 */
export function enumValueNames(owner: { name: string }, field: FieldDefinition): Map<string, string> {
  const names = new Map<string, string>();
  const seen = new Map<string, string>();
  for (const value of field.enum ?? []) {
    const name = enumValueName(value);
    const other = seen.get(name);
    if (other !== undefined) throw new Error(`Entity ${owner.name}: values "${other}" and "${value}" of field ${field.name} both become the GraphQL enum value ${name}`);
    seen.set(name, value);
    names.set(value, name);
  }
  return names;
}

/** Names of the GraphQL types and root fields of one entity (or child) type. */
export function graphqlNames(owner: EntityDefinition | ChildDefinition) {
  const name = owner.name;
  const plural = 'pluralName' in owner && owner.pluralName ? owner.pluralName : pluralOf(name);
  return {
    type: name,
    createInput: `Create${name}Input`,
    updateInput: `Update${name}Input`,
    filter: `${name}Filter`,
    where: `${name}Where`,
    page: `${name}Page`,
    sortField: `${name}SortField`,
    dateField: `${name}DateField`,
    /** LIST: `tasks`. */
    list: lowerFirst(plural),
    /** READ: `task`. */
    read: lowerFirst(name),
    create: `create${name}`,
    update: `update${name}`,
    delete: `delete${name}`,
    /** A soft-deleting entity's trash: `trashedPosts`, and `restorePost`. */
    trash: `trashed${plural}`,
    restore: `restore${name}`,
    /** Record history: `restoreTaskVersion` (history-schema.ts). */
    restoreVersion: `restore${name}Version`,
  };
}

/** A child's version on its parent record: `noteVersion` (and its list, `noteVersions`: history-schema.ts). */
export const childVersionField = (child: ChildDefinition) => `${lowerFirst(child.name)}Version`;

/** The GraphQL scalar of a field's values (a select's or enumerated multiselect's enum is per field: graphql-types.ts). */
export function scalarOf(field: Pick<FieldDefinition, 'type'>): 'String' | 'ID' | 'Float' | 'Int' | 'Decimal' | 'Boolean' | 'Date' | 'DateTime' | 'JSON' {
  switch (field.type) {
    case 'number':
      return 'Float';
    case 'integer':
      return 'Int';
    case 'decimal':
      return 'Decimal';
    case 'boolean':
      return 'Boolean';
    case 'date':
      return 'Date';
    case 'datetime':
      return 'DateTime';
    case 'json':
      return 'JSON';
    case 'relation':
    case 'media':
      return 'ID';
    default:
      return 'String';
  }
}
