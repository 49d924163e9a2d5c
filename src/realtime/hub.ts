// The realtime hub of one instance. Every change of an entity record is announced by the database
// (the trigger's NOTIFY, delivered at commit, in commit order, to every instance: a rolled-back change
// is never announced), and the hub hands it to the open subscriptions of that entity as each may see
// it. Seeing is the subscriber's own rules, decided at delivery: subscriptions that read an event alike
// form a group and it is read once for them (`read`), then each keeps its share (`sieve`: its filters,
// decided in memory, once per distinct filter of the group), so that what a change costs the database
// does not grow with the filters a user holds; filters read with SQL make groups of their own, at most
// `maxFilterGroups` per owner. Events are dispatched in batches,
// one batch after another, so each subscriber receives them in commit order; what arrives while a
// batch is resolved forms the next one, so a burst costs a read per group and batch, not per event. Credentials of open subscriptions are
// checked again every `recheckMs` (once per credential): a logout, a revoked key, a lost membership
// or a changed role ends the streams or changes what they see from then on.
import type { Logger } from 'pino';
import type { Actor } from '../auth/actor.js';
import type { Database } from '../db/database.js';
import { AppError } from '../shared/errors.js';
import { createGroupCounter } from './group-counter.js';
import { createStream, type EndReason, type Stream } from './stream.js';

/** A change as the database announced it (entity_events). */
export interface ChangeEvent {
  /** The event's id in the log: increasing, as text (a bigint). */
  id: string;
  entity: string;
  recordId: string;
  teamId: string;
  /** The record's creator. */
  userId: string;
  type: 'CREATED' | 'UPDATED' | 'DELETED';
  /** Whether the record was among its entity's public rows (for a deletion: before it). */
  public: boolean;
  occurredAt: string;
}

export const changesChannel = 'entity_events';

/** Most events one dispatch resolves together. */
const maxBatch = 500;

/** Whom open subscriptions are counted against on this instance, and how many that one may hold. */
export interface Holder {
  /** Unique across kinds (`user <id>`, `key <id>`, `address <group>`). */
  id: string;
  limit: number;
  /** Named in the refusal: "one user", "one API key", "one client address". */
  label: string;
}

/** What the hub needs of one subscription; T is what the subscriber receives. */
export interface SubscriptionSpec<T> {
  entity: string;
  /** Whom it counts against (its user and API key, or an anonymous address group): one more than a holder's limit is refused. */
  holders: readonly Holder[];
  actor: Actor;
  /** Subscriptions with the same credential are checked again with one call. */
  credential: string;
  /** The caller as its credentials say now; rejects with a 401 AppError when they no longer verify. */
  reauthenticate(): Promise<Actor>;
  /** The actor the subscription goes on with, as re-authenticated (`now`), or why it ends. */
  admits(now: Actor): { actor: Actor } | { end: EndReason };
  /** Subscriptions whose group is equal (for their current actors) read every event alike: one `read` per group and batch. */
  group(actor: Actor): string;
  /** The events (of this entity, in order) as the group of `actor` reads them: one item each, null when not theirs to see. */
  read(events: readonly ChangeEvent[], actor: Actor): Promise<(T | null)[]>;
  /** What this subscription keeps of its group's items (its filters, decided in memory); null: every one. */
  sieve: Sieve<T> | null;
  /**
   * Set when the subscription's filters are read with SQL in a group of their own (not decided in
   * memory): whom such groups count against, at most `maxFilterGroups` distinct ones each.
   */
  filterGroupOwner: string | null;
  /** The events as this subscriber receives them (`read`, then `sieve`): one item each, null when not theirs. */
  resolve(events: readonly ChangeEvent[], actor: Actor): Promise<(T | null)[]>;
}

/** A subscription's filters decided in memory on its group's items; subscriptions with equal keys keep alike. */
export interface Sieve<T> {
  key: string;
  keeps(item: T): boolean;
}

