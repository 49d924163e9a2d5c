// What the console knows of the app's entities: console/src/generated/entities.ts, written by
// `npm run generate` (scripts/generate-console.ts) from the entity definitions and the app's record
// routes (and the scope resources of every module), so a new entity, field or custom operation appears in the console with no console code.
import { entities, scopeResources } from './generated/entities.js';

/** A field as the API names and writes it (`customerId`, `taskIds`: REST and GraphQL alike), with what a form needs of it. */
export interface StudioField {
  name: string;
  label: string;
  type: 'string' | 'text' | 'number' | 'integer' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'select' | 'multiselect' | 'json' | 'email' | 'url' | 'relation' | 'media';
  required: boolean;
  enum?: readonly string[];
  /** A relation's target entity (slug). */
  to?: string;
  /** A list (many-to-many ids, media ids). */
  many: boolean;
  /** Computed by the app's hooks: shown, never written. */
  virtual: boolean;
  sortable: boolean;
  filterable: boolean;
  searchable: boolean;
  min?: number;
  max?: number;
  scale?: number;
}

export interface StudioChild {
  name: string;
  slug: string;
  fields: readonly StudioField[];
}

/** A custom operation on one record (`POST /api/v1/orders/{id}/pay`), a button on the record's page. */
export interface StudioAction {
  /** Its REST route, which names its GraphQL document (documents.ts `actions`). */
  path: string;
  label: string;
}

export interface StudioEntity {
  name: string;
  slug: string;
  label: string;
  titleField: string;
  listColumns: readonly string[];
  fields: readonly StudioField[];
  operations: { list: boolean; create: boolean; read: boolean; update: boolean; delete: boolean };
  softDelete: boolean;
  history: boolean;
  children: readonly StudioChild[];
  actions: readonly StudioAction[];
}

/**
 * An entity's GraphQL documents, each one line whose root field is aliased `result`, as
 * scripts/generate-console.ts writes and validates them (those of operations the definition turns
 * off are absent), and the GraphQL enum value name of each stored choice (`in-progress` → `IN_PROGRESS`).
 */
export interface StudioDocuments {
  list?: string;
  read?: string;
  create?: string;
  update?: string;
  delete?: string;
  trash?: string;
  restore?: string;
  aggregate?: string;
  events?: string;
  versions?: string;
  restoreVersion?: string;
  /** A custom operation's document by its REST path (`/api/v1/orders/{id}/pay` → `payOrder`). */
  actions: Record<string, string>;
  /** Per enumerated field: stored value → enum value name. */
  enums: Record<string, Record<string, string>>;
  /** Per child (by slug): its field on the parent's READ, its writes, its enums. */
  children: Record<string, { key: string; create: string; delete: string; enums: Record<string, Record<string, string>> }>;
}

/** A resource API keys may name scopes of (`tasks`, `media`), and the weakest global role that may grant them. */
export interface StudioScopeResource {
  name: string;
  description: string;
  minimumRole: 'member' | 'developer' | 'superadmin';
}

export const declaredScopes: readonly StudioScopeResource[] = scopeResources;

export const studioEntities: readonly StudioEntity[] = entities;

export const entityOf = (slug: string): StudioEntity | undefined => studioEntities.find((e) => e.slug === slug);
