// LIST totals: exact, and counted once per state of the data. Counting every matching row is the one
// part of a page whose cost grows with the table (30k matching rows: ~3 ms of index scan per request).
// A team's rows in an entity table carry a record version that every writing statement renews
// (a trigger, see the record_versions migration; versions are never reused, not even after a
// rollback), so a total counted at version V is the total for as long as the version reads V. One
// cheap read of the version replaces the count; any write, through the API or straight in SQL,
// on any instance, makes the next LIST count again.
import { LRUCache } from 'lru-cache';
import { entries } from '../../shared/cache-bound.js';
import type { Tx } from '../../db/request-db.js';
import { recordVersion } from './repository.js';

/** Per process; keys hold the team (and the owner, for private entities) through the query's conditions. */
const remembered = new LRUCache<string, { version: bigint; total: number }>(entries(10_000));

/**
 * The number of rows `count` counts, for a query confined to one team's rows of `table` (`where`, the
 * query's complete conditions, identifies it). Public reads across teams (`teamId` null) always count.
 */
export async function exactTotal(tx: Tx, table: string, teamId: string | null, where: object, count: () => Promise<number>): Promise<number> {
  const version = teamId ? await recordVersion(tx, table, teamId) : null;
  if (version === null) return count();
  const key = `${table}:${JSON.stringify(where)}`;
  const known = remembered.get(key);
  if (known?.version === version) return known.total;
  const total = await count();
  remembered.set(key, { version, total });
  return total;
}
