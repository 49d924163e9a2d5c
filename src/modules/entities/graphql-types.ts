// The GraphQL types of one entity definition, built at start-up (names from graphql-names.ts): the
// record type with enums for select and enumerated multiselect fields (internal values are the stored
// strings, so resolvers and the validator see `in-progress`, clients `IN_PROGRESS`), Date/DateTime/
// JSON/StringMap scalars, Create/Update inputs, the filter input, the list's enums, the page and the
// deletion result; children get their record type and inputs the same way.
import { type ChildDefinition, type EntityDefinition, type FieldDefinition, isRanged } from '../../config/entity-definition.js';
import type { Builder } from '../../graphql/builder.js';
import { enumTypeName, enumValueNames, graphqlNames, hasEnum, scalarOf } from './graphql-names.js';
import { childField } from './prisma-model.js';
import type { ListQuery } from './query.js';
import type { ListResult } from './service.js';
import type { Values } from './validate.js';
import { whereType } from './where-types.js';
import type { AnyRef, ChildTypes, EntityTypes, Loose, RecordRef } from './graphql-refs.js';
import { relatedFields, type Relations } from './graphql-relations.js';

/** A GraphQL type of a field value: a scalar's name or an enum. */
type ValueType = 'String' | 'ID' | 'Float' | 'Int' | 'Decimal' | 'Boolean' | 'Date' | 'DateTime' | 'JSON' | AnyRef;

/** Types shared by every entity (registered once per builder). */
export interface SharedTypes {
  sortOrder: ReturnType<Builder['enumType']>;
  distinctValue: RecordRef;
  /** Relay's PageInfo, of a LIST page. */
  pageInfo: RecordRef;
  /** `TaskEdge` for a record type, made once per type. */
  edge: (record: RecordRef, typeName: string) => RecordRef;
}

export function sharedTypes(b: Builder): SharedTypes {
  const sortOrder = b.enumType('SortOrder', { values: { asc: { value: 'asc' }, desc: { value: 'desc' } } as const });
  const distinctValue = b.objectRef<Values>('DistinctValue').implement({
    description: 'One distinct value of a field (LIST with `distinct`).',
    fields: (t) => ({
      value: t.string({ resolve: (v) => String(v.value) }),
      label: t.string({ resolve: (v) => String(v.label) }),
      entityType: t.string({ resolve: (v) => String(v.entityType) }),
    }),
  });
  const pageInfo = b.objectRef<ListResult>('PageInfo').implement({
    description: 'Where a page lies in its list (Relay connections).',
    fields: (t) => {
      const end = (p: ListResult, i: number) => (p.distinct || !p.data.length ? null : p.cursors.of(i));
      return {
        hasNextPage: t.boolean({ resolve: (p) => p.cursors.hasNext }),
        hasPreviousPage: t.boolean({ resolve: (p) => p.cursors.hasPrevious }),
        startCursor: t.string({ nullable: true, resolve: (p) => end(p, 0) }),
        endCursor: t.string({ nullable: true, resolve: (p) => end(p, p.data.length - 1) }),
      };
    },
  });
  const edge = (record: RecordRef, typeName: string) =>
    b.objectRef<{ node: Values; cursor: () => string }>(`${typeName}Edge`).implement({
      fields: (t) => ({
        cursor: t.string({ description: 'Pass as `after` (or `before`) to page from this record.', resolve: (e) => e.cursor() }),
        node: t.field({ type: record as never, resolve: (e) => e.node as never }),
      }),
    }) as unknown as RecordRef;
  return { sortOrder, distinctValue: distinctValue as unknown as RecordRef, pageInfo: pageInfo as unknown as RecordRef, edge };
}

/** The enums of an owner's select and enumerated multiselect fields, by field name. */
function fieldEnums(b: Builder, owner: EntityDefinition | ChildDefinition): Map<string, AnyRef> {
  const enums = new Map<string, AnyRef>();
  for (const f of [...owner.fields, ...owner.virtuals].filter(hasEnum)) {
    const values = Object.fromEntries([...enumValueNames(owner, f)].map(([stored, name]) => [name, { value: stored }]));
    enums.set(f.name, b.enumType(enumTypeName(owner, f), { description: `Values of ${owner.name}.${f.name}.`, values }) as AnyRef);
  }
  return enums;
}

/** The GraphQL type of one value of `f` (a multiselect's item). */
export function valueType(f: FieldDefinition, enums: Map<string, AnyRef>): ValueType {
  const enumRef = enums.get(f.name);
  if (enumRef) return enumRef;
  return scalarOf(f);
}

// Pothos' field builders are typed per call site; the maps below are assembled from definitions, so
// the builders are used through loose signatures (Loose, graphql-refs.ts) and this field map.
type FieldMap = Record<string, never>;

/**
 * The record type's fields: system fields, then the definition's fields by type. The service gives
 * each record with every field (service `present`), so most are exposed as they are: GraphQL's default
 * resolver, which the REST routes' compiled documents read inline (rest/execute.ts).
 */
