// The GraphQL documents the REST entity routes run, written from a definition at start-up with the
// names of graphql-names.ts and parsed once (the router validates them against the schema like the
// static routes' documents). Each document aliases its root field `result`. A READ or LIST answers
// only the fields REST asked for (`fields=`), the metas (`metas=all`) and the children (`child=`):
// each is an `@include(if: $…)` of the document, so what is not asked for is not resolved.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { type ChildDefinition, type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { expandableRelations, mediaFields, relationTarget } from '../../config/entity-relations.js';
import { graphqlNames } from './graphql-names.js';
import { extremeFields, groupFields, numberFields } from './aggregate.js';
import { aggregateNames } from './aggregate-schema.js';
import { childField } from './prisma-model.js';
import { typedDistinctAlias, typedDistinctFields } from './rest-answers.js';

export type Values = Record<string, unknown>;
/** Every document's answer: its root field under the alias `result`. */
export type Answer = { result: Values };
export type EntityDocument = TypedDocumentNode<Answer, Values>;

/** The variable that includes field `name` in a READ/LIST answer (`$f_title`). */
export const fieldFlag = (name: string) => `f_${name}`;
/** The variable that includes the i-th child of a READ/LIST answer (`$child0`); slugs may hold hyphens, names may not. */
export const childFlag = (index: number) => `child${index}`;
/** Includes the stamps and owner ids that `fields=` cannot name (`userId`, `teamId`, `deletedAt`). */
export const wholeFlag = 'whole';
export const metasFlag = 'metas';
/** The variables of an expanded relation (`expand=customer`): the related record, each of its fields (`fields=customer.name`), its stamps and owners. */
export const relatedFlags = (relation: string) => ({ record: `x_${relation}`, field: (name: string) => `x_${relation}_${name}`, whole: `x_${relation}__whole` });

/** The names `fields=` may pick: the system fields, then the definition's own. */
export const pickableFields = (owner: { fields: FieldDefinition[]; links?: FieldDefinition[]; virtuals?: FieldDefinition[] }) => ['id', ...owner.fields.map((f) => f.name), ...(owner.links ?? []).map((f) => f.name), ...(owner.virtuals ?? []).map((f) => f.name), 'createdAt', 'updatedAt'];

/** The members of a media record that an expanded media field gives (`expand=attachment`) and `fields=` may pick (`attachment.url`). */
export const mediaPickable = ['id', 'url', 'filename', 'mimeType', 'fileSize', 'width', 'height', 'title', 'alt', 'caption', 'renditions', 'createdAt', 'updatedAt'];

/** What `expand=` may name, with the members `fields=` may pick of each: readable relations and links, then media fields. */
export const expandables = (d: EntityDefinition): { name: string; pickable: string[] }[] => [
  ...expandableRelations(d).map((f) => ({ name: f.relation, pickable: pickableFields(relationTarget(f)) })),
  ...mediaFields(d).map((f) => ({ name: f.relation, pickable: mediaPickable })),
];

/** The variable that includes one value of an aggregate group (`$sum_estimatedHours`, `$key_status`). */
export const aggregateFlag = (part: 'key' | 'sum' | 'avg' | 'min' | 'max', field: string) => `${part}_${field}`;

/** Per-entity type names the REST documents need beyond graphqlNames (the LIST's `distinct` argument). */
export const fieldNameEnum = (d: EntityDefinition) => `${d.name}FieldName`;

const document = (text: string) => parse(text, { noLocation: true }) as unknown as EntityDocument;

type Flags = { field: (name: string) => string; whole: string };
const ownFlags: Flags = { field: fieldFlag, whole: wholeFlag };

/** A record's selection, in the order REST answers it (service `present`): id, fields, stamps, owners; each behind its flag when `flags` are given. */
function recordSelection(owner: EntityDefinition | ChildDefinition, flags: Flags | null, extra: string[] = []): string {
  const pick = (name: string) => (flags ? `${name} @include(if: $${flags.field(name)})` : name);
  const whole = (name: string) => (flags ? `${name} @include(if: $${flags.whole})` : name);
  const softDelete = 'softDelete' in owner && owner.softDelete;
  return [...pickableFields(owner).map(pick), ...['userId', 'teamId', ...(softDelete ? ['deletedAt'] : [])].map(whole), ...extra].join(' ');
}

export const childSelection = (child: ChildDefinition) => `{ ${recordSelection(child, null, ['parentId'])} }`;

