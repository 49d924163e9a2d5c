// The data studio's requests, on the GraphQL API: each entity's documents, generated with its manifest
// and validated against the schema (generated/documents.ts), run by the typed client's `graphql`. The
// studio holds values as the definitions store them, so choices go out as their enum names and come
// back as stored values (`in-progress` ⇄ `IN_PROGRESS`); a GraphQL error comes back as the error
// envelope the screens read (`code`, the message as `error`, `details` with the field problems).
import type { StudioDocuments } from './definitions.js';
import { run as runTyped, type Failure } from './api.js';
import { documents } from './generated/documents.js';

export type Values = Record<string, unknown>;
export interface Pagination {
  total?: number;
  /** The cursor of the next page; null on the last. */
  nextCursor?: string | null;
}
type Answer<T> = { data?: { data: T; pagination?: Pagination }; error?: Failure };
type Enums = StudioDocuments['enums'];

const none: StudioDocuments = { actions: {}, enums: {}, children: {} };
const docsOf = (slug: string): StudioDocuments => documents[slug] ?? none;

/** Runs one generated document (its root field aliased `result`): that answer, or the error. */
async function run<T>(document: string | undefined, variables: Values = {}): Promise<{ result?: T; error?: Failure }> {
  if (!document) return { error: { code: 'METHOD_NOT_ALLOWED', error: 'This operation is turned off for this entity.' } };
  const { data, error } = await runTyped<{ result: T }, Values>({ toString: () => document }, variables);
  return error ? { error } : { result: data?.result };
}

const mapped = (value: unknown, names: Record<string, string>): unknown => (Array.isArray(value) ? value.map((v) => names[String(v)] ?? v) : typeof value === 'string' ? (names[value] ?? value) : value);
const reversed = (enums: Enums): Enums => Object.fromEntries(Object.entries(enums).map(([field, names]) => [field, Object.fromEntries(Object.entries(names).map(([stored, name]) => [name, stored]))]));

/** A record's (or input's, or condition's) choices with `enums`' names, in a copy. */
function withNames(values: Values, enums: Enums): Values {
  const out: Values = { ...values };
  for (const [field, names] of Object.entries(enums)) if (field in out) out[field] = mapped(out[field], names);
  return out;
}

/** A `where` with each enumerated field's condition values as enum names (AND/OR/NOT walked). */
function whereWithNames(where: Values, enums: Enums): Values {
  const out: Values = {};
  for (const [key, value] of Object.entries(where)) {
    if (key === 'AND' || key === 'OR') out[key] = (value as Values[]).map((w) => whereWithNames(w, enums));
    else if (key === 'NOT') out[key] = whereWithNames(value as Values, enums);
    else if (enums[key]) out[key] = Object.fromEntries(Object.entries(value as Values).map(([op, v]) => [op, typeof v === 'boolean' ? v : mapped(v, enums[key]!)]));
    else out[key] = value;
  }
  return out;
}

/** Per entity, enum value name → stored value (the generated maps reversed once): its own fields', and each child's by slug. */
const storedChoices = new Map(
  Object.entries(documents).map(([slug, docs]) => [slug, { own: reversed(docs.enums), children: Object.fromEntries(Object.entries(docs.children).map(([child, c]) => [child, reversed(c.enums)])) }]),
);

/** A record as the studio holds it: stored choices, its children under their slugs with theirs. */
function stored(slug: string, record: Values | null | undefined): Values | null {
  if (!record) return null;
  const choices = storedChoices.get(slug);
  const out = withNames(record, choices?.own ?? {});
  for (const [childSlug, child] of Object.entries(docsOf(slug).children)) {
    const rows = out[child.key] as Values[] | undefined;
    if (!rows) continue;
    delete out[child.key];
    out[childSlug] = rows.map((row) => withNames(row, choices?.children[childSlug] ?? {}));
  }
  return out;
}

async function one(slug: string, document: string | undefined, variables: Values): Promise<Answer<Values>> {
  const { result, error } = await run<Values>(document, variables);
  return error ? { error } : { data: { data: stored(slug, result)! } };
}

