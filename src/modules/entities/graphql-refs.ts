// The shapes of an entity's GraphQL types as the entities module hands them around (record, inputs,
// list enums, children): the refs graphql-types.ts builds, read by the relations, the aggregates and
// the schema's fields. Types only.
import type { ChildDefinition } from '../../config/entity-definition.js';
import type { Builder } from '../../graphql/builder.js';

export type RecordRef = ReturnType<Builder['objectRef']>;
export type AnyRef = RecordRef | ReturnType<Builder['enumType']> | ReturnType<Builder['inputType']>;

export type Loose = { field: (options: object) => unknown; expose: (name: string, options: object) => unknown; [k: string]: unknown };

export interface ChildTypes {
  child: ChildDefinition;
  record: RecordRef;
  /** Null when the parent cannot be updated (children are written under the parent's update). */
  createInput: AnyRef | null;
  updateInput: AnyRef | null;
}

/** The types of one entity; those only a disabled operation would use are not built (null). */
export interface EntityTypes {
  record: RecordRef;
  createInput: AnyRef | null;
  updateInput: AnyRef | null;
  filter: AnyRef | null;
  where: AnyRef | null;
  page: RecordRef | null;
  deletion: RecordRef | null;
  sortField: AnyRef | null;
  dateField: AnyRef | null;
  fieldName: AnyRef | null;
  children: ChildTypes[];
  /** The enums of select and enumerated multiselect fields, by field name. */
  enums: Map<string, AnyRef>;
}
