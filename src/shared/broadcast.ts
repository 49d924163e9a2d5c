// Messages between the instances of one deployment (today: "forget this API key"). With Redis
// (REDIS_URL) they travel over pub/sub; without it the process is alone and handlers run in place.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface Broadcast {
  /** Delivers `message` to every instance's handlers for `channel`, this one included, before resolving. */
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): void;
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
    async close() {},
  };
}

const prefix = 'platform:';

function redisBroadcast(publisher: Redis, logger: Logger): Broadcast {
  const local = localBroadcast();
  // ioredis's default retries for the subscriber (the app's client gives up sooner, after 2).
  const subscriber = publisher.duplicate({ maxRetriesPerRequest: 20 });
  const subscribed = new Set<string>();
  subscriber.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  subscriber.on('message', (channel: string, message: string) => {
    if (channel.startsWith(prefix)) void local.publish(channel.slice(prefix.length), message);
  });
  return {
    async publish(channel, message) {
      // Applied here at once, then sent to the other instances; Redis delivers to every subscriber
      // in one pass, so they have it before this request's answer reaches its client.
      await local.publish(channel, message);
      await publisher.publish(prefix + channel, message);
    },
    subscribe(channel, handler) {
      local.subscribe(channel, handler);
      if (!subscribed.has(channel)) {
        subscribed.add(channel);
        void subscriber.subscribe(prefix + channel).catch((error: Error) => logger.error({ err: error, channel }, 'redis subscribe failed'));
      }
    },
    /** Closes the subscriber; the publisher is the app's client, closed by the app. */
    async close() {
      await subscriber.quit().catch(() => {});
    },
  };
}
