// Pothos' Prisma plugin asks for a client synchronously; the request's RLS transaction opens on first
// use. This stands in for the client: each model call waits for the transaction, then runs in it.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { RequestDb } from '../db/request-db.js';

const cache = new WeakMap<RequestDb, PrismaClient>();

/** A PrismaClient-shaped view of the request's transaction, for the Prisma plugin's relation loading. */
export function lazyPrismaClient(db: RequestDb): PrismaClient {
  let client = cache.get(db);
  if (!client) {
    const models = new Proxy({} as Record<string, unknown>, {
      get: (_, model: string) =>
        new Proxy({}, {
          get: (__, method: string) => async (...args: unknown[]) => {
            const tx = (await db.tx()) as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>;
            return tx[model]![method]!(...args);
          },
        }),
    });
    client = models as unknown as PrismaClient;
    cache.set(db, client);
  }
  return client;
}
