// Per-request batching of lookups by key: the lookups one request makes in the same turn of the
// event loop (GraphQL resolving a field on every record of a list) are read together by one call of
// `read`, so a list costs one query, not one per record. A DataLoader without its cache: every batch
// reads afresh, so a change made earlier in the request is seen. Batches are kept per request scope
// (the GraphQL context), never shared between requests, so each reads as its own caller.
import type { RequestScope } from '../../shared/request-scope.js';

/** Reads the values of `keys` for the request; a key without a value is left out of the map. */
export type ReadMany<K, V> = (scope: RequestScope, keys: K[]) => Promise<Map<K, V>>;

interface Waiting<V> {
  resolve(value: V | undefined): void;
  reject(error: unknown): void;
}

type Batch<K, V> = Map<K, Waiting<V>[]>;

/** Answers every lookup of a batch from one `read` of its distinct keys (or fails them all with its error). */
async function settle<K, V>(read: ReadMany<K, V>, scope: RequestScope, batch: Batch<K, V>): Promise<void> {
  try {
    const values = await read(scope, [...batch.keys()]);
    for (const [key, waiting] of batch) for (const w of waiting) w.resolve(values.get(key));
  } catch (error) {
    for (const waiting of batch.values()) for (const w of waiting) w.reject(error);
  }
}

/**
 * A lookup of one key, batched per request: lookups of the same request made before the batch runs
 * (once the current turn's promise jobs are done: setImmediate) share one `read`.
 */
export function batchedPerRequest<K, V>(read: ReadMany<K, V>): (scope: RequestScope, key: K) => Promise<V | undefined> {
  const open = new WeakMap<RequestScope, Batch<K, V>>();
  return (scope, key) =>
    new Promise((resolve, reject) => {
      let batch = open.get(scope);
      if (!batch) {
        const started: Batch<K, V> = new Map();
        open.set(scope, (batch = started));
        setImmediate(() => {
          open.delete(scope);
          void settle(read, scope, started);
        });
      }
      const waiting = batch.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else batch.set(key, [{ resolve, reject }]);
    });
}
