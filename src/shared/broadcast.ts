// Messages between the instances of one deployment (today: "forget this API key"). With Redis
// (REDIS_URL) they travel over pub/sub; without it the process is alone and handlers run in place.
// Pub/sub delivers at most once and only to connected subscribers, so the bus says whether this
// instance hears everything now (`listening`), and tells its users when it hears again after a gap
// (`onResume`: messages sent meanwhile may be lost). A message this instance could not send waits
// (bounded) and is sent when Redis is back. Publishing never fails: the local handlers always run.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { closeRedis, redisConnectionNames, redisTimeouts, watchRedis } from './redis-connection.js';

export interface Broadcast {
  /**
   * Runs this instance's handlers for `channel` at once, then delivers `message` to every other
   * instance (before resolving, while Redis is up; when it is back, otherwise). Never rejects.
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
/** Messages kept while Redis is down; past this the oldest are dropped (instances that were listening all along miss them). */
const maxUnsent = 10_000;

function redisBroadcast(publisher: Redis, logger: Logger): Broadcast {
  const local = localBroadcast();
  // Subscriptions wait for the connection (its offline queue holds only SUBSCRIBEs) and never give up.
  const subscriber = publisher.duplicate({ connectionName: redisConnectionNames.subscriber, enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined });
  watchRedis(subscriber, 'redis subscriber', logger);
  const channels = new Set<string>();
  const resumeHandlers: (() => void)[] = [];
  let subscribed = false;
  let closed = false;
  let unsent: [string, string][] = [];

  subscriber.on('message', (channel: string, message: string) => {
    if (channel.startsWith(prefix)) void local.publish(channel.slice(prefix.length), message);
  });
  subscriber.on('close', () => void (subscribed = false));
  // Listening again only once the server confirmed every subscription on this connection; then what
  // was missed in between is handled by the resume handlers.
  subscriber.on('ready', () => void confirm());

  async function confirm(): Promise<void> {
    if (channels.size === 0) return;
    try {
      await subscriber.subscribe(...[...channels].map((c) => prefix + c));
    } catch {
      return; // the connection dropped again: the next 'ready' confirms
    }
    if (subscriber.status !== 'ready' || subscribed) return;
    subscribed = true;
    for (const handler of resumeHandlers) handler();
  }

  function keep(channel: string, message: string): void {
    unsent.push([channel, message]);
    if (unsent.length > maxUnsent) unsent = unsent.slice(-maxUnsent);
  }

  async function send(channel: string, message: string): Promise<boolean> {
    try {
      await publisher.publish(prefix + channel, message);
      return true;
    } catch {
      return false; // down or not answering: watchRedis logs the state, the message waits
    }
  }

  async function sendUnsent(): Promise<void> {
    while (unsent.length > 0 && publisher.status === 'ready') {
      const [channel, message] = unsent[0]!;
      if (!(await send(channel, message))) return;
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

  return {
    async publish(channel, message) {
      // Applied here at once, then sent to the other instances; Redis delivers to every subscriber
      // in one pass, so they have it before this request's answer reaches its client.
      await local.publish(channel, message);
      if (closed) return;
      // Redis reachable (the subscription is up, or this client is connected and being set up) but
      // this client not ready yet (it retries on its own schedule, up to reconnectMaxDelayMs apart):
      // the other instances may be listening already, trusting their caches, so the message waits
      // for it (at most one retry delay and a connect timeout). With Redis down for everyone nobody
      // trusts a cache: no wait.
      if (publisher.status !== 'ready' && (subscriber.status === 'ready' || publisher.status === 'connect')) {
        await whenReady(publisher, redisTimeouts.reconnectMaxDelayMs + redisTimeouts.connectTimeoutMs);
      }
      if (unsent.length === 0 && publisher.status === 'ready') {
        if (!(await send(channel, message))) keep(channel, message); // not answering: it waits
        return;
      }
      keep(channel, message);
      // Redis is back and the messages that waited are being sent: this one goes after them, before
      // this request answers (else another instance could still trust its cache on the next request).
      if (publisher.status === 'ready') await drain();
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