/** An open subscription: its stream, and (when opened held) the release of what arrived meanwhile. */
export interface Opened<T> {
  stream: Stream<T>;
  /**
   * Delivers what arrived while held and everything after, in order, those `keep` admits: once the
   * events this instance had heard of by now are dispatched (a replay read them too, so they are held and
   * kept out rather than sent again after it). `keep` goes on judging live items (a replayed event's
   * notification may still be on its way), until it says everything passes from now on.
   */
  release(keep: (item: T) => boolean | 'all'): void;
}

export interface Hub {
  /** Resolves once this instance hears changes (its LISTEN is in place); subscriptions open after it. */
  ready(): Promise<void>;
  /** Opens a subscription; held: live events wait until release (a replay goes first). 429 past any of its holders' limits. */
  open<T>(spec: SubscriptionSpec<T>, options?: { held?: boolean }): Opened<T>;
  /** Open subscriptions (all entities). */
  size(): number;
  close(): Promise<void>;
}

/** What a request offers a subscription it opens (its context's `realtime`); S is the request's scope type. */
export interface RealtimeAccess<S> {
  hub: Hub;
  /** Equal for requests that present the same credentials (cookie, key, team header). */
  credential: string;
  /** The caller as this request's credentials say now (checked again while a subscription is open). */
  reauthenticate(): Promise<Actor>;
  /** Runs `work` as `actor` outside this request, in a scope of its own: its transaction, committed when `work` succeeds, else rolled back. */
  detached<T>(actor: Actor, work: (scope: S) => Promise<T>): Promise<T>;
}

export interface HubOptions {
  database: Pick<Database, 'listen'>;
  logger: Logger;
  bufferEvents: number;
  /** Distinct groups of filters read with SQL one owner (a user, an anonymous address) may hold open (filterGroupOwner). */
  maxFilterGroups: number;
  recheckMs: number;
  /** The longest wait after a batch before the next (it waits as long as the batch took, up to this; 0: no wait). */
  batchMs: number;
}

interface Subscription {
  spec: SubscriptionSpec<unknown>;
  actor: Actor;
  stream: Stream<unknown>;
  held: unknown[] | null;
  /** After a held subscription's release, until it answers 'all': which live items are sent. */
  keep: ((item: unknown) => boolean | 'all') | null;
}

