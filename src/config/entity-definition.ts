// Entity definitions: what a definition file may say (the schema and the types of its sanitized form,
// defineEntity). sanitize-entities.ts validates and sanitizes definitions; the names the platform
// keeps and naming: entity-names.ts; relations between definitions: entity-relations.ts.
import { z } from 'zod';
import type { EntityHooks, FieldShape, StoredHooks } from './entity-hooks.js';

export const fieldTypes = ['string', 'text', 'number', 'integer', 'decimal', 'boolean', 'date', 'datetime', 'select', 'multiselect', 'json', 'email', 'url', 'relation', 'media'] as const;
export type FieldType = (typeof fieldTypes)[number];
/** Whether a field's values are ordered (ranges `_min`/`_max`, minimums and maximums): numbers, decimals, days and instants. */
export const isRanged = (f: { type: FieldType }) => ['number', 'integer', 'decimal', 'date', 'datetime'].includes(f.type);
/** What deleting a related record does to the records that name it (enforced by the foreign key). */
export const onDeleteActions = ['restrict', 'setNull', 'cascade'] as const;
export type OnDelete = (typeof onDeleteActions)[number];
export const operations = ['list', 'create', 'read', 'update', 'delete'] as const;
export type Operation = (typeof operations)[number];

const identifier = /^[a-z][a-zA-Z0-9]{0,62}$/;
const sqlName = /^[a-z][a-z0-9_]{0,62}$/;
const slugName = /^[a-z][a-z0-9-]{0,62}$/;
const typeName = /^[A-Z][A-Za-z0-9]{0,62}$/;
/** A retention period in days (`'30d'`). */
const days = z.string().regex(/^[1-9][0-9]{0,4}d$/, 'must be a number of days such as "30d"');
/** The days of a retention period (`'30d'` → 30). */
export const daysOf = (period: string) => Number(period.slice(0, -1));

const fieldSchema = z.strictObject({
  name: z.string().regex(identifier, 'must be a camelCase identifier (letters and digits, starting with a lowercase letter)'),
  type: z.enum(fieldTypes),
  label: z.string().max(100).optional(),
  required: z.boolean().default(false),
  unique: z.boolean().default(false).describe('unique within a team'),
  enum: z.array(z.string().min(1).max(100)).min(1).optional(),
  default: z.unknown().optional(),
  /** A decimal's digits in all (default 12) and after the point (default 2): numeric(precision, scale). */
  precision: z.number().int().min(1).max(38).optional(),
  scale: z.number().int().min(0).max(38).optional(),
  validation: z
    .strictObject({
      min: z.number().optional(),
      max: z.number().optional(),
      pattern: z.string().max(500).optional(),
    })
    .optional(),
  searchable: z.boolean().default(false),
  sortable: z.boolean().default(false),
  filterable: z.boolean().default(false),
  /** A relation's target entity (its slug). */
  to: z.string().regex(slugName).optional(),
  /** A relation's rule when its target is deleted: refuse (default when required), clear (default otherwise), or delete along. */
  onDelete: z.enum(onDeleteActions).optional(),
  /** A relation's reverse side on its target, the records naming it (default: this entity's slug in camelCase, `Customer.projects`). */
  inverse: z.string().regex(identifier).optional(),
  /** A many-to-many relation: a set of related records, kept in a join table (`Project.tasks`, written as `taskIds`); a media field: a list of media, in order (`photoIds`). */
  many: z.boolean().default(false),
  /** Computed by the definition's afterRead hook for every record shown: typed in GraphQL, OpenAPI and the client; never stored, written, filtered or sorted. */
  virtual: z.boolean().default(false),
});

/** A hook: a function (its arguments are typed by defineEntity, config/entity-hooks.ts). */
const hook = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'must be a function').optional();
const hooksSchema = z.strictObject({ beforeValidate: hook, beforeChange: hook, afterChange: hook, beforeDelete: hook, afterDelete: hook, afterRead: hook }).optional();

const permissionsSchema = z.strictObject(Object.fromEntries(operations.map((op) => [op, z.array(z.string().min(1)).optional()])) as Record<Operation, z.ZodOptional<z.ZodArray<z.ZodString>>>);

const childSchema = z.strictObject({
  name: z.string().regex(typeName, 'must be a PascalCase type name'),
  slug: z.string().regex(slugName, 'must be lowercase letters, digits and hyphens'),
  tableName: z.string().regex(sqlName, 'must be a lowercase SQL identifier'),
  fields: z.array(fieldSchema).min(1),
  hooks: hooksSchema,
});

