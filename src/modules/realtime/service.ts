// Subscriptions to an entity's changes: what a subscriber receives and may keep receiving. A change
// reaches a subscriber when, at delivery, the record is one its LIST with the subscription's filters
// would show it (the entity's rules, RLS, the public filter for anonymous subscribers); a deletion
// when the record was the subscriber's to see (its team, its creator for a private entity, public
// for anonymous subscribers) — never another user's private record, not even its id. A reconnecting
// subscriber names its last event (`after`): what it missed is replayed from the event log first.
import type { Actor } from '../../auth/actor.js';
import { addressGroup } from '../../auth/sign-in-throttle.js';
import { refusalMessage, refusalOf, ruleFailure, type Rule } from '../../auth/rules.js';
import type { EntityDefinition } from '../../config/entity-definition.js';
import { eventsSince, type EventReader } from '../../realtime/event-log.js';
import type { ChangeEvent, Holder, RealtimeAccess, SubscriptionSpec } from '../../realtime/hub.js';
import type { EndReason, Stream } from '../../realtime/stream.js';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { checkListQuery, invalidQuery, type ListQuery } from '../entities/query.js';
import { listRule } from '../entities/rules.js';
import { callerFor } from '../entities/service.js';
import type { Values } from '../entities/validate.js';
import { changeReading } from './change-reads.js';

/** What a subscriber receives: a change of a record, or a GAP (events it missed that cannot be replayed). */
export interface Change {
  /** The event's id in the log (SSE `id:`; `after` / Last-Event-ID resumes after it). */
  eventId: string;
  type: ChangeEvent['type'] | 'GAP';
  /** The record's id; null for a GAP. */
  id: string | null;
  occurredAt: string;
  /** The record as the subscriber may see it; null for deletions and gaps. */
  record: Values | null;
  /** Why there is a gap. */
  reason?: string;
}

/** LIST's filters a subscription takes (no paging or sorting: every change that matches). */
export type ChangeFilters = Pick<ListQuery, 'ids' | 'search' | 'from' | 'to' | 'dateField' | 'filter' | 'where'>;

/** A request that may open subscriptions. */
export interface RealtimeScope extends RequestScope {
  realtime: RealtimeAccess<RealtimeScope>;
}

/** An event's id as clients give it back (`after`, Last-Event-ID): digits of a bigint. */
export const eventIdPattern = /^[0-9]{1,18}$/;

/**
 * Whom a subscription counts against: its user (REALTIME_MAX_SUBSCRIPTIONS_PER_USER, sessions and keys
 * together: keys cost nothing, so a limit per key alone is one a user multiplies) and its API key
 * (REALTIME_MAX_SUBSCRIPTIONS); an anonymous caller's address, an IPv6 one by its /64 (one host's share).
 */
function holdersOf(ctx: RealtimeScope): Holder[] {
  const { actor } = ctx;
  const { maxSubscriptions, maxSubscriptionsPerUser } = ctx.config.realtime;
  if (actor.kind !== 'user') return [{ id: `address ${addressGroup(ctx.client.ip)}`, limit: maxSubscriptions, label: 'one client address' }];
  const user: Holder = { id: `user ${actor.userId}`, limit: maxSubscriptionsPerUser, label: 'one user (sessions and API keys together)' };
  return actor.apiKeyId ? [{ id: `key ${actor.apiKeyId}`, limit: maxSubscriptions, label: 'one API key' }, user] : [user];
}

/**
 * Whose events `actor` may be replayed (its active team's; of a private entity, those of records it
 * created; the public ones when anonymous): read so in SQL, so that others' volume costs it nothing.
 */
function readerOf(d: EntityDefinition, actor: Actor): EventReader {
  if (actor.kind !== 'user') return { public: true };
  // A user has an active team here: callerFor refused one without.
  return { teamId: actor.activeTeamId!, creatorId: d.access.shared ? null : actor.userId };
}

