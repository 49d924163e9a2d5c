// The event log (entity_events) read back: a reconnecting client's missed events, and pruning past
// the replay window. Ids grow in the order events were written, not committed: a transaction still
// running when the client's last event was written may commit later with a lower id. Such events are
// replayed too — those of transactions at or after the last event's `horizon` (the oldest transaction
// then running) — so nothing committed after the client's last event is missed; a few the client
// already had may come again (clients deduplicate by event id).
import type { SystemDb } from '../db/request-db.js';
import type { ChangeEvent } from './hub.js';

/** Most events one reconnection replays; past it the client is told of a gap. */
export const replayLimit = 10_000;

export type Replay = { kind: 'events'; events: ChangeEvent[]; truncated: boolean } | { kind: 'gap'; events: ChangeEvent[]; truncated: boolean };

interface Row {
  id: bigint;
  entity: string;
  record_id: string;
  team_id: string;
  user_id: string;
  type: ChangeEvent['type'];
  public: boolean;
  occurred_at: Date;
}

const eventOf = (row: Row): ChangeEvent => ({ id: String(row.id), entity: row.entity, recordId: row.record_id, teamId: row.team_id, userId: row.user_id, type: row.type, public: row.public, occurredAt: row.occurred_at.toISOString() });

/**
 * What an `entity` subscriber whose last event was `lastId` missed, in id order. A `gap` when that
 * event is no longer kept (older than the replay window, or never an event): then every kept event
 * after it follows.
 */
export async function eventsSince(system: SystemDb, entity: string, lastId: bigint): Promise<Replay> {
  const [last] = await system.prisma.$queryRaw<{ horizon: bigint }[]>`SELECT horizon FROM entity_events WHERE id = ${lastId}`;
  const rows = last
    ? await system.prisma.$queryRaw<Row[]>`
        SELECT id, entity, record_id, team_id, user_id, type, public, occurred_at FROM entity_events
        WHERE entity = ${entity} AND (id > ${lastId} OR (id < ${lastId} AND txid >= ${last.horizon}))
        ORDER BY id LIMIT ${replayLimit + 1}`
    : await system.prisma.$queryRaw<Row[]>`
        SELECT id, entity, record_id, team_id, user_id, type, public, occurred_at FROM entity_events
        WHERE entity = ${entity} AND id > ${lastId} ORDER BY id LIMIT ${replayLimit + 1}`;
  const truncated = rows.length > replayLimit;
  return { kind: last ? 'events' : 'gap', events: rows.slice(0, replayLimit).map(eventOf), truncated };
}

/** Deletes events older than the replay window. */
export async function pruneEvents(system: SystemDb, replayMs: number): Promise<void> {
  await system.prisma.$executeRaw`DELETE FROM entity_events WHERE occurred_at < now() - make_interval(secs => ${replayMs / 1000})`;
}
