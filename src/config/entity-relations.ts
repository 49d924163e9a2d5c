// Relations between the sanitized definitions: which entity each relation field names, the reverse
// sides on their targets, the media fields, what REST may expand; and the problems of relations
// sanitizeEntities reports (a target that is not an entity, a name taken on either record).
import type { EntityDefinition, FieldDefinition, OnDelete } from './entity-definition.js';
import { camelSlug, reservedFieldNames } from './entity-names.js';

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
export function relationProblems(definitions: EntityDefinition[]): string[] {
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