export const definitionSchema = z.strictObject({
  name: z.string().regex(typeName, 'must be a PascalCase type name (e.g. Task)'),
  pluralName: z.string().regex(typeName).optional(),
  slug: z.string().regex(slugName, 'must be lowercase letters, digits and hyphens'),
  tableName: z.string().regex(sqlName, 'must be a lowercase SQL identifier'),
  fields: z.array(fieldSchema).min(1),
  permissions: permissionsSchema.default({}),
  access: z.strictObject({ public: z.boolean().default(false), shared: z.boolean().default(false) }).default({ public: false, shared: false }),
  /** For public entities: equality conditions a record must meet to be seen without authentication. */
  publicFilter: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  operations: z.strictObject(Object.fromEntries(operations.map((op) => [op, z.boolean().default(true)])) as Record<Operation, z.ZodDefault<z.ZodBoolean>>).default({ list: true, create: true, read: true, update: true, delete: true }),
  /**
   * Delete marks the record deleted (it goes to the entity's trash, restorable) instead of removing it;
   * `{ purgeAfter: '30d' }` also removes trashed records for good that many days after their deletion.
   */
  softDelete: z.union([z.boolean(), z.strictObject({ purgeAfter: days })]).default(false),
  /**
   * Record history (docs/data-safety.md): how long the versions of a record and its children are kept:
   * `'90d'` (days), a number of versions per record (the newest), or false (none kept).
   */
  history: z.strictObject({ keep: z.union([z.literal(false), z.number().int().min(1).max(100_000), days]) }).default({ keep: '90d' }),
  metas: z.boolean().default(false),
  children: z.array(childSchema).default([]),
  /**
   * Composite indexes for the LIST queries the entity is known for (a filter and a sort used together,
   * such as one status by due date): each becomes an index on the owner columns, these fields in this
   * order, then `id` (LIST's tie-break), so such a page is read straight from the index.
   */
  indexes: z.array(z.strictObject({ fields: z.array(z.string()).min(1).max(4) })).default([]),
  /** Plan limit slug counted by this entity's records (teams plans: `tasks`). */
  planLimit: z.string().regex(/^[a-z][a-z0-9_]*$/).optional(),
  /** Lifecycle hooks: the app's rules on every write and read of the records (config/entity-hooks.ts). */
  hooks: hooksSchema,
  /** How the console shows the entity (docs/console.md): its name in the menu (default: the plural name, spaced). */
  label: z.string().min(1).max(100).optional(),
  /** The fields its list shows until a person picks others (default: the first five). */
  listColumns: z.array(z.string()).min(1).max(12).optional(),
  /** The text field naming a record in lists, pickers and titles (default: the first required text field). */
  titleField: z.string().optional(),
});

export type EntityDefinitionInput = z.input<typeof definitionSchema>;
/**
 * A field as the runtime reads it. A relation `{ name: 'customer', type: 'relation', to: 'customers' }`
 * is sanitized into the field holding the target's id, `customerId`, with `relation` naming the
 * related record (`Task.customer`, `expand=customer`) and `onDelete` filled in.
 */
export type FieldDefinition = z.output<typeof fieldSchema> & { relation?: string };
export type ChildDefinition = Omit<z.output<typeof childSchema>, 'hooks'> & { hooks?: StoredHooks; virtuals: FieldDefinition[] };
export type EntityDefinition = Omit<z.output<typeof definitionSchema>, 'permissions' | 'pluralName' | 'hooks' | 'children' | 'softDelete'> & {
  pluralName: string;
  /** Whether a delete marks the record (trash) rather than removing it. */
  softDelete: boolean;
  /** Days after which a trashed record is removed for good (`softDelete.purgeAfter`); null: kept until purged. */
  purgeAfterDays: number | null;
  children: ChildDefinition[];
  hooks?: StoredHooks;
  /** Virtual fields (`virtual: true`), kept apart from `fields` (they have no column): filled by hooks.afterRead. */
  virtuals: FieldDefinition[];
  /**
   * Many-to-many relations (`many: true`), kept apart from `fields` (they have no column): each
   * sanitized like a relation field, into the field of its ids (`tasks` → `taskIds`, a list of ids)
   * with `relation` naming the related records (`Project.tasks`, `expand=tasks`).
   */
  links: (FieldDefinition & { relation: string; to: string })[];
  /** Scopes per operation; an operation without a list grants nothing (deny). */
  permissions: Record<Operation, string[]>;
};

/** A field as a definition file writes it (lists may be `as const`). */
type FieldDeclaration = Omit<z.input<typeof fieldSchema>, 'enum'> & { enum?: readonly string[] };
type ChildDeclaration = Omit<z.input<typeof childSchema>, 'fields' | 'hooks'> & { fields: readonly FieldDeclaration[]; hooks?: EntityHooks<FieldShape> };

/**
 * Types a definition file's object (checked at start-up by sanitizeEntities): its hooks see records
 * typed from its own fields, so a wrong field name in a hook does not compile.
 */
export function defineEntity<const F extends readonly FieldDeclaration[]>(
  definition: Omit<EntityDefinitionInput, 'fields' | 'hooks' | 'children'> & { fields: F; hooks?: EntityHooks<F[number]>; children?: readonly ChildDeclaration[] },
): EntityDefinitionInput {
  return definition as unknown as EntityDefinitionInput;
}

/** Types a child definition (`children: [defineChild({...})]`) with hooks typed from its own fields. */
export function defineChild<const F extends readonly FieldDeclaration[]>(child: Omit<ChildDeclaration, 'fields' | 'hooks'> & { fields: F; hooks?: EntityHooks<F[number]> }): ChildDeclaration {
  return child as unknown as ChildDeclaration;
}
