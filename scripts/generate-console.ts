// Writes what the console knows of the app's entities (console/src/generated/entities.ts, part of
// `npm run generate`, run by generate-composed.ts): from each sanitized definition, its fields as REST names and writes them (with
// labels, types, choices, relations and what may be sorted, filtered and searched), its presentation
// hints (label, listColumns, titleField), its operations, trash, history and children; and from the
// app's modules (src/app/) its record routes, each a button on a record's page; and the scope
// resources every module declares, for the API-key form's scope picker. And console/src/generated/
// documents.ts: each entity's GraphQL documents (the studio's requests: LIST, READ with children,
// writes, trash, versions, counts by group, changes, custom operations), written with the names the
// schema is built with and validated against schema/schema.graphql, so a document that no longer
// fits the schema fails here, not in a browser; and the GraphQL enum name of each stored choice.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { buildSchema, parse, print, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { ChildDefinition, EntityDefinition, FieldDefinition } from '../src/config/entity-definition.js';
import { entityDefinitions } from '../src/config/entities/index.js';
import { appModules } from '../src/app/index.js';
import { modules } from '../src/module-list.js';
import { enumValueNames, graphqlNames, hasEnum } from '../src/modules/entities/graphql-names.js';
import { aggregateNames } from '../src/modules/entities/aggregate-schema.js';
import { groupFields } from '../src/modules/entities/aggregate.js';
import { childField } from '../src/modules/entities/prisma-model.js';
import * as rest from '../src/modules/entities/rest-documents.js';
import type { StudioDocuments, StudioEntity, StudioField, StudioScopeResource } from '../console/src/definitions.js';