function recordFields(t: Loose, fields: readonly FieldDefinition[], enums: Map<string, AnyRef>): Record<string, unknown> {
  const out: Record<string, unknown> = { id: t.expose('id', { type: 'ID' }) };
  for (const f of fields) {
    // A multiselect is a non-null list (service `present` gives [] for none chosen).
    // So are a many-to-many relation's ids (the related records the caller can see).
    out[f.name] = t.expose(f.name, f.type === 'multiselect' || f.many ? { type: [valueType(f, enums)] } : { type: valueType(f, enums), nullable: !f.required });
  }
  out.createdAt = t.expose('createdAt', { type: 'DateTime' });
  out.updatedAt = t.expose('updatedAt', { type: 'DateTime' });
  // Null for anonymous readers of public entities: the owners are not theirs to know.
  out.userId = t.expose('userId', { type: 'ID', nullable: true });
  out.teamId = t.expose('teamId', { type: 'ID', nullable: true });
  return out;
}

/** Create (`partial: false`: required fields without a default are non-null) or update (all optional; null clears) input fields. */
function inputFields(t: Loose, fields: readonly FieldDefinition[], enums: Map<string, AnyRef>, partial: boolean, metas: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const type = f.type === 'multiselect' || f.many ? [valueType(f, enums)] : valueType(f, enums);
    out[f.name] = t.field({ type, required: !partial && f.required && f.default === undefined, ...(f.validation ? { description: describeValidation(f) } : {}) });
  }
  if (metas) out.metas = t.field({ type: 'StringMap', required: false, description: partial ? 'Merged into the record’s metas; a null value removes the key.' : 'Free key/value strings.' });
  return out;
}

function describeValidation(f: FieldDefinition): string {
  const { min, max, pattern } = f.validation ?? {};
  const text = ['string', 'text', 'email', 'url'].includes(f.type);
  return [min !== undefined ? `${text ? 'length' : 'value'} ≥ ${min}` : '', max !== undefined ? `${text ? 'length' : 'value'} ≤ ${max}` : '', pattern ? `matches ${pattern}` : ''].filter(Boolean).join(', ');
}


/** Arguments of a reverse side (`Customer.projects(where, sortBy, sortOrder, limit)`). */
export type ReferringArgs = Pick<ListQuery, 'where' | 'sortBy' | 'sortOrder' | 'limit'>;

/** The children's field on a parent record: included with the parent when the query asked for them, else loaded by `load`. */
export type ChildLoader = (record: Values, child: ChildDefinition, ctx: unknown) => Promise<Values[]>;

function childTypes(b: Builder, d: EntityDefinition, child: ChildDefinition, writable: boolean): ChildTypes {
  const enums = fieldEnums(b, child);
  const names = graphqlNames(child);
  const record = b.objectRef<Values>(names.type).implement({
    description: `A ${child.name} of a ${d.name}.`,
    fields: (t) => ({ ...(recordFields(t as unknown as Loose, [...child.fields, ...child.virtuals], enums) as FieldMap), parentId: (t as unknown as Loose).expose('parentId', { type: 'ID' }) as never }),
  }) as unknown as RecordRef;
  if (!writable) return { child, record, createInput: null, updateInput: null };
  const createInput = b.inputType(names.createInput, { fields: (t) => inputFields(t as unknown as Loose, child.fields, enums, false, false) as FieldMap }) as unknown as AnyRef;
  const updateInput = b.inputType(names.updateInput, { fields: (t) => inputFields(t as unknown as Loose, child.fields, enums, true, false) as FieldMap }) as unknown as AnyRef;
  return { child, record, createInput, updateInput };
}

const enumOf = (b: Builder, name: string, values: string[], description: string) =>
  b.enumType(name, { description, values: Object.fromEntries(values.map((v) => [v, { value: v }])) }) as unknown as AnyRef;