/** Declarations of the selection variables of a READ/LIST document. */
function flagDeclarations(d: EntityDefinition): string[] {
  return [
    `$${wholeFlag}: Boolean!`,
    ...pickableFields(d).map((name) => `$${fieldFlag(name)}: Boolean!`),
    ...(d.metas ? [`$${metasFlag}: Boolean!`] : []),
    ...d.children.map((_c, i) => `$${childFlag(i)}: Boolean!`),
    ...expandables(d).flatMap(({ name, pickable }) => {
      const flags = relatedFlags(name);
      return [flags.record, flags.whole, ...pickable.map(flags.field)].map((flag) => `$${flag}: Boolean!`);
    }),
  ];
}

/** The related records one expanded many-to-many relation gives (`expand=tasks`): the 20 oldest, so that a LIST of 100 stays within the operation cost limit (GraphQL `tasks(limit)` reads further). */
export const expandedLinks = 20;

/** An expanded relation: the related record (a many-to-many one's records), its fields behind their flags (metas with the whole record). */
function relatedSelection(f: FieldDefinition & { relation: string }): string {
  const target = relationTarget(f);
  const flags = relatedFlags(f.relation);
  const args = f.many ? `(limit: ${expandedLinks}, sortBy: createdAt, sortOrder: asc)` : '';
  return `${f.relation}${args} @include(if: $${flags.record}) { ${recordSelection(target, flags, target.metas ? [`metas @include(if: $${flags.whole})`] : [])} }`;
}

/** An expanded media field: the media record (a list's records), its members behind their flags (its owners with the whole record). */
function mediaSelection(f: FieldDefinition & { relation: string }): string {
  const flags = relatedFlags(f.relation);
  const members = mediaPickable.map((name) => `${name} @include(if: $${flags.field(name)})${name === 'renditions' ? ' { width url }' : ''}`);
  return `${f.relation} @include(if: $${flags.record}) { ${[...members, ...['userId', 'teamId'].map((name) => `${name} @include(if: $${flags.whole})`)].join(' ')} }`;
}

/** The READ/LIST record selection: picked fields, then metas and children when asked for. */
function flaggedRecord(d: EntityDefinition): string {
  const metas = d.metas ? [`metas @include(if: $${metasFlag})`] : [];
  const children = d.children.map((c, i) => `${childField(c)} @include(if: $${childFlag(i)}) ${childSelection(c)}`);
  return `{ ${recordSelection(d, ownFlags, [...metas, ...children, ...expandableRelations(d).map(relatedSelection), ...mediaFields(d).map(mediaSelection)])} }`;
}

/** A record's every field, the stamps and owners, and its metas: what writes answer (service `written`), unbraced. */
export const writtenFields = (d: EntityDefinition) => recordSelection(d, null, d.metas ? ['metas'] : []);
/** A record as writes answer it: every field, the stamps and owners, and its metas. */
export const writtenRecord = (d: EntityDefinition) => `{ ${writtenFields(d)} }`;

/** LIST, or with `among` 'trash' the soft-deleted records (trash.ts), with the same arguments. */
export function listDocument(d: EntityDefinition, among: 'live' | 'trash' = 'live'): EntityDocument {
  const n = graphqlNames(d);
  const field = among === 'trash' ? n.trash : n.list;
  const hasFilter = d.fields.some((f) => f.filterable);
  const args: [string, string][] = [
    ['page', 'Int'], ['limit', 'Int'], ['after', 'String'], ['sortBy', n.sortField], ['sortOrder', 'SortOrder'], ['search', 'String'], ['ids', '[ID!]'],
    ['from', 'Date'], ['to', 'Date'], ['dateField', n.dateField], ...(hasFilter ? [['filter', n.filter] as [string, string]] : []), ['where', n.where], ['distinct', fieldNameEnum(d)],
  ];
  const declarations = [...args.map(([name, type]) => `$${name}: ${type}`), ...flagDeclarations(d)];
  return document(`query ${n.type}${among === 'trash' ? 'Trash' : 'List'}(${declarations.join(', ')}) {
  result: ${field}(${args.map(([name]) => `${name}: $${name}`).join(', ')}) {
    items ${flaggedRecord(d)}
    values { value label entityType }
    page limit total totalPages endCursor${typedDistinctFields(d).map((f) => ` ${typedDistinctAlias(f)}: __typename @include(if: $${fieldFlag(f.name)})`).join('')}
  }
}`);
}