/** `dueDate` → `Due date`. */
const spaced = (name: string) => {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function fieldOf(f: FieldDefinition): StudioField {
  const written = f.relation ?? f.name;
  return {
    name: f.name,
    label: f.label ?? spaced(written),
    type: f.type,
    required: f.required,
    ...(f.enum ? { enum: f.enum } : {}),
    ...(f.to ? { to: f.to } : {}),
    many: f.many,
    virtual: f.virtual,
    sortable: f.sortable,
    filterable: f.filterable,
    searchable: f.searchable,
    ...(f.validation?.min !== undefined ? { min: f.validation.min } : {}),
    ...(f.validation?.max !== undefined ? { max: f.validation.max } : {}),
    ...(f.type === 'decimal' ? { scale: f.scale } : {}),
  };
}

const text = ['string', 'text', 'email', 'url'];

function entityOf(d: EntityDefinition): StudioEntity {
  const all: FieldDefinition[] = [...d.fields, ...d.links, ...d.virtuals];
  const named = (name: string) => all.find((f) => (f.relation ?? f.name) === name)!.name;
  const title = d.titleField ? named(d.titleField) : (all.find((f) => f.required && text.includes(f.type)) ?? all.find((f) => text.includes(f.type)))?.name ?? 'id';
  const listColumns = d.listColumns ? d.listColumns.map(named) : all.filter((f) => f.type !== 'json' && !f.many).slice(0, 5).map((f) => f.name);
  const actions = appModules.flatMap((m) => m.routes ?? []).filter((r) => r.path.startsWith(`/api/v1/${d.slug}/{id}/`));
  return {
    name: d.name,
    slug: d.slug,
    label: d.label ?? spaced(d.pluralName),
    titleField: title,
    listColumns,
    fields: all.map(fieldOf),
    operations: d.operations,
    softDelete: d.softDelete,
    history: d.history.keep !== false,
    children: d.children.map((c) => ({ name: c.name, slug: c.slug, fields: [...c.fields, ...c.virtuals].map(fieldOf) })),
    actions: actions.map((r) => ({ path: r.path, label: r.summary })),
  };
}

/** A document as one line, refused unless `schema` validates it. */
function checkedIn(schema: GraphQLSchema, document: string | DocumentNode): string {
  const node = typeof document === 'string' ? parse(document) : document;
  const problems = validate(schema, node);
  if (problems.length) throw new Error(`A console document does not fit the schema: ${problems.map((p) => p.message).join('; ')}\n${print(node)}`);
  return print(node).replace(/\s+/g, ' ').trim();
}

/** Stored value → GraphQL enum value name, per enumerated field of `owner`. */
const enumsOf = (owner: EntityDefinition | ChildDefinition, fields: FieldDefinition[]) =>
  Object.fromEntries(fields.filter(hasEnum).map((f) => [f.name, Object.fromEntries(enumValueNames(owner, f))]));

function documentsOf(d: EntityDefinition, schema: GraphQLSchema): StudioDocuments {
  const checked = (document: string | DocumentNode) => checkedIn(schema, document);
  const n = graphqlNames(d);
  const a = aggregateNames(d);
  const record = rest.writtenRecord(d);
  const on = d.operations;
  const page = (field: string, name: string) =>
    checked(`query ${name}($first: Int, $after: String, $sortBy: ${n.sortField}, $sortOrder: SortOrder, $search: String, $where: ${n.where}) {
      result: ${field}(first: $first, after: $after, sortBy: $sortBy, sortOrder: $sortOrder, search: $search, where: $where) { items ${record} total endCursor }
    }`);
  const children = d.children.map((c) => `${childField(c)} { ${rest.writtenFields(c as never)} parentId }`).join(' ');
  const grouped = groupFields(d);
  const trash = d.softDelete && on.list && on.delete;
  const actions = appModules.flatMap((m) => m.routes ?? []).filter((r) => r.path.startsWith(`/api/v1/${d.slug}/{id}/`));
  return {
    ...(on.list ? { list: page(n.list, `${n.type}Page`) } : {}),
    ...(on.read ? { read: checked(`query ${n.type}Record($id: ID!) { result: ${n.read}(id: $id) { ${rest.writtenFields(d)} ${children} } }`) } : {}),
    ...(on.create ? { create: checked(rest.createDocument(d)) } : {}),
    ...(on.update ? { update: checked(rest.updateDocument(d)) } : {}),
    ...(on.delete ? { delete: checked(rest.deleteDocument(d)) } : {}),
    ...(trash ? { trash: page(n.trash, `${n.type}Trash`), restore: checked(rest.restoreDocument(d)) } : {}),
    ...(on.list && grouped.length ? { aggregate: checked(`query ${a.result}($groupBy: [${a.groupField}!]) { result: ${a.field}(groupBy: $groupBy) { groups { key { ${grouped.map((f) => f.name).join(' ')} } count } } }`) } : {}),
    ...(on.list ? { events: checked(`subscription ${n.type}Changes { result: ${n.read}Events { type } }`) } : {}),
    ...(on.read && d.history.keep !== false
      ? {
          versions: checked(`query ${n.type}Versions($id: ID!, $first: Int) { result: ${n.read}(id: $id) { versions(first: $first) { items { version operation changedFields userId apiKeyId face createdAt record ${record} } } } }`),
          restoreVersion: checked(`mutation ${n.restoreVersion}($id: ID!, $version: Int!) { result: ${n.restoreVersion}(id: $id, version: $version) ${record} }`),
        }
      : {}),
    actions: Object.fromEntries(actions.map((r) => [r.path, checked(r.operation as DocumentNode)])),
    enums: enumsOf(d, [...d.fields, ...d.links, ...d.virtuals]),
    children: Object.fromEntries(
      d.children.map((c) => [c.slug, { key: childField(c), create: checked(rest.childCreateDocument(c)), delete: checked(rest.childDeleteDocument(c)), enums: enumsOf(c, [...c.fields, ...c.virtuals]) }]),
    ),
  };
}

/** Writes console/src/generated/entities.ts and documents.ts (their documents checked against schema/schema.graphql). */
export function writeConsoleFiles(): void {
  const schema = buildSchema(readFileSync(new URL('../schema/schema.graphql', import.meta.url), 'utf8'));
  const header = '// Generated by `npm run generate` from the entity definitions and the app\'s record routes: do not edit.\n';
  const scopeResources: StudioScopeResource[] = modules.flatMap((m) => m.scopes ?? []).map((r) => ({ name: r.name, description: r.description, minimumRole: r.minimumRole ?? 'member' }));
  const body = [
    `import type { StudioEntity, StudioScopeResource } from '../definitions.js';\n`,
    `export const entities: readonly StudioEntity[] = ${JSON.stringify(entityDefinitions.map(entityOf), null, 2)};\n`,
    `export const scopeResources: readonly StudioScopeResource[] = ${JSON.stringify(scopeResources, null, 2)};\n`,
  ].join('\n');
  const out = new URL('../console/src/generated/', import.meta.url);
  mkdirSync(out, { recursive: true });
  writeFileSync(new URL('entities.ts', out), header + body);
  const documents = Object.fromEntries(entityDefinitions.map((d) => [d.slug, documentsOf(d, schema)]));
  writeFileSync(new URL('documents.ts', out), `${header}import type { StudioDocuments } from '../definitions.js';\n\nexport const documents: Record<string, StudioDocuments> = ${JSON.stringify(documents, null, 2)};\n`);
  console.log('✔ Generated console/src/generated/entities.ts and documents.ts');
}