async function page(slug: string, document: string | undefined, query: ListQuery): Promise<Answer<Values[]>> {
  const enums = docsOf(slug).enums;
  const variables = { first: query.limit, after: query.cursor, sortBy: query.sortBy, sortOrder: query.sortOrder, search: query.search, where: query.where ? whereWithNames(query.where, enums) : undefined };
  const { result, error } = await run<{ items: Values[]; total: number; endCursor: string | null }>(document, variables);
  if (error || !result) return { error: error ?? { code: 'NOT_FOUND', error: 'Nothing came back.' } };
  return { data: { data: result.items.map((r) => stored(slug, r)!), pagination: { total: result.total, nextCursor: result.endCursor } } };
}

/** What a page of records is asked with: LIST's cursor, sort, search and `where` (filters.tsx). */
export interface ListQuery {
  limit?: number;
  cursor?: string;
  sortBy?: string;
  sortOrder?: 'asc' | 'desc';
  search?: string;
  where?: Values;
}

/** A page of an entity's records. */
export const listRecords = (slug: string, query: ListQuery) => page(slug, docsOf(slug).list, query);
/** A record with its children. */
export const readRecord = (slug: string, id: string) => one(slug, docsOf(slug).read, { id });
export const createRecord = (slug: string, input: Values) => one(slug, docsOf(slug).create, { input: withNames(input, docsOf(slug).enums) });
export const updateRecord = (slug: string, id: string, input: Values) => one(slug, docsOf(slug).update, { id, input: withNames(input, docsOf(slug).enums) });
export async function deleteRecord(slug: string, id: string): Promise<{ error?: Failure }> {
  return { error: (await run(docsOf(slug).delete, { id })).error };
}
/** A custom operation on one record, by its REST path (`/api/v1/orders/{id}/pay` runs `payOrder`). */
export const runAction = (slug: string, path: string, id: string) => one(slug, docsOf(slug).actions[path], { id });
export const addChild = (slug: string, id: string, child: string, input: Values) => {
  const c = docsOf(slug).children[child];
  return run<Values>(c?.create, { parentId: id, input: withNames(input, c?.enums ?? {}) });
};
export const deleteChild = (slug: string, id: string, child: string, childId: string) => run(docsOf(slug).children[child]?.delete, { parentId: id, id: childId });

/** Counts by one field, for the entity page's chart: each group's value (stored) and count. */
export async function countsBy(slug: string, field: string): Promise<{ key: string | null; count: number }[]> {
  const { result } = await run<{ groups: { key: Values; count: number }[] }>(docsOf(slug).aggregate, { groupBy: [field] });
  const names = storedChoices.get(slug)?.own[field] ?? {};
  return (result?.groups ?? []).map((g) => ({ key: g.key[field] === null ? null : String(names[String(g.key[field])] ?? g.key[field]), count: g.count }));
}

/** The caller's deleted records of a soft-deleting entity, and bringing one back. */
export const trashRecords = (slug: string, query: ListQuery) => page(slug, docsOf(slug).trash, query);
export const restoreRecord = (slug: string, id: string) => one(slug, docsOf(slug).restore, { id });

/** One version of a record: who changed what, when, through which face; the record as it was after. */
export interface Version {
  version: number;
  operation: string;
  changedFields: string[];
  userId: string | null;
  apiKeyId: string | null;
  face: string;
  createdAt: string;
  record: Values;
}
/** A record's versions, newest first. */
export async function recordVersions(slug: string, id: string): Promise<Answer<Version[]>> {
  const { result, error } = await run<{ versions: { items: Version[] } }>(docsOf(slug).versions, { id, first: 20 });
  if (error || !result) return { error: error ?? { code: 'NOT_FOUND', error: 'Nothing came back.' } };
  return { data: { data: result.versions.items.map((v) => ({ ...v, record: stored(slug, v.record)! })) } };
}
export const restoreVersion = (slug: string, id: string, version: number) => one(slug, docsOf(slug).restoreVersion, { id, version });

/** Calls `changed` on each change of the entity's records the caller may see (the GraphQL subscription, over Server-Sent Events); the returned function stops. */
export function watchRecords(slug: string, changed: () => void): () => void {
  const document = docsOf(slug).events;
  if (!document) return () => {};
  const stream = new EventSource(`/graphql?query=${encodeURIComponent(document)}`);
  stream.addEventListener('next', changed);
  return () => stream.close();
}
