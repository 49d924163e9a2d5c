// The data studio's requests: an entity's REST routes (/api/v1/<slug>…) through the typed client,
// whose paths are typed per entity; the studio reaches them by the slug of a definition, so it names
// them as strings here, in one place.
import { platform } from './api.js';

export type Values = Record<string, unknown>;
type Answer<T> = { data?: { data: T; pagination?: Pagination }; error?: unknown; response: Response };
export interface Pagination {
  total?: number;
  nextCursor?: string | null;
  hasMore?: boolean;
}
type Init = { params?: { query?: Record<string, unknown> }; body?: unknown };

const rest = platform.rest as unknown as Record<'GET' | 'POST' | 'PATCH' | 'DELETE', <T>(path: string, init?: Init) => Promise<Answer<T>>>;

/** A page of an entity's records: LIST's query (filters, sort, search, cursor). */
export const listRecords = (slug: string, query: Record<string, unknown>) => rest.GET<Values[]>(`/api/v1/${slug}`, { params: { query } });
export const readRecord = (slug: string, id: string) => rest.GET<Values>(`/api/v1/${slug}/${encodeURIComponent(id)}`, { params: { query: { child: 'all' } } });
export const createRecord = (slug: string, body: Values) => rest.POST<Values>(`/api/v1/${slug}`, { body });
export const updateRecord = (slug: string, id: string, body: Values) => rest.PATCH<Values>(`/api/v1/${slug}/${encodeURIComponent(id)}`, { body });
export const deleteRecord = (slug: string, id: string) => rest.DELETE<Values>(`/api/v1/${slug}/${encodeURIComponent(id)}`);
/** A custom operation's route (`/api/v1/orders/{id}/pay`) on one record. */
export const runAction = (method: string, path: string, id: string) => rest[method as 'POST']<Values>(path.replace('{id}', encodeURIComponent(id)));
export const addChild = (slug: string, id: string, child: string, body: Values) => rest.POST<Values>(`/api/v1/${slug}/${encodeURIComponent(id)}/child/${child}`, { body });
export const deleteChild = (slug: string, id: string, child: string, childId: string) => rest.DELETE<Values>(`/api/v1/${slug}/${encodeURIComponent(id)}/child/${child}/${encodeURIComponent(childId)}`);
/** Counts by one field (`groupBy`), for the entity page's chart. */
export const aggregateRecords = (slug: string, query: Record<string, unknown>) => rest.GET<unknown>(`/api/v1/${slug}/aggregate`, { params: { query } });
/** The caller's deleted records of a soft-deleting entity, and bringing one back. */
export const trashRecords = (slug: string, query: Record<string, unknown>) => rest.GET<Values[]>(`/api/v1/${slug}/trash`, { params: { query } });
export const restoreRecord = (slug: string, id: string) => rest.POST<Values>(`/api/v1/${slug}/${encodeURIComponent(id)}/restore`);
/** A record's versions, newest first (each with `changedFields` and the record as it was). */
export const recordVersions = (slug: string, id: string) => rest.GET<Values[]>(`/api/v1/${slug}/${encodeURIComponent(id)}/versions`, { params: { query: { limit: 20 } } });
export const restoreVersion = (slug: string, id: string, version: number) => rest.POST<Values>(`/api/v1/${slug}/${encodeURIComponent(id)}/versions/${version}/restore`);