export function entityTypes(b: Builder, d: EntityDefinition, shared: SharedTypes, loadChildren: ChildLoader, relations: Relations): EntityTypes {
  const names = graphqlNames(d);
  const enums = fieldEnums(b, d);
  const on = d.operations;
  const children = d.children.map((child) => childTypes(b, d, child, on.update));
  const record = b.objectRef<Values>(names.type).implement({
    description: `A ${d.name} record (entity \`${d.slug}\`).`,
    fields: (t) => {
      const loose = t as unknown as Loose;
      const out = recordFields(loose, [...d.fields, ...d.links, ...d.virtuals], enums);
      if (d.metas) out.metas = loose.expose('metas', { type: 'StringMap' }); // set by every producer (service.ts decorate and written)
      if (d.softDelete) out.deletedAt = loose.expose('deletedAt', { type: 'DateTime', nullable: true });
      Object.assign(out, relatedFields(loose, d, relations));
      for (const c of children) {
        out[childField(c.child)] = loose.field({
          type: [c.record],
          description: `Its ${c.child.slug}, oldest first.`,
          resolve: (r: Values, _args: unknown, ctx: unknown) => (Array.isArray(r[c.child.slug]) ? r[c.child.slug] : loadChildren(r, c.child, ctx)),
        });
      }
      return out as FieldMap;
    },
  }) as unknown as RecordRef;

  const createInput = on.create ? (b.inputType(names.createInput, { description: `A new ${d.name}.`, fields: (t) => inputFields(t as unknown as Loose, [...d.fields, ...d.links], enums, false, d.metas) as FieldMap }) as unknown as AnyRef) : null;
  const updateInput = on.update
    ? (b.inputType(names.updateInput, {
        description: `Changes to a ${d.name}: an absent field is unchanged, null clears it.`,
        fields: (t) => inputFields(t as unknown as Loose, [...d.fields, ...d.links], enums, true, d.metas) as FieldMap,
      }) as unknown as AnyRef)
    : null;
  return { record, createInput, updateInput, enums, ...(on.list ? listTypes(b, d, enums, record, shared) : { filter: null, where: null, page: null, sortField: null, dateField: null, fieldName: null }), deletion: on.delete ? deletionType(b, d, record) : null, children };
}

/** LIST's types: the filter input, the argument enums, the page. */
function listTypes(b: Builder, d: EntityDefinition, enums: Map<string, AnyRef>, record: RecordRef, shared: SharedTypes) {
  const names = graphqlNames(d);

  // Equality per filterable field (a multiselect: contains the value), ranges for numbers and dates.
  const filterable = d.fields.filter((f) => f.filterable);
  const filter = filterable.length
    ? (b.inputType(names.filter, {
        description: `Filters of ${d.slug}, combined with AND.`,
        fields: (t) => {
          const loose = t as unknown as Loose;
          const out: Record<string, unknown> = {};
          for (const f of filterable) {
            out[f.name] = loose.field({ type: valueType(f, enums), required: false });
            if (isRanged(f)) {
              out[`${f.name}_min`] = loose.field({ type: valueType(f, enums), required: false });
              out[`${f.name}_max`] = loose.field({ type: valueType(f, enums), required: false });
            }
          }
          return out as FieldMap;
        },
      }) as unknown as AnyRef)
    : null;

  const system = ['createdAt', 'updatedAt'];
  const sortField = enumOf(b, names.sortField, [...d.fields.filter((f) => f.sortable).map((f) => f.name), ...system], `Fields ${d.slug} sort by.`);
  const dateField = enumOf(b, names.dateField, [...d.fields.filter((f) => f.type === 'date' || f.type === 'datetime').map((f) => f.name), ...system], `Fields the from/to range of ${d.slug} applies to.`);
  const fieldName = enumOf(b, `${names.type}FieldName`, ['id', ...d.fields.map((f) => f.name), ...system], `Fields of ${d.name}.`);

  const page = b.objectRef<ListResult>(names.page).implement({
    description: `A page of ${d.slug}.`,
    fields: (t) => ({
      items: t.field({ type: [record] as never, description: 'The records (empty in distinct mode).', resolve: (p) => (p.distinct ? [] : p.data) as never }),
      values: t.field({ type: [shared.distinctValue] as never, description: 'The distinct values (distinct mode only).', resolve: (p) => (p.distinct ? p.data : []) as never }),
      edges: t.field({
        type: [shared.edge(record, names.type)] as never,
        resolve: (p) => (p.distinct ? [] : p.data.map((node, i) => ({ node, cursor: () => p.cursors.of(i) }))) as never,
      }),
      pageInfo: t.field({ type: shared.pageInfo as never, resolve: (p) => p as never }),
      page: t.int({ nullable: true, description: 'Null in cursor mode (first/after, last/before).', resolve: (p) => p.pagination.page }),
      limit: t.int({ resolve: (p) => p.pagination.limit }),
      total: t.int({ resolve: (p) => p.pagination.total }),
      totalPages: t.int({ resolve: (p) => p.pagination.totalPages }),
      endCursor: t.string({ nullable: true, description: 'Pass as `after` for the next page; null on the last.', resolve: (p) => (p.cursors.hasNext && p.data.length && !p.distinct ? p.cursors.of(p.data.length - 1) : null) }),
    }),
  }) as unknown as RecordRef;

  return { filter, where: whereType(b, d, enums) as unknown as AnyRef, sortField, dateField, fieldName, page };
}

function deletionType(b: Builder, d: EntityDefinition, record: RecordRef): RecordRef {
  return b.objectRef<{ id: string; message: string; record: Values | null }>(`${d.name}Deletion`).implement({
    fields: (t) => ({
      id: t.id({ resolve: (r) => r.id }),
      message: t.string({ resolve: (r) => r.message }),
      record: t.field({ type: record as never, nullable: true, description: d.softDelete ? 'The record, marked deleted (deletedAt).' : 'Null: the record is gone.', resolve: (r) => r.record as never }),
    }),
  }) as unknown as RecordRef;
}
