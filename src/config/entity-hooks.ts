// Lifecycle hooks of an entity definition (issue 37): the app's business rules, run by the entities
// module on every path a record is written or read (REST, GraphQL, children, the CLI's seed, the
// scheduled `content:publish`), inside the request's one transaction and with the caller's authority
// (RLS as the caller). What a hook sees is typed from the definition's own fields: `RecordOf<F>` is
// a record as the API shows it (dates as strings, a relation as its id field: `customer` → `customerId`).
// The order of a write: beforeValidate → validation → beforeChange → (validated again) → the row →
// afterChange → commit → events, webhooks and realtime once. A hook that throws rolls the request back.
import type { Prisma } from '../generated/prisma/client.js';

/** The transaction a hook's system access runs in (the request's, without RLS for the work). */
export type HookTx = Prisma.TransactionClient;

// ---- Records typed from fields -------------------------------------------------------------------

/** A field as a definition file writes it, as far as types go. */
export interface FieldShape {
  name: string;
  type: string;
  required?: boolean;
  many?: boolean;
  virtual?: boolean;
  enum?: readonly string[];
}

/** One of many (`tasks` → `task`, `categories` → `category`), as the sanitizer names a link's ids. */
type Singular<N extends string> = N extends `${infer S}ies` ? `${S}y` : N extends `${infer S}ss` ? `${S}ss` : N extends `${infer S}s` ? S : N;

/** The name a field has on a record: a relation's or media's id field (`customerId`, `attachmentId`), a link's or media list's ids (`taskIds`, `photoIds`). */
type KeyOf<F extends FieldShape> = F extends { type: 'relation' | 'media'; many: true } ? `${Singular<F['name']>}Ids` : F extends { type: 'relation' | 'media' } ? `${F['name']}Id` : F['name'];

/** A field's value as the API shows it. */
type ValueOf<F extends FieldShape> = F extends { type: 'number' | 'integer' }
  ? number
  : F extends { type: 'boolean' }
    ? boolean
    : F extends { type: 'multiselect' }
      ? string[]
      : F extends { type: 'json' }
        ? unknown
        : F extends { type: 'relation' | 'media'; many: true }
          ? string[]
          : F extends { type: 'select'; enum: readonly (infer E)[] }
            ? E
            : string;

type Stored<F extends FieldShape> = Exclude<F, { virtual: true }>;
type Virtual<F extends FieldShape> = Extract<F, { virtual: true }>;

/** What every record has beside its fields. */
export interface RecordStamps {
  id: string;
  createdAt: string;
  updatedAt: string;
  userId: string;
  teamId: string;
}

/** The stored fields of a record, as the API shows them (an optional field may be null). */
export type FieldsOf<F extends FieldShape> = { [K in Stored<F> as KeyOf<K>]: K extends { required: true } ? ValueOf<K> : ValueOf<K> | null };
/** A record as a hook sees it after a write: its fields and stamps. */
export type RecordOf<F extends FieldShape> = FieldsOf<F> & RecordStamps;
/** What a write may set: some of the stored fields. */
export type DataOf<F extends FieldShape> = Partial<FieldsOf<F>>;
/** The virtual fields afterRead fills (`virtual: true`: typed in GraphQL, OpenAPI and the client; never stored). */
export type VirtualsOf<F extends FieldShape> = { [K in Virtual<F> as K['name']]: ValueOf<K> | null };

// ---- What a hook may do --------------------------------------------------------------------------

/** The caller of a write: a user in a team, or the platform itself (a scheduled action run by the system). */
export interface HookCaller {
  /** null when the platform itself writes (a publish scheduled by the platform). */
  userId: string | null;
  teamId: string;
  /** The caller's role in the record's team; null for the platform. */
  role: 'owner' | 'admin' | 'member' | 'viewer' | null;
}

