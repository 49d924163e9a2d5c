// Messages between the instances of one deployment (today: "forget this API key"). With Redis
// (REDIS_URL) they travel over pub/sub; without it the process is alone and handlers run in place.
// Pub/sub delivers at most once and only to connected subscribers, so the bus says whether this
// instance hears everything now (`listening`), and tells its users when it hears again after a gap
// (`onResume`: messages sent meanwhile may be lost). A message this instance could not send waits
// (bounded) and is sent when Redis is back. Publishing never fails: the local handlers always run.
//
// PUBLISH answers once Redis has queued the message for its subscribers, not once they have read it
// (Redis 7 even writes the publisher's answer first), so another instance may take the next request
// before it reads the message from its socket. Every instance therefore acknowledges each message it
// has handled, and a publish resolves once every connection Redis delivered it to did so (bounded).
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { closeRedis, redisConnectionNames, redisTimeouts, watchRedis } from './redis-connection.js';

export interface Broadcast {
  /**
   * Runs this instance's handlers for `channel` at once, then delivers `message` to every other
   * instance: while Redis is up, it resolves once the instances listening have run their handlers
   * (or a second passed); otherwise the message is sent when Redis is back. Never rejects.
   */
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): void;
  /** Whether every message another instance publishes reaches this one now (always true when alone). */
  listening(): boolean;
  /** `handler` runs each time the instance listens again after it could not: it may have missed messages. */
  onResume(handler: () => void): void;
  close(): Promise<void>;
}

/** Publishes on the app's Redis client; subscribing takes a connection of its own (a duplicate). */
export function createBroadcast(redis: Redis | null, logger: Logger): Broadcast {
  return redis ? redisBroadcast(redis, logger) : localBroadcast();
}

function localBroadcast(): Broadcast {
  const handlers = new Map<string, ((message: string) => void)[]>();
  return {
    async publish(channel, message) {
      for (const handler of handlers.get(channel) ?? []) handler(message);
    },
    subscribe(channel, handler) {
      handlers.set(channel, [...(handlers.get(channel) ?? []), handler]);
    },
    listening: () => true,
    onResume() {},
    async close() {},
  };
}

const prefix = 'platform:';
/** Each instance hears the acknowledgements of its own messages on `platform-ack:<its name>`. */
const ackPrefix = 'platform-ack:';
/** How long a publish waits for acknowledgements: a receiver stalled longer, or unable to send one (its client is down), is not waited for. */
const ackTimeoutMs = redisTimeouts.commandTimeoutMs;
/** Messages kept while Redis is down; past this the oldest are dropped (instances that were listening all along miss them). */
const maxUnsent = 10_000;

/** A message for the other instances, numbered by its sender for their acknowledgements. */
interface Outgoing {
  channel: string;
  message: string;
  id: number;
}

/** A publish waiting for the instances its message reached: how many acknowledged it, of how many (known once PUBLISH answered). */
interface Awaited {
  heard: number;
  receivers: number | null;
  done: () => void;
}

/**
 * On the wire a message ends with its sender's name and its number: "<message> <sender> <number>".
 * At the end, so that an instance of an earlier version (during a rolling deploy), which reads a
 * message's words from the front, still applies it; one such an instance sends has neither (no
 * acknowledgement is asked for) and is handled as it is.
 */
function sealed(from: string, { message, id }: Outgoing): string {
  return `${message} ${from} ${id}`;
}

function opened(data: string): { message: string; from: string | null; id: number } {
  const parts = /^([\s\S]*) ([0-9a-f]{16}) (\d+)$/.exec(data);
  return parts ? { message: parts[1]!, from: parts[2]!, id: Number(parts[3]) } : { message: data, from: null, id: 0 };
}