/** Aggregate: LIST's filters and groupBy; each part of a group (`key`, `count`, `sum`…) and each of its fields behind a flag. */
export function aggregateDocument(d: EntityDefinition): EntityDocument {
  const n = graphqlNames(d);
  const a = aggregateNames(d);
  const hasFilter = d.fields.some((f) => f.filterable);
  const grouped = groupFields(d);
  const args: [string, string][] = [
    ...(grouped.length ? [['groupBy', `[${a.groupField}!]`] as [string, string]] : []),
    ['search', 'String'], ['ids', '[ID!]'], ['from', 'Date'], ['to', 'Date'], ['dateField', n.dateField],
    ...(hasFilter ? [['filter', n.filter] as [string, string]] : []), ['where', n.where],
  ];
  const part = (name: 'key' | 'sum' | 'avg' | 'min' | 'max', fields: { name: string }[]) =>
    fields.length ? `${name} @include(if: $${name}) { ${fields.map((f) => `${f.name} @include(if: $${aggregateFlag(name, f.name)})`).join(' ')} }` : '';
  const parts = [part('key', grouped), 'count @include(if: $count)', part('sum', numberFields(d)), part('avg', numberFields(d)), part('min', extremeFields(d)), part('max', extremeFields(d))].filter(Boolean);
  const flags = ['count', ...(grouped.length ? ['key', ...grouped.map((f) => aggregateFlag('key', f.name))] : [])];
  for (const measure of ['sum', 'avg', 'min', 'max'] as const) {
    const fields = measure === 'sum' || measure === 'avg' ? numberFields(d) : extremeFields(d);
    if (fields.length) flags.push(measure, ...fields.map((f) => aggregateFlag(measure, f.name)));
  }
  const declarations = [...args.map(([name, type]) => `$${name}: ${type}`), ...flags.map((flag) => `$${flag}: Boolean!`)];
  return document(`query ${a.result}(${declarations.join(', ')}) {
  result: ${a.field}(${args.map(([name]) => `${name}: $${name}`).join(', ')}) { groups { ${parts.join(' ')} } }
}`);
}

export function readDocument(d: EntityDefinition): EntityDocument {
  const n = graphqlNames(d);
  return document(`query ${n.type}Read($id: ID!, ${flagDeclarations(d).join(', ')}) { result: ${n.read}(id: $id) ${flaggedRecord(d)} }`);
}

export function createDocument(d: EntityDefinition): EntityDocument {
  const n = graphqlNames(d);
  return document(`mutation ${n.create}($input: ${n.createInput}!) { result: ${n.create}(input: $input) ${writtenRecord(d)} }`);
}

export function updateDocument(d: EntityDefinition): EntityDocument {
  const n = graphqlNames(d);
  return document(`mutation ${n.update}($id: ID!, $input: ${n.updateInput}!) { result: ${n.update}(id: $id, input: $input) ${writtenRecord(d)} }`);
}

/** An app's operation on one record (custom-operations.ts): `field(id:)` answers a record of `d`, selected as a write's answer is. */
export function recordOperationDocument(d: EntityDefinition, kind: 'query' | 'mutation', field: string): EntityDocument {
  return document(`${kind} ${field}($id: ID!) { result: ${field}(id: $id) ${writtenRecord(d)} }`);
}

/** DELETE: the message, or for soft deletes the record as it now is (service `present`: no metas); `purge`: removed for good. */
export function deleteDocument(d: EntityDefinition): EntityDocument {
  const n = graphqlNames(d);
  const record = d.softDelete ? ` record { ${recordSelection(d, null)} }` : '';
  return document(`mutation ${n.delete}($id: ID!, $purge: Boolean) { result: ${n.delete}(id: $id, purge: $purge) { message${record} } }`);
}

/** Takes a record out of the trash (trash.ts). */
export function restoreDocument(d: EntityDefinition): EntityDocument {
  const n = graphqlNames(d);
  return document(`mutation ${n.restore}($id: ID!) { result: ${n.restore}(id: $id) ${writtenRecord(d)} }`);
}

/** A parent's children, read through the parent (the parent's read rules apply). */
export function childListDocument(d: EntityDefinition, child: ChildDefinition): EntityDocument {
  const n = graphqlNames(d);
  return document(`query ${n.type}${child.name}List($id: ID!) { result: ${n.read}(id: $id) { children: ${childField(child)} ${childSelection(child)} } }`);
}

export function childCreateDocument(child: ChildDefinition): EntityDocument {
  const n = graphqlNames(child);
  return document(`mutation ${n.create}($parentId: ID!, $input: ${n.createInput}!) { result: ${n.create}(parentId: $parentId, input: $input) ${childSelection(child)} }`);
}

export function childUpdateDocument(child: ChildDefinition): EntityDocument {
  const n = graphqlNames(child);
  return document(`mutation ${n.update}($parentId: ID!, $id: ID!, $input: ${n.updateInput}!) { result: ${n.update}(parentId: $parentId, id: $id, input: $input) ${childSelection(child)} }`);
}

export function childDeleteDocument(child: ChildDefinition): EntityDocument {
  const n = graphqlNames(child);
  return document(`mutation ${n.delete}($parentId: ID!, $id: ID!) { result: ${n.delete}(parentId: $parentId, id: $id) }`);
}

/** The document of a route that only refuses (see rest-answers `refuseDisabled`): it never runs. */
export const disabledDocument = (): EntityDocument => document('query Disabled { __typename }');
