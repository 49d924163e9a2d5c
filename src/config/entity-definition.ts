// Entity definitions: what a definition file may say, and the one place that validates and sanitizes
// it (defaults filled, unknown keys, duplicates, reserved and invalid names refused, missing
// permissions meaning deny). Generators and the runtime read only the sanitized form.
import { z } from 'zod';
import { parseDecimal } from '../shared/decimal.js';
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

/** Names every record has; a definition may not declare them. */
export const reservedFieldNames = ['id', 'createdAt', 'updatedAt', 'userId', 'teamId', 'deletedAt', 'metas', 'parentId'] as const;

/** Tables of the platform itself (entity-definition.test.ts checks the list against prisma/schema.prisma). */
export const reservedTableNames: readonly string[] = [
  'users', 'sessions', 'user_totp', 'user_identities', 'sign_in_flows', 'account_tokens', 'teams',
  'team_members', 'api_keys', 'api_key_usage', 'api_key_audit', 'team_invitations', 'subscriptions',
  'record_versions', 'entity_events', 'email_outbox', 'media', 'media_tags', 'media_tag_links',
  'media_renditions', 'scheduled_actions', 'webhook_endpoints', 'webhook_deliveries', '_prisma_migrations'
];
/**
 * The platform's own Prisma models and GraphQL types (entity-definition.test.ts checks this list against
 * prisma/schema.prisma and the built schema). They carry the platform's prefixes (`TeamInvoice`,
 * `TeamPlan`), so that the common words of an app (`Invoice`, `Order`, `Plan`, `Product`) stay free.
 */
export const reservedTypeNames: readonly string[] = [
  'AccountToken', 'ActiveTeam', 'ApiKey', 'ApiKeyAudit', 'ApiKeyAuditEntry', 'ApiKeyUsage',
  'ChangePasswordInput', 'ConfirmTwoFactorInput', 'CreateApiKeyInput', 'CreateMediaInput',
  'CreateMediaTagInput', 'CreateScheduledActionInput', 'CreateTeamInput', 'CreateWebhookEndpointInput',
  'CreatedApiKey', 'CreatedScheduledAction', 'CreatedTeamInvitation', 'DeclinedTeamInvitation',
  'DeletedMedia', 'DeletedWebhookEndpoint', 'EmailOutbox', 'EnrollTwoFactorInput', 'EntityEvent', 'Identity',
  'InviteTeamMemberInput', 'InvitedSignupResult', 'LoginInput', 'LoginResult', 'Media',
  'MediaContentDuplicate', 'MediaDuplicate', 'MediaDuplicateMatch', 'MediaFileInput', 'MediaFileVerdict',
  'MediaOrderBy', 'MediaOrderDir', 'MediaPage', 'MediaRendition', 'MediaRenditionLink', 'MediaTag', 'MediaTagLink',
  'MediaTypeFilter', 'MediaUpload', 'Mutation', 'PasswordChange', 'Query', 'RecordVersion',
  'RequestPasswordResetInput', 'ResendVerificationInput', 'ResetPasswordInput', 'ScheduledAction',
  'ScheduledActionList', 'ScheduledActionListMeta', 'ScheduledActionPagination',
  'ScheduledActionStatusChange', 'Session', 'SessionInfo', 'SignInFlow', 'SignInProvider', 'SignupInput',
  'SignupResult', 'SignupTeam', 'SignupWithInviteInput', 'Subscription', 'Team', 'TeamInvitation',
  'TeamInvitationInviter', 'TeamInvitationListItem', 'TeamInvitationTeam', 'TeamInvoice', 'TeamInvoicePage',
  'TeamMember', 'TeamMemberPage', 'TeamMemberRoleUpdate', 'TeamMemberUser', 'TeamMembership', 'TeamPage',
  'TeamPlan', 'TeamPlanLimit', 'TeamSubscription', 'TeamUpdate', 'TeamUsage', 'TwoFactorCodeInput',
  'TwoFactorConfirmation', 'TwoFactorEnrollment', 'TwoFactorSignInInput', 'UpdateMediaInput',
  'UpdateTeamInput', 'UpdateWebhookEndpointInput', 'User', 'UserIdentity', 'UserTotp', 'VerifyEmailInput',
  'WebhookDelivery', 'WebhookDeliveryPage', 'WebhookEndpoint', 'WebhookEndpointPage',
  'WebhookEndpointWithSecret'
];

