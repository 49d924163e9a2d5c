// Totals and aggregates: exact, and computed once per state of the data. Counting every matching row
// is the one part of a page whose cost grows with the table (30k matching rows: ~3 ms of index scan
// per request), and an aggregate reads every row it groups. A team's rows in an entity table carry a
// record version that every writing statement renews (a trigger, see the record_versions migration;
// versions are never reused, not even after a rollback), so an answer computed at version V is the
// answer for as long as the version reads V. One cheap read of the version replaces the count or the
// grouping; any write, through the API or straight in SQL, on any instance, makes the next one compute
// again.
import { LRUCache } from 'lru-cache';
import type { Tx } from '../../db/request-db.js';
import { recordVersion } from './repository.js';

/** An answer and the version it was computed at; `weight`: its entries (1 for a total, its groups for an aggregate). */
type Remembered = { version: bigint; answer: unknown; weight: number };

/**
 * Per process; keys hold the team (and the owner, for private entities) through the query's conditions.
 * Bounded at 10,000 entries' worth: a total weighs 1, an aggregate its groups (at most 1,000).
 */
const remembered = new LRUCache<string, Remembered>({ maxSize: 10_000, sizeCalculation: (r) => r.weight });

/**
 * The answer `compute` gives for a query confined to one team's rows of `table` (`key`: the query's
 * complete conditions and what it asks, JSON), remembered while the team's version of the table is
 * unchanged. Public reads across teams (`teamId` null) always compute.
 */
export async function atVersion<T>(tx: Tx, table: string, teamId: string | null, key: object, compute: () => Promise<T>, weight: (answer: T) => number = () => 1): Promise<T> {
  const version = teamId ? await recordVersion(tx, table, teamId) : null;
  if (version === null) return compute();
  const id = `${table}:${JSON.stringify(key)}`;
  const known = remembered.get(id);
  if (known?.version === version) return known.answer as T;
  const answer = await compute();
  remembered.set(id, { version, answer, weight: Math.max(1, weight(answer)) });
  return answer;
}
