// How the changes a subscription receives are read, so that what a write costs is bounded by
// something no user can multiply. Subscribers who see records alike (a visibility class: a team's
// members on a shared entity whose records read alike for all, else one user in one team; anonymous
// readers of a public entity) share one read of each batch's changed records, and each subscription's
// filters are decided in memory on the rows read (where-in-memory.ts): a user's 500 distinct filters
// cost one read per batch, as 500 alike do. Filters memory cannot decide exactly (case-insensitive
// text, text order, search, relations) are read with SQL in a group per distinct filter, as before;
// the hub caps those groups per user (REALTIME_MAX_FILTER_GROUPS).
import type { Actor } from '../../auth/actor.js';
import type { EntityDefinition } from '../../config/entity-definition.js';
import type { ChangeEvent, Sieve } from '../../realtime/hub.js';
import { checkListQuery, type ParsedQuery } from '../entities/query.js';
import { filterWhere, listedMany } from '../entities/service.js';
import { seenAlikeInTeam } from '../entities/visibility.js';
import { inMemoryFilter } from '../entities/where-in-memory.js';
import type { Change, RealtimeScope } from './service.js';

type Values = Record<string, unknown>;

/** How one subscription's changes are read: its group's read, then what its filters keep of it. */
export interface ChangeReading {
  /** Subscriptions with equal groups share one read per batch. */
  group(actor: Actor): string;
  /** The batch's events as the group reads them: a change each, null when not the group's to see. */
  read(events: readonly ChangeEvent[], actor: Actor): Promise<(Change | null)[]>;
  /** The subscription's filters, decided in memory on what its group read; null: it keeps all its group reads. */
  sieve: Sieve<Change> | null;
  /** Whether its filters are read with SQL, in a group of their own (counted against REALTIME_MAX_FILTER_GROUPS). */
  readsOwnFilters: boolean;
  /**
   * Reads with the filters once, in the request that opens the subscription (nothing is found): a filter
   * the database refuses (a number it cannot hold) is refused then, as LIST refuses it, not at every change.
   */
  check(): Promise<void>;
}

/** An id no record has: what `check` reads. */
const noRecord = '00000000-0000-0000-0000-000000000000';

/** The stored row each change of a class read was made from, for the sieves (never sent). */
const rowOf = new WeakMap<Change, Values>();

/** A LIST without filters: what a visibility class reads. */
const bareQueries = new WeakMap<EntityDefinition, ParsedQuery>();
function bareQuery(d: EntityDefinition): ParsedQuery {
  let q = bareQueries.get(d);
  if (!q) bareQueries.set(d, (q = checkListQuery(d, {}, { fields: null, metas: d.metas, children: [] })));
  return q;
}

/** Whether an event is about a record `actor` could see (team, creator, public), before reading it. */
function concerns(d: EntityDefinition, event: ChangeEvent, actor: Actor): boolean {
  if (actor.kind !== 'user') return event.public;
  return event.teamId === actor.activeTeamId && (d.access.shared || event.userId === actor.userId);
}

/**
 * The events `actor` may see, read once for the batch with `q` (its filters in SQL): a change each,
 * with the record as it is now (null when no longer listed: deleted since, or filtered out); a
 * deletion as it is. `ids`: LIST's `ids`, which also limit deletions.
 */
async function readChanges(ctx: RealtimeScope, d: EntityDefinition, q: ParsedQuery, ids: ReadonlySet<string> | null, events: readonly ChangeEvent[], actor: Actor): Promise<(Change | null)[]> {
  const seen = new Set(events.filter((event) => concerns(d, event, actor) && (!ids || ids.has(event.recordId))));
  const wanted = [...new Set([...seen].filter((event) => event.type !== 'DELETED').map((event) => event.recordId))];
  const listed = wanted.length ? await ctx.realtime.detached(actor, (scope) => listedMany(scope, d, wanted, q)) : new Map<string, { record: Values; row: Values }>();
  return events.map((event) => {
    if (!seen.has(event)) return null;
    const change: Change = { eventId: event.id, type: event.type, id: event.recordId, occurredAt: event.occurredAt, record: null };
    if (event.type === 'DELETED') return change;
    const found = listed.get(event.recordId);
    if (!found) return null;
    const withRecord = { ...change, record: found.record };
    rowOf.set(withRecord, found.row);
    return withRecord;
  });
}

/** How the subscription of `ctx`'s caller to `d` with the checked filters `q` (as given: `filtersKey`) is read. */
export function changeReading(ctx: RealtimeScope, d: EntityDefinition, q: ParsedQuery, filtersKey: string): ChangeReading {
  // The ids LIST's `ids` names, as the database compares uuids (any case).
  const ids = q.ids ? new Set(q.ids.map((id) => id.toLowerCase())) : null;
  const conditions = filterWhere(d, q);
  const keep = conditions.length ? inMemoryFilter(d, conditions) : null;
  if (conditions.length && !keep) {
    // Read with SQL. Relations and reverse sides read other tables as the caller: per user then.
    const alike = seenAlikeInTeam(d) && !q.across;
    return {
      group: (actor) => (actor.kind === 'user' ? `filtered ${alike ? 'team' : `user ${actor.userId}`} ${actor.activeTeamId} ${filtersKey}` : `filtered public ${filtersKey}`),
      read: (events, actor) => readChanges(ctx, d, q, ids, events, actor),
      sieve: null,
      readsOwnFilters: true,
      // Detached, as every read of a subscription is: the opening request holds no transaction, so a
      // replay's reads after it (system access; on PGlite the one connection) do not wait behind one.
      check: () => ctx.realtime.detached(ctx.actor, async (scope) => void (await listedMany(scope, d, [noRecord], q))),
    };
  }
  const alike = seenAlikeInTeam(d);
  const bare = bareQuery(d);
  return {
    group: (actor) => (actor.kind === 'user' ? `class ${alike ? 'team' : `user ${actor.userId}`} ${actor.activeTeamId}` : 'class public'),
    read: (events, actor) => readChanges(ctx, d, bare, null, events, actor),
    // A deletion reaches everyone who could see the record, whatever their filters but `ids`.
    sieve: keep && {
      key: `filters ${filtersKey}`,
      keeps: (change) => {
        if (change.type === 'DELETED') return !ids || ids.has(change.id!);
        const row = rowOf.get(change);
        return row !== undefined && keep(row);
      },
    },
    readsOwnFilters: false,
    check: async () => {},
  };
}