const identifier = /^[a-z][a-zA-Z0-9]{0,62}$/;
const sqlName = /^[a-z][a-z0-9_]{0,62}$/;
const slugName = /^[a-z][a-z0-9-]{0,62}$/;
const typeName = /^[A-Z][A-Za-z0-9]{0,62}$/;

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

const definitionSchema = z.strictObject({
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
  softDelete: z.boolean().default(false),
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
});

export type EntityDefinitionInput = z.input<typeof definitionSchema>;
/**
 * A field as the runtime reads it. A relation `{ name: 'customer', type: 'relation', to: 'customers' }`
 * is sanitized into the field holding the target's id, `customerId`, with `relation` naming the
 * related record (`Task.customer`, `expand=customer`) and `onDelete` filled in.
 */
export type FieldDefinition = z.output<typeof fieldSchema> & { relation?: string };
export type ChildDefinition = Omit<z.output<typeof childSchema>, 'hooks'> & { hooks?: StoredHooks; virtuals: FieldDefinition[] };
export type EntityDefinition = Omit<z.output<typeof definitionSchema>, 'permissions' | 'pluralName' | 'hooks' | 'children'> & {
  pluralName: string;
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

const isDate = (v: unknown) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v));

/** Problems with one field's own settings (type-specific options, default value). */
function fieldProblems(field: FieldDefinition, where: string): string[] {
  const problems: string[] = [];
  const at = `${where}.${field.name}`;
  const choice = field.type === 'select' || field.type === 'multiselect';
  if ((reservedFieldNames as readonly string[]).includes(field.name)) problems.push(`${at}: "${field.name}" is a reserved name`);
  if (field.type === 'select' && !field.enum) problems.push(`${at}: a select field needs "enum"`);
  if (field.enum && !choice) problems.push(`${at}: "enum" applies to select and multiselect fields only`);
  if (field.enum && new Set(field.enum).size !== field.enum.length) problems.push(`${at}: "enum" has duplicate values`);
  if ((field.precision !== undefined || field.scale !== undefined) && field.type !== 'decimal') problems.push(`${at}: "precision" and "scale" apply to decimal fields only`);
  if (field.type === 'decimal' && (field.scale ?? 2) > (field.precision ?? 12)) problems.push(`${at}: scale (${field.scale ?? 2}) cannot exceed precision (${field.precision ?? 12})`);
  const { min, max, pattern } = field.validation ?? {};
  if (min !== undefined && max !== undefined && min > max) problems.push(`${at}: validation.min is greater than validation.max`);
  if (pattern !== undefined) {
    if (!['string', 'text', 'email', 'url'].includes(field.type)) problems.push(`${at}: validation.pattern applies to text fields only`);
    try {
      new RegExp(pattern, 'u');
    } catch {
      problems.push(`${at}: validation.pattern is not a valid regular expression`);
    }
  }
  if ((field.searchable && !['string', 'text', 'email', 'url', 'select'].includes(field.type)) || (field.sortable && ['json', 'multiselect'].includes(field.type))) {
    problems.push(`${at}: type ${field.type} cannot be ${field.searchable ? 'searchable' : 'sortable'}`);
  }
  if (field.filterable && field.type === 'json') problems.push(`${at}: json fields cannot be filterable`);
  if (field.type === 'media') {
    if (field.searchable || field.sortable) problems.push(`${at}: a media field cannot be ${field.searchable ? 'searchable' : 'sortable'}`);
    if (field.default !== undefined || field.validation || field.unique) problems.push(`${at}: a media field takes no default, validation or unique`);
    if (field.many && (field.filterable || field.required)) problems.push(`${at}: a list of media (many) cannot be filterable or required`);
    if (field.required && field.onDelete === 'setNull') problems.push(`${at}: a required media field cannot be cleared (onDelete: setNull)`);
    if (field.to || field.inverse) problems.push(`${at}: "to" and "inverse" apply to relation fields only (a media field names media of the team)`);
  } else if (field.type === 'relation') {
    if (!field.to) problems.push(`${at}: a relation needs "to" (the related entity's slug)`);
    if (field.searchable || field.sortable) problems.push(`${at}: a relation cannot be ${field.searchable ? 'searchable' : 'sortable'}`);
    if (field.default !== undefined || field.validation) problems.push(`${at}: a relation takes no default or validation`);
    if (field.required && field.onDelete === 'setNull') problems.push(`${at}: a required relation cannot be cleared (onDelete: setNull)`);
    if (field.many && (field.required || field.unique || field.onDelete)) problems.push(`${at}: a many-to-many relation takes no required, unique or onDelete (deleting either record removes the link)`);
  } else if (field.to || field.onDelete || field.inverse || field.many) problems.push(`${at}: "to", "onDelete", "inverse" and "many" apply to relation and media fields only`);
  if (field.default !== undefined) {
    const d = field.default;
    const ok =
      field.type === 'boolean' ? typeof d === 'boolean'
      : field.type === 'number' ? typeof d === 'number' && Number.isFinite(d)
      : field.type === 'integer' ? Number.isInteger(d)
      : field.type === 'decimal' ? 'value' in parseDecimal(d, { precision: field.precision ?? 12, scale: field.scale ?? 2 })
      : field.type === 'select' ? typeof d === 'string' && (field.enum ?? []).includes(d)
      : field.type === 'multiselect' ? Array.isArray(d) && d.every((v) => typeof v === 'string' && (!field.enum || field.enum.includes(v)))
      : field.type === 'date' ? isDate(d)
      : field.type === 'json' ? true
      : typeof d === 'string';
    if (!ok) problems.push(`${at}: default ${JSON.stringify(d)} does not fit type ${field.type}`);
  }
  return problems;
}