function redisBroadcast(publisher: Redis, logger: Logger): Broadcast {
  const local = localBroadcast();
  // Subscriptions wait for the connection (its offline queue holds only SUBSCRIBEs) and never give up.
  const subscriber = publisher.duplicate({ connectionName: redisConnectionNames.subscriber, enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined });
  watchRedis(subscriber, 'redis subscriber', logger);
  const channels = new Set<string>();
  const resumeHandlers: (() => void)[] = [];
  let subscribed = false;
  let closed = false;
  let unsent: Outgoing[] = [];
  // This instance's name on the bus: the receivers of its messages acknowledge them to it.
  const self = randomBytes(8).toString('hex');
  const acks = ackPrefix + self;
  let numbered = 0;
  const awaited = new Map<number, Awaited>();

  subscriber.on('message', (channel: string, data: string) => {
    if (channel === acks) return acknowledged(Number(data));
    if (!channel.startsWith(prefix)) return;
    const received = opened(data);
    // Its own message was handled when published; that Redis delivered it here counts as an acknowledgement.
    if (received.from === self) return acknowledged(received.id);
    // The handlers run synchronously, so they have run when the acknowledgement goes. One that cannot
    // be sent (this client is down) leaves the sender waiting its bound.
    void local.publish(channel.slice(prefix.length), received.message);
    if (received.from) publisher.publish(ackPrefix + received.from, String(received.id)).catch(() => {});
  });
  subscriber.on('close', () => void (subscribed = false));
  // Listening again only once the server confirmed every subscription on this connection; then what
  // was missed in between is handled by the resume handlers.
  subscriber.on('ready', () => void confirm());

  async function confirm(): Promise<void> {
    try {
      await subscriber.subscribe(acks, ...[...channels].map((c) => prefix + c));
    } catch {
      return; // the connection dropped again: the next 'ready' confirms
    }
    if (subscriber.status !== 'ready' || subscribed) return;
    subscribed = true;
    for (const handler of resumeHandlers) handler();
  }

  function keep(outgoing: Outgoing): void {
    unsent.push(outgoing);
    if (unsent.length > maxUnsent) unsent = unsent.slice(-maxUnsent);
  }

  /** Sends one message; a publish waiting for it learns how many connections it reached. */
  async function send(outgoing: Outgoing): Promise<boolean> {
    try {
      const receivers = await publisher.publish(prefix + outgoing.channel, sealed(self, outgoing));
      const waiting = awaited.get(outgoing.id);
      if (waiting) waiting.receivers = receivers;
      return true;
    } catch {
      return false; // down or not answering: watchRedis logs the state, the message waits
    }
  }

  function acknowledged(id: number): void {
    const waiting = awaited.get(id);
    if (!waiting) return; // its publish answered already
    waiting.heard++;
    if (waiting.receivers !== null && waiting.heard >= waiting.receivers) waiting.done();
  }

  /**
   * Resolves once every connection the message reached acknowledged it, or after ackTimeoutMs; at
   * once if it was not sent (it waits in `unsent`). Acknowledgements from a receiver come in the
   * order of the messages, so this one's also stands for those sent before it.
   */
  function handled(waiting: Awaited, channel: string): Promise<void> {
    const { receivers } = waiting;
    if (receivers === null || waiting.heard >= receivers) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        logger.warn({ channel, receivers, acknowledged: waiting.heard }, 'broadcast message not acknowledged by every receiver in time; answering without them');
        resolve();
      }, ackTimeoutMs);
      waiting.done = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async function sendUnsent(): Promise<void> {
    while (unsent.length > 0 && publisher.status === 'ready') {
      if (!(await send(unsent[0]!))) return;
      unsent.shift();
    }
  }
  /**
   * Sends what waits, in order, one pass at a time; resolves once nothing waits (or Redis fails
   * again). A caller that arrives during a pass waits for it, then starts another if its own message
   * came too late for it: awaiting `draining` resumes only after it was cleared.
   */
  let draining: Promise<void> | null = null;
  async function drain(): Promise<void> {
    while (draining) await draining;
    if (unsent.length === 0 || publisher.status !== 'ready') return;
    draining = sendUnsent().finally(() => (draining = null));
    await draining;
  }
  publisher.on('ready', () => void drain());

  /** Sends `outgoing` now, or keeps it for when Redis is back. */
  async function deliver(outgoing: Outgoing): Promise<void> {
    // Redis reachable (the subscription is up, or this client is connected and being set up) but
    // this client not ready yet (it retries on its own schedule, up to reconnectMaxDelayMs apart):
    // the other instances may be listening already, trusting their caches, so the message waits
    // for it (at most one retry delay and a connect timeout). With Redis down for everyone nobody
    // trusts a cache: no wait.
    if (publisher.status !== 'ready' && (subscriber.status === 'ready' || publisher.status === 'connect')) {
      await whenReady(publisher, redisTimeouts.reconnectMaxDelayMs + redisTimeouts.connectTimeoutMs);
    }
    if (unsent.length === 0 && publisher.status === 'ready') {
      if (!(await send(outgoing))) keep(outgoing); // not answering: it waits
      return;
    }
    keep(outgoing);
    // Redis is back and the messages that waited are being sent: this one goes after them, before
    // this request answers (else another instance could still trust its cache on the next request).
    if (publisher.status === 'ready') await drain();
  }

  return {
    async publish(channel, message) {
      // Applied here at once, then sent to the other instances; this request answers once those it
      // reached applied it too (else one could still trust its cache on the next request).
      await local.publish(channel, message);
      if (closed) return;
      const outgoing: Outgoing = { channel, message, id: ++numbered };
      const waiting: Awaited = { heard: 0, receivers: null, done: () => {} };
      awaited.set(outgoing.id, waiting);
      try {
        await deliver(outgoing);
        await handled(waiting, channel);
      } finally {
        awaited.delete(outgoing.id);
      }
    },
    subscribe(channel, handler) {
      local.subscribe(channel, handler);
      if (channels.has(channel)) return;
      channels.add(channel);
      subscribed = false;
      if (subscriber.status === 'ready') void confirm();
    },
    listening: () => subscribed && subscriber.status === 'ready',
    onResume(handler) {
      resumeHandlers.push(handler);
    },
    /** Closes the subscriber; the publisher is the app's client, closed by the app. */
    async close() {
      closed = true;
      await closeRedis(subscriber);
    },
  };
}

/** Resolves once `redis` is ready, or after `ms` (whichever comes first). */
function whenReady(redis: Redis, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
  });
}
