// The event log (entity_events) read back: a reconnecting client's missed events, and pruning past
// the replay window. Ids grow in the order events were written, not committed: a transaction still
// running when the client's last event was written may commit later with a lower id. Such events are
// replayed too — those of transactions at or after the last event's `horizon` (the oldest transaction
// then running) — so nothing committed after the client's last event is missed; a few the client
// already had may come again (clients deduplicate by event id). A replay reads only the events of
// its reader's records, in SQL (an index per kind of reader): another team's volume neither costs a
// reconnection its reads nor turns it into a GAP, and the limit counts the reader's own events.
import type { SystemDb } from '../db/request-db.js';
import { Prisma } from '../generated/prisma/client.js';
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

/**
 * Whose events a replay reads: those of a team's records (of one creator's only, for a private entity),
 * or the public ones (an anonymous subscriber).
 */
export type EventReader = { teamId: string; creatorId: string | null } | { public: true };

/** The reader's events, as a condition (its index: entity, team_id, id; or entity, public, id). */
function readBy(reader: EventReader): Prisma.Sql {
  if ('public' in reader) return Prisma.sql`public = true`;
  const team = Prisma.sql`team_id = ${reader.teamId}::uuid`;
  return reader.creatorId === null ? team : Prisma.sql`${team} AND user_id = ${reader.creatorId}::uuid`;
}

const eventOf = (row: Row): ChangeEvent => ({ id: String(row.id), entity: row.entity, recordId: row.record_id, teamId: row.team_id, userId: row.user_id, type: row.type, public: row.public, occurredAt: row.occurred_at.toISOString() });

/**
 * What an `entity` subscriber (`reader`) whose last event was `lastId` missed, in id order. A `gap`
 * when that event is no longer kept (older than the replay window, or never an event): then every
 * kept event after it follows.
 */
export async function eventsSince(system: SystemDb, entity: string, lastId: bigint, reader: EventReader): Promise<Replay> {
  const [last] = await system.prisma.$queryRaw<{ horizon: bigint }[]>`SELECT horizon FROM entity_events WHERE id = ${lastId}`;
  const columns = Prisma.sql`id, entity, record_id, team_id, user_id, type, public, occurred_at`;
  const reads = Prisma.sql`entity = ${entity} AND ${readBy(reader)}`;
  // Two range reads of the reader's index, not one with an OR (which reads all the reader's events of
  // the window): those after the last event, and those written before it by transactions still running
  // then (few; the planner picks the txid index when the last event is recent).
  const after = Prisma.sql`(SELECT ${columns} FROM entity_events WHERE ${reads} AND id > ${lastId} ORDER BY id LIMIT ${replayLimit + 1})`;
  const rows = last
    ? await system.prisma.$queryRaw<Row[]>`
        SELECT ${columns} FROM (${after} UNION ALL (SELECT ${columns} FROM entity_events WHERE ${reads} AND id < ${lastId} AND txid >= ${last.horizon})) AS missed
        ORDER BY id LIMIT ${replayLimit + 1}`
    : await system.prisma.$queryRaw<Row[]>`${after}`;
  const truncated = rows.length > replayLimit;
  return { kind: last ? 'events' : 'gap', events: rows.slice(0, replayLimit).map(eventOf), truncated };
}

/** Deletes events older than the replay window. */
export async function pruneEvents(system: SystemDb, replayMs: number): Promise<void> {
  await system.prisma.$executeRaw`DELETE FROM entity_events WHERE occurred_at < now() - make_interval(secs => ${replayMs / 1000})`;
}
