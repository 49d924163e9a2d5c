// Messages between the instances of one deployment (today: "forget this API key"). With REDIS_URL
// they travel over Redis pub/sub; without it the process is alone and handlers run in place.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface Broadcast {
  /** Delivers `message` to every instance's handlers for `channel`, this one included, before resolving. */
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): void;
  close(): Promise<void>;
}

export function createBroadcast(redisUrl: string | undefined, logger: Logger): Broadcast {
  return redisUrl ? redisBroadcast(redisUrl, logger) : localBroadcast();
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

function redisBroadcast(url: string, logger: Logger): Broadcast {
  const local = localBroadcast();
  const publisher = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  const subscriber = new Redis(url, { lazyConnect: false });
  const subscribed = new Set<string>();
  for (const client of [publisher, subscriber]) client.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
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
    async close() {
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
    },
  };
}