/** `items` by `key`, each group in the items' order. */
function groupBy<T>(items: Iterable<T>, key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** The hub; it starts listening for changes at once (see `ready`). */
export function createHub(options: HubOptions): Hub {
  const { logger, bufferEvents } = options;
  const byEntity = new Map<string, Set<Subscription>>();
  const perHolder = new Map<string, number>();
  const filterGroups = createGroupCounter(options.maxFilterGroups);
  let closed = false;

  function deliver(sub: Subscription, item: unknown): void {
    if (!sub.held) return send(sub, item);
    if (sub.held.length >= bufferEvents) sub.stream.end({ by: 'server', code: 'SLOW_CONSUMER', message: `More than ${bufferEvents} events waited to be sent` });
    else sub.held.push(item);
  }

  function send(sub: Subscription, item: unknown): void {
    const verdict = sub.keep?.(item) ?? 'all';
    if (verdict === 'all') sub.keep = null;
    if (verdict) sub.stream.push(item);
  }

  /**
   * Hands a batch of events (in commit order) to the subscriptions of their entities: each group's
   * view of them is read (concurrently), then each subscription's sieve keeps its share (once per
   * distinct sieve of a group), delivered. Resolves with how long that took (the sieves and the
   * subscribers' writes): the event loop's own share of the batch, the reads being waits.
   */
  async function dispatch(batch: ChangeEvent[]): Promise<number> {
    const groups: { subs: Subscription[]; events: ChangeEvent[] }[] = [];
    for (const [entity, events] of groupBy(batch, (event) => event.entity)) {
      for (const subs of groupBy(byEntity.get(entity) ?? [], (sub) => sub.spec.group(sub.actor)).values()) groups.push({ subs, events });
    }
    const resolved = await Promise.all(
      groups.map(async ({ subs, events }) => {
        const first = subs[0]!;
        try {
          return await first.spec.read(events, first.actor);
        } catch (error) {
          logger.error({ err: error, entity: first.spec.entity, events: events.length }, 'realtime: events could not be resolved for their subscribers');
          return [];
        }
      }),
    );
    const started = performance.now();
    groups.forEach(({ subs }, i) => {
      const items = resolved[i]!.filter((item) => item !== null);
      for (const alike of groupBy(subs, (sub) => sub.spec.sieve?.key ?? '').values()) {
        const sieve = alike[0]!.spec.sieve;
        for (const item of sieve ? items.filter((item) => sieve.keeps(item)) : items) for (const sub of alike) deliver(sub, item);
      }
    });
    // The streams' writes of the batch are done before the loop's next check phase.
    await new Promise((resolve) => setImmediate(resolve));
    return performance.now() - started;
  }

  // Events announced and not dispatched yet; one loop dispatches them, a batch at a time. After a
  // batch the hub waits as long as its delivery took (the subscribers' writes; not the reads, which
  // leave the event loop free), at most `batchMs`, and what arrives meanwhile joins the next one: a
  // change after a quiet moment goes at once, and a busy instance writes to each subscriber less
  // often, with more in each write, rather than later (delivery takes at most about half of the
  // event loop).
  const pending: ChangeEvent[] = [];
  let dispatching: Promise<void> | null = null;
  let quietUntil = 0;
  // Events heard and dispatched so far, and who waits for the dispatch of the events heard by then.
  let heard = 0;
  let dispatched = 0;
  let waiters: { upTo: number; resolve: () => void }[] = [];
  function dispatchedAll(): Promise<void> {
    const upTo = heard;
    if (dispatched >= upTo) return Promise.resolve();
    return new Promise((resolve) => waiters.push({ upTo, resolve }));
  }
  async function dispatchPending(): Promise<void> {
    while (pending.length) {
      const wait = quietUntil - performance.now();
      if (wait > 0 && !closed) await new Promise((resolve) => setTimeout(resolve, wait));
      const batch = pending.splice(0, maxBatch);
      const deliveryMs = await dispatch(batch);
      dispatched += batch.length;
      const ready = waiters.filter((w) => w.upTo <= dispatched);
      waiters = waiters.filter((w) => w.upTo > dispatched);
      for (const w of ready) w.resolve();
      quietUntil = performance.now() + Math.min(deliveryMs, options.batchMs);
    }
  }

  function announced(payload: string): void {
    let event: ChangeEvent;
    try {
      event = JSON.parse(payload) as ChangeEvent;
      event.occurredAt = new Date(event.occurredAt).toISOString();
    } catch {
      return logger.error('realtime: an announcement was not JSON');
    }
    pending.push(event);
    heard++;
    dispatching ??= dispatchPending().finally(() => (dispatching = null));
  }

  function endAll(reason: EndReason): void {
    for (const subs of byEntity.values()) for (const sub of [...subs]) sub.stream.end(reason);
  }

  const listening = options.database.listen(changesChannel, {
    message: announced,
    // Changes committed while the listener was away were not heard: clients reconnect and replay them.
    resumed: () => endAll({ by: 'server', code: 'RESYNC', message: 'The server lost its connection to the database for a moment: reconnect (with Last-Event-ID) to receive what changed meanwhile' }),
  });
  listening.catch((error: unknown) => logger.error({ err: error }, 'realtime: listening for changes failed; subscriptions are refused'));

  // Credentials checked again, once per credential per round; a round never overlaps the last.
  let checking = false;
  async function recheck(): Promise<void> {
    if (checking) return;
    checking = true;
    try {
      const all = [...byEntity.values()].flatMap((subs) => [...subs]);
      await Promise.all([...groupBy(all, (sub) => sub.spec.credential).values()].map((subs) => recheckOne(subs)));
    } finally {
      checking = false;
    }
  }
  async function recheckOne(subs: Subscription[]): Promise<void> {
    let actor: Actor;
    try {
      actor = await subs[0]!.spec.reauthenticate();
    } catch (error) {
      // A 403 is a team the credentials no longer reach (a key's x-team-id after the membership was
      // removed): ended too, or the stale actor would go on receiving that team's deletions.
      if (!(error instanceof AppError) || (error.status !== 401 && error.status !== 403)) return; // the database unavailable: judged next round
      const reason: EndReason =
        error.status === 401
          ? { by: 'server', code: 'UNAUTHENTICATED', message: 'The credentials of this subscription are no longer valid (revoked key, or signed out)' }
          : { by: 'server', code: 'FORBIDDEN', message: `The credentials of this subscription no longer reach what it follows: ${error.message}` };
      for (const sub of subs) sub.stream.end(reason);
      return;
    }
    for (const sub of subs) {
      const verdict = sub.spec.admits(actor);
      if ('end' in verdict) sub.stream.end(verdict.end);
      else sub.actor = verdict.actor;
    }
  }
  const timer = setInterval(() => void recheck().catch((error: unknown) => logger.error({ err: error }, 'realtime: checking credentials failed')), options.recheckMs);
  timer.unref();

  return {
    ready: () => listening.then(() => undefined),
    open<T>(spec: SubscriptionSpec<T>, opts: { held?: boolean } = {}): Opened<T> {
      if (closed) throw new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down: subscribe again in a moment');
      // Checked and counted in one synchronous step: concurrent opens never pass a limit together.
      const full = spec.holders.find((h) => (perHolder.get(h.id) ?? 0) >= h.limit);
      if (full) throw new AppError('RATE_LIMITED', `At most ${full.limit} subscriptions may be open at once for ${full.label}`, { limit: full.limit });
      const filterGroup = spec.filterGroupOwner === null ? null : { owner: spec.filterGroupOwner, key: `${spec.entity} ${spec.group(spec.actor)}` };
      if (filterGroup && !filterGroups.admits(filterGroup.owner, filterGroup.key)) {
        const limit = options.maxFilterGroups;
        throw new AppError('RATE_LIMITED', `At most ${limit} subscriptions with distinct filters that are read from the database (case-insensitive text, text order, search, relations) may be open at once for one user or client address: close one, or filter with exact comparisons`, { limit });
      }
      if (filterGroup) filterGroups.add(filterGroup.owner, filterGroup.key);
      for (const h of spec.holders) perHolder.set(h.id, (perHolder.get(h.id) ?? 0) + 1);
      const subs = byEntity.get(spec.entity) ?? new Set<Subscription>();
      byEntity.set(spec.entity, subs);
      const sub: Subscription = {
        spec: spec as SubscriptionSpec<unknown>,
        actor: spec.actor,
        held: opts.held ? [] : null,
        keep: null,
        stream: createStream<unknown>(bufferEvents, () => {
          subs.delete(sub);
          if (filterGroup) filterGroups.remove(filterGroup.owner, filterGroup.key);
          for (const h of spec.holders) {
            const left = (perHolder.get(h.id) ?? 1) - 1;
            if (left > 0) perHolder.set(h.id, left);
            else perHolder.delete(h.id);
          }
        }),
      };
      subs.add(sub);
      return {
        stream: sub.stream as Stream<T>,
        release(keep) {
          void dispatchedAll().then(() => {
            const held = sub.held ?? [];
            sub.held = null;
            sub.keep = keep as (item: unknown) => boolean | 'all';
            for (const item of held) send(sub, item);
          });
        },
      };
    },
    size: () => [...byEntity.values()].reduce((n, subs) => n + subs.size, 0),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      endAll({ by: 'server', code: 'RESTARTING', message: 'The server is shutting down: reconnect (with Last-Event-ID) to continue' });
      await (await listening.catch(() => null))?.();
      await dispatching;
    },
  };
}