/** Opens a subscription to `d`'s changes for the caller; `after` replays what came after that event first. */
export async function subscribe(ctx: RealtimeScope, d: EntityDefinition, filters: ChangeFilters, after: string | null): Promise<Stream<Change>> {
  // The subscription's rule: LIST's with its filters (the read rule of every entity they reach), the
  // same object GraphQL's field judged; the events route's pipeline judged only LIST's own.
  const rule = listRule(d, filters.where);
  const refusal = refusalOf(rule, ctx.actor);
  if (refusal) throw refusal;
  callerFor(ctx, d, 'list'); // 401 anonymous (unless public), 403 without an active team
  if (after !== null && !eventIdPattern.test(after)) throw invalidQuery([{ path: 'after', message: 'must be the id of an event of this stream' }]);
  const q = checkListQuery(d, filters, { fields: null, metas: d.metas, children: [] });
  const { hub } = ctx.realtime;
  await hub.ready().catch(() => {
    throw new AppError('SERVICE_UNAVAILABLE', 'Subscriptions are unavailable: the server is not listening for changes');
  });
  const subscribed = ctx.actor;
  // Read with the others who see alike, its filters decided in memory; or, when they cannot be, read
  // with SQL in a group of their own, counted against its user's (or address's) REALTIME_MAX_FILTER_GROUPS.
  const reading = changeReading(ctx, d, q, JSON.stringify(filters));
  await reading.check();
  const spec: SubscriptionSpec<Change> = {
    entity: d.slug,
    holders: holdersOf(ctx),
    actor: subscribed,
    credential: ctx.realtime.credential,
    reauthenticate: ctx.realtime.reauthenticate,
    admits: (now) => admits(rule, subscribed, now),
    group: reading.group,
    read: reading.read,
    sieve: reading.sieve,
    filterGroupOwner: reading.readsOwnFilters ? (subscribed.kind === 'user' ? `user ${subscribed.userId}` : `address ${addressGroup(ctx.client.ip)}`) : null,
    async resolve(events, actor) {
      const items = await reading.read(events, actor);
      const { sieve } = reading;
      return sieve ? items.map((item) => (item && sieve.keeps(item) ? item : null)) : items;
    },
  };
  const { stream, release } = hub.open(spec, { held: after !== null });
  if (after === null) return stream;
  try {
    const replayed = await replay(ctx, d, spec, BigInt(after));
    for (const change of replayed) stream.push(change);
    // What the replay sent is not sent again live: held meanwhile, or heard later (the notification of
    // a change the replay read may still be on its way, behind others). Each is heard once, so the set
    // empties; one this instance never hears (committed before it listened) is forgotten after a while.
    const sent = new Set(replayed.map((c) => c.eventId));
    const until = performance.now() + replayOverlapMs;
    release((change) => {
      if (sent.size === 0 || performance.now() > until) return 'all';
      return !sent.delete(change.eventId);
    });
  } catch (error) {
    stream.end({ by: 'client' });
    throw error;
  }
  return stream;
}

/** How long live events are checked against those a replay sent (their notifications arrive within it). */
const replayOverlapMs = 60_000;

/** The missed events the subscriber may see, in order, with a GAP where the log cannot say. */
async function replay(ctx: RealtimeScope, d: EntityDefinition, spec: SubscriptionSpec<Change>, after: bigint): Promise<Change[]> {
  const found = await eventsSince(ctx.system('realtime replay'), spec.entity, after, readerOf(d, spec.actor));
  const changes: Change[] = [];
  const gap = (eventId: string, reason: string): Change => ({ eventId, type: 'GAP', id: null, occurredAt: ctx.now().toISOString(), record: null, reason });
  if (found.kind === 'gap') changes.push(gap(String(after), `Events after ${after} are no longer kept (REALTIME_REPLAY_SECONDS): what changed before the events below was missed; read the list again`));
  for (const change of await spec.resolve(found.events, spec.actor)) if (change) changes.push(change);
  const last = found.events.at(-1)?.id ?? String(after);
  if (found.truncated) changes.push(gap(last, `More events were missed than one reconnection replays: read the list again`));
  return changes;
}

/**
 * How a subscription opened as `then` goes on once its caller re-authenticated as `now`: as `now`
 * (a changed role changes what it sees) in the team it was opened for, or ended.
 */
function admits(rule: Rule, then: Actor, now: Actor): { actor: Actor } | { end: EndReason } {
  const end = (code: 'UNAUTHENTICATED' | 'FORBIDDEN', message: string) => ({ end: { by: 'server' as const, code, message } });
  if (then.kind !== 'user') return { actor: then };
  if (now.kind !== 'user' || now.userId !== then.userId) return end('UNAUTHENTICATED', 'Signed out: the credentials of this subscription no longer verify');
  if (!now.teams.some((t) => t.teamId === then.activeTeamId)) return end('FORBIDDEN', 'No longer a member of the team this subscription follows');
  const failure = ruleFailure(rule, now);
  if (failure) return end('FORBIDDEN', refusalMessage(failure) ?? 'Forbidden');
  return { actor: { ...now, activeTeamId: then.activeTeamId } };
}