/** Virtual fields are computed by afterRead: they take no stored settings, and need the hook. */
function virtualProblems(d: { virtuals: FieldDefinition[]; hooks?: { afterRead?: unknown } | undefined }, where: string): string[] {
  const problems: string[] = [];
  for (const f of d.virtuals) {
    const at = `${where}.fields.${f.name}`;
    if (f.type === 'relation' || f.type === 'media') problems.push(`${at}: a ${f.type === 'relation' ? 'relation' : 'media field'} cannot be virtual`);
    if (f.required || f.unique || f.searchable || f.sortable || f.filterable || f.default !== undefined || f.validation) problems.push(`${at}: a virtual field is computed by hooks.afterRead: it takes no required, unique, searchable, sortable, filterable, default or validation`);
  }
  if (d.virtuals.length && !d.hooks?.afterRead) problems.push(`${where}: virtual fields (${d.virtuals.map((f) => f.name).join(', ')}) need hooks.afterRead to compute them`);
  return problems;
}

/** An index names the definition's own scalar fields, each once. */
function indexProblems(d: { fields: FieldDefinition[] }, names: string[], where: string): string[] {
  const problems = duplicates(names).map((dup) => `${where}: field "${dup}" is listed twice`);
  for (const name of names) {
    const field = d.fields.find((f) => f.name === name);
    if (!field) problems.push(`${where}: unknown field "${name}"`);
    else if (field.type === 'json' || field.type === 'multiselect') problems.push(`${where}: a ${field.type} field cannot be in a composite index`);
  }
  return problems;
}

/** A slug as a field name (`customer-notes` → `customerNotes`): a child's field on its parent, a relation's other side. */
export const camelSlug = (slug: string) => slug.replace(/-([a-z0-9])/g, (_m, ch: string) => ch.toUpperCase());

