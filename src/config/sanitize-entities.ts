// The one place that validates and sanitizes entity definitions (defaults filled, unknown keys,
// duplicates, reserved and invalid names refused, missing permissions meaning deny): the server does
// not start with a bad definition. Generators and the runtime read only the sanitized form.
import { parseDecimal } from '../shared/decimal.js';
import type { StoredHooks } from './entity-hooks.js';
import { daysOf, definitionSchema, operations, type EntityDefinition, type FieldDefinition, type Operation } from './entity-definition.js';
import { camelSlug, kebab, pluralOf, reservedFieldNames, reservedTableNames, reservedTypeNames, singular } from './entity-names.js';
import { relationProblems } from './entity-relations.js';

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

/** The console's hints name fields of the definition as it writes them (`customer`, not `customerId`); the title a text field. */
function presentationProblems(fields: FieldDefinition[], d: { listColumns?: string[]; titleField?: string }, where: string): string[] {
  const named = (name: string) => fields.find((f) => (f.relation ?? f.name) === name);
  const problems = (d.listColumns ?? []).filter((name) => !named(name)).map((name) => `${where}: listColumns names unknown field "${name}"`);
  problems.push(...duplicates(d.listColumns ?? []).map((dup) => `${where}: listColumns names "${dup}" twice`));
  if (d.titleField !== undefined && !['string', 'text', 'email', 'url'].includes(named(d.titleField)?.type ?? '')) problems.push(`${where}: titleField must name a text field (string, text, email or url) of the definition`);
  return problems;
}

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
    problems.push(...presentationProblems(sanitized, d, where));
    const permissions = Object.fromEntries(operations.map((op) => [op, d.permissions[op] ?? []])) as Record<Operation, string[]>;
    const pluralName = d.pluralName ?? pluralOf(d.name);
    // REST says /api/v1/<slug>, GraphQL and the client the plural's list field: one name for both.
    const listed = pluralName.charAt(0).toLowerCase() + pluralName.slice(1);
    if (camelSlug(d.slug) !== listed) {
      problems.push(`${where}: REST names it /api/v1/${d.slug} but GraphQL and the client "${listed}" (from name "${d.name}"${d.pluralName ? ` and pluralName "${d.pluralName}"` : ''}): make them one, with slug "${kebab(pluralName)}" or a name (or pluralName) that gives "${camelSlug(d.slug)}"`);
    }
    const { softDelete } = d;
    out.push({ ...d, pluralName, permissions, softDelete: softDelete !== false, purgeAfterDays: typeof softDelete === 'object' ? daysOf(softDelete.purgeAfter) : null });
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