/** Records of any entity, through the same path (rules, hooks, events), in the same transaction, as the same caller. */
export interface HookEntities {
  create(slug: string, data: Record<string, unknown>): Promise<Record<string, unknown>>;
  update(slug: string, id: string, data: Record<string, unknown>): Promise<Record<string, unknown>>;
  remove(slug: string, id: string): Promise<void>;
  /** A record the caller can see, or null. */
  read(slug: string, id: string): Promise<Record<string, unknown> | null>;
}

export interface HookContext {
  caller: HookCaller;
  now(): Date;
  /** Other records, written and read as the caller (their own hooks run too). */
  entities: HookEntities;
  /** Schedules an action for the record's team in the write's transaction (dropped if it rolls back). */
  schedule(actionType: string, payload: Record<string, unknown>, options?: { scheduledAt?: Date }): Promise<string>;
  /** Sends an e-mail once the write is committed (recorded in email_outbox); nothing is sent if it rolls back. */
  sendMail(mail: { to: string; subject: string; text: string }): void;
  /**
   * Named access beyond the caller's rows (RLS off) for `work`, in the write's transaction: for a rule
   * that must read what the caller cannot (a count across the team, a number sequence). Say why in `purpose`.
   */
  system<T>(purpose: string, work: (tx: HookTx) => Promise<T>): Promise<T>;
  /** The error a hook throws to refuse a write: 422 VALIDATION_FAILED with `details` naming the fields, as built-in validation answers. */
  invalid(details: Record<string, string>, message?: string): Error;
  /** The error a hook throws to refuse a write that conflicts with the record's state: 409 CONFLICT. */
  conflict(message: string): Error;
}

export type WriteOperation = 'create' | 'update';

export interface EntityHooks<F extends FieldShape> {
  /**
   * Before validation: the input as the face read it (GraphQL and REST, whose bodies are GraphQL
   * variables: typed by the schema, a datetime a Date, a decimal its text; context.entities and the
   * seed: as given, a datetime ISO 8601 text); return what to validate instead.
   */
  beforeValidate?(args: { operation: WriteOperation; data: Record<string, unknown>; previous: RecordOf<F> | null; context: HookContext }): Record<string, unknown> | void | Promise<Record<string, unknown> | void>;
  /** After validation: the values to store (a create's with defaults, an update's given ones); return changed ones (validated again), or refuse. */
  beforeChange?(args: { operation: WriteOperation; data: DataOf<F>; previous: RecordOf<F> | null; context: HookContext }): DataOf<F> | void | Promise<DataOf<F> | void>;
  /** After the row is written, before commit: the record as stored and as it was (null on create). */
  afterChange?(args: { operation: WriteOperation; record: RecordOf<F>; previous: RecordOf<F> | null; context: HookContext }): void | Promise<void>;
  /** Before a delete: refuse by throwing (context.conflict, context.invalid). */
  beforeDelete?(args: { record: RecordOf<F>; context: HookContext }): void | Promise<void>;
  /** After a delete, before commit. */
  afterDelete?(args: { record: RecordOf<F>; context: HookContext }): void | Promise<void>;
  /** Each record read or written: the values of the definition's virtual fields. Synchronous: it runs for every record of a page. */
  afterRead?(args: { record: RecordOf<F> }): VirtualsOf<F>;
}

type Untyped = Record<string, unknown>;

/** Hooks as the runtime holds them: any definition's (each is typed by its own fields where it is written). */
export interface StoredHooks {
  beforeValidate?(args: { operation: WriteOperation; data: Untyped; previous: Untyped | null; context: HookContext }): unknown;
  beforeChange?(args: { operation: WriteOperation; data: Untyped; previous: Untyped | null; context: HookContext }): unknown;
  afterChange?(args: { operation: WriteOperation; record: Untyped; previous: Untyped | null; context: HookContext }): unknown;
  beforeDelete?(args: { record: Untyped; context: HookContext }): unknown;
  afterDelete?(args: { record: Untyped; context: HookContext }): unknown;
  afterRead?(args: { record: Untyped }): unknown;
}