/**
 * The plural of a type name as English writes it, for the GraphQL list (`Category` → `Categories`,
 * `Box` → `Boxes`, `Batch` → `Batches`, `Day` → `Days`); `pluralName` says it where this is wrong.
 */
export function pluralOf(name: string): string {
  if (/[^aeiou]y$/i.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(name)) return `${name}es`;
  return `${name}s`;
}

/**
 * A new entity's names from its slug (`entity new sales-orders`): the type, singular (`SalesOrder`),
 * its `pluralName` only where English's rule would not give the slug back, the table and the list.
 */
export function entityNaming(slug: string): { name: string; pluralName?: string; table: string; graphqlList: string } {
  const list = camelSlug(slug);
  const plural = list.charAt(0).toUpperCase() + list.slice(1);
  const name = singular(plural);
  return { name, ...(pluralOf(name) === plural ? {} : { pluralName: plural }), table: slug.replace(/-/g, '_'), graphqlList: list };
}

/** A name as a REST slug would write it: `SalesInvoices` → `sales-invoices`. */
const kebab = (name: string) => name.replace(/[A-Z]/g, (c, i: number) => `${i ? '-' : ''}${c.toLowerCase()}`);

/** One of many, for the field of a set's ids: `tasks` → `task`, `categories` → `category`. */
const singular = (name: string) => (name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') && !name.endsWith('ss') ? name.slice(0, -1) : name);

/** A decimal field with its precision and scale filled in (12 and 2 unless it says). */
const withDecimalShape = (f: FieldDefinition): FieldDefinition => (f.type === 'decimal' ? { ...f, precision: f.precision ?? 12, scale: f.scale ?? 2 } : f);

/**
 * A relation field as the runtime reads it: the id field (`customer` → `customerId`), with its
 * onDelete rule; a many-to-many one the field of its ids (`tasks` → `taskIds`).
 */
function relationField(f: FieldDefinition): FieldDefinition {
  if (f.type === 'media') return f.many ? { ...f, name: `${singular(f.name)}Ids`, relation: f.name, onDelete: f.onDelete ?? 'setNull' } : { ...f, name: `${f.name}Id`, relation: f.name, onDelete: f.onDelete ?? (f.required ? 'restrict' : 'setNull') };
  if (f.type !== 'relation') return f;
  if (f.many) return { ...f, name: `${singular(f.name)}Ids`, relation: f.name };
  return { ...f, name: `${f.name}Id`, relation: f.name, onDelete: f.onDelete ?? (f.required ? 'restrict' : 'setNull') };
}

/** The entity each relation field names, set by sanitizeEntities. */
const targets = new WeakMap<FieldDefinition, EntityDefinition>();

/** The entity a relation field points to. */
export function relationTarget(f: FieldDefinition): EntityDefinition {
  const target = targets.get(f);
  if (!target) throw new Error(`${f.name} is not a sanitized relation field`);
  return target;
}

/** The (many-to-one) relation fields of a definition. */
export const relationFields = (d: { fields: readonly FieldDefinition[] }) => d.fields.filter((f): f is FieldDefinition & { relation: string; to: string } => f.type === 'relation');

/**
 * The media fields of a definition (`{ name: 'attachment', type: 'media' }`): the field of the media id
 * (`attachmentId`; with `many`, the ordered ids `photoIds`), `relation` naming the media record(s)
 * (`Order.attachment`, `expand=attachment`) and `onDelete` what deleting a used media does.
 */
export const mediaFields = (d: { fields: readonly FieldDefinition[] }) => d.fields.filter((f): f is FieldDefinition & { relation: string; onDelete: OnDelete } => f.type === 'media');

/** Every relation of a definition: its relation fields, then its many-to-many links. */
const allRelations = (d: EntityDefinition) => [...relationFields(d), ...d.links];

/** The links (many-to-many) whose related records can be listed (`Project.tasks`, `expand=tasks`). */
export const readableLinks = (d: EntityDefinition) => d.links.filter((f) => relationTarget(f).operations.list);

/** What REST `expand` may name: readable relations (a record each), then readable links (a list each). */
export const expandableRelations = (d: EntityDefinition) => [...readableRelations(d), ...readableLinks(d)];

/** The relations whose related record can be read (the target's READ is on): `Task.customer`, `expand=customer`. */
export const readableRelations = (d: { fields: readonly FieldDefinition[] }) => relationFields(d).filter((f) => relationTarget(f).operations.read);

/** A relation seen from its target: the records of `source` whose `field` names a target record (`Customer.projects`). */
export interface Inverse {
  source: EntityDefinition;
  field: FieldDefinition & { relation: string };
  /** Its name on the target's records. */
  name: string;
}

const inverses = new WeakMap<EntityDefinition, Inverse[]>();

/** The relations pointing at `target`, as its one-to-many sides (set by sanitizeEntities). */
export const inversesOf = (target: EntityDefinition): readonly Inverse[] => inverses.get(target) ?? [];

/** The names a record of `d` already has: fields, children, owners. */
const namesOf = (d: EntityDefinition) => new Set([...d.fields.map((f) => f.name), ...d.virtuals.map((f) => f.name), ...d.children.map((c) => camelSlug(c.slug)), ...reservedFieldNames, 'team', 'user', 'parent', 'metas']);

/**
 * Relations name an entity of the list and a name free on their record (not a field, child, or owner),
 * and their reverse side a name free on the target (not one of its names, relations or other reverse sides).
 */
function relationProblems(definitions: EntityDefinition[]): string[] {
  const problems: string[] = [];
  const taken = new Map(definitions.map((d) => [d, namesOf(d)]));
  for (const d of definitions) {
    for (const f of d.links) {
      if (taken.get(d)!.has(f.name)) problems.push(`entity ${d.slug}.fields.${f.relation}: its ids "${f.name}" are already a name of ${d.name}`);
      taken.get(d)!.add(f.name);
    }
    for (const f of allRelations(d)) {
      const at = `entity ${d.slug}.fields.${f.relation}`;
      if (taken.get(d)!.has(f.relation)) problems.push(`${at}: "${f.relation}" is already a name of ${d.name}`);
    }
  }
  for (const d of definitions) {
    for (const f of mediaFields(d)) {
      if (taken.get(d)!.has(f.relation)) problems.push(`entity ${d.slug}.fields.${f.relation}: "${f.relation}" is already a name of ${d.name}`);
      taken.get(d)!.add(f.relation);
    }
  }
  for (const d of definitions) for (const f of allRelations(d)) taken.get(d)!.add(f.relation);
  for (const d of definitions) {
    for (const f of allRelations(d)) {
      const at = `entity ${d.slug}.fields.${f.relation}`;
      const target = definitions.find((t) => t.slug === f.to);
      if (!target) {
        problems.push(`${at}: "to" names no entity ("${f.to}")`);
        continue;
      }
      targets.set(f, target);
      const name = f.inverse ?? camelSlug(d.slug);
      if (taken.get(target)!.has(name)) problems.push(`${at}: its reverse side "${name}" is already a name of ${target.name} (name it with "inverse")`);
      taken.get(target)!.add(name);
      inverses.set(target, [...inversesOf(target), { source: d, field: f, name }]);
    }
  }
  return problems;
}

function duplicates(names: string[]): string[] {
  return [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
}

/**
 * Validates and sanitizes every definition, or throws one Error listing every problem (the server
 * does not start with a bad definition).
 */
export function sanitizeEntities(inputs: readonly unknown[]): EntityDefinition[] {
  const problems: string[] = [];
  const out: EntityDefinition[] = [];
  inputs.forEach((input, index) => {
    const parsed = definitionSchema.safeParse(input);
    const label = (input as { slug?: unknown })?.slug ?? `#${index + 1}`;
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(`entity ${String(label)}: ${issue.path.join('.') || '(definition)'}: ${issue.message}`);
      return;
    }
    const sanitized = parsed.data.fields.map(relationField).map(withDecimalShape);
    const stored = sanitized.filter((f) => !f.virtual);
    const children = parsed.data.children.map((c) => ({ ...c, hooks: c.hooks as StoredHooks | undefined, fields: c.fields.filter((f) => !f.virtual).map(withDecimalShape), virtuals: c.fields.filter((f) => f.virtual) }));
    const d = { ...parsed.data, hooks: parsed.data.hooks as StoredHooks | undefined, children, fields: stored.filter((f) => !f.many || f.type === 'media'), links: stored.filter((f): f is FieldDefinition & { relation: string; to: string } => !!f.many && f.type === 'relation'), virtuals: sanitized.filter((f) => f.virtual) };
    const where = `entity ${d.slug}`;
    for (const dup of duplicates(sanitized.map((f) => f.name))) problems.push(`${where}: duplicate field "${dup}"`);
    for (const f of sanitized) problems.push(...fieldProblems(f, `${where}.fields`));
    problems.push(...virtualProblems(d, where));
    for (const child of d.children) {
      const all = [...child.fields, ...child.virtuals];
      for (const f of all) if (f.type === 'relation' || f.type === 'media') problems.push(`${where}.children.${child.slug}.${f.name}: ${f.type === 'relation' ? 'relations' : 'media fields'} belong to entities, not to children`);
      for (const dup of duplicates(all.map((f) => f.name))) problems.push(`${where}.children.${child.slug}: duplicate field "${dup}"`);
      for (const f of all) problems.push(...fieldProblems(f, `${where}.children.${child.slug}`));
      problems.push(...virtualProblems(child, `${where}.children.${child.slug}`));
    }
    for (const key of Object.keys(d.publicFilter ?? {})) {
      if (!d.fields.some((f) => f.name === key)) problems.push(`${where}: publicFilter names unknown field "${key}"`);
    }
    if (d.publicFilter && !d.access.public) problems.push(`${where}: publicFilter needs access.public`);
    d.indexes.forEach((index, i) => problems.push(...indexProblems(d, index.fields, `${where}.indexes[${i}]`)));
    const permissions = Object.fromEntries(operations.map((op) => [op, d.permissions[op] ?? []])) as Record<Operation, string[]>;
    const pluralName = d.pluralName ?? pluralOf(d.name);
    // REST says /api/v1/<slug>, GraphQL and the client the plural's list field: one name for both.
    const listed = pluralName.charAt(0).toLowerCase() + pluralName.slice(1);
    if (camelSlug(d.slug) !== listed) {
      problems.push(`${where}: REST names it /api/v1/${d.slug} but GraphQL and the client "${listed}" (from name "${d.name}"${d.pluralName ? ` and pluralName "${d.pluralName}"` : ''}): make them one, with slug "${kebab(pluralName)}" or a name (or pluralName) that gives "${camelSlug(d.slug)}"`);
    }
    out.push({ ...d, pluralName, permissions });
  });
  const names = (pick: (d: EntityDefinition) => string[]) => duplicates(out.flatMap(pick));
  for (const dup of names((d) => [d.slug, ...d.children.map((c) => c.slug)])) problems.push(`duplicate entity slug "${dup}"`);
  for (const dup of names((d) => [d.tableName, ...d.children.map((c) => c.tableName)])) problems.push(`duplicate table name "${dup}"`);
  for (const dup of names((d) => [d.name, d.pluralName, ...d.children.map((c) => c.name)])) problems.push(`duplicate type name "${dup}"`);
  for (const d of out) {
    for (const table of [d.tableName, ...d.children.map((c) => c.tableName)]) if (reservedTableNames.includes(table)) problems.push(`entity ${d.slug}: table name "${table}" belongs to the platform`);
    for (const type of [d.name, d.pluralName, ...d.children.map((c) => c.name)]) if (reservedTypeNames.includes(type)) problems.push(`entity ${d.slug}: type name "${type}" belongs to the platform`);
  }
  problems.push(...relationProblems(out));
  if (problems.length) throw new Error(`Invalid entity definitions:\n  - ${problems.join('\n  - ')}`);
  return out;
}
