// Distinct groups per owner, with a cap: how many groups of filters read with SQL one user (or one
// anonymous address) holds open on this instance, each counted once however many subscriptions share it.

export interface GroupCounter {
  /** Whether `owner` may hold `key`: it already does, or holds fewer than the cap. */
  admits(owner: string, key: string): boolean;
  /** One more subscription of `owner` in `key`. */
  add(owner: string, key: string): void;
  /** One subscription of `owner` in `key` less; a group with none left no longer counts. */
  remove(owner: string, key: string): void;
}

/** A counter of at most `cap` distinct groups per owner. */
export function createGroupCounter(cap: number): GroupCounter {
  const owners = new Map<string, Map<string, number>>();
  return {
    admits: (owner, key) => {
      const groups = owners.get(owner);
      return !groups || groups.has(key) || groups.size < cap;
    },
    add(owner, key) {
      const groups = owners.get(owner) ?? new Map<string, number>();
      owners.set(owner, groups);
      groups.set(key, (groups.get(key) ?? 0) + 1);
    },
    remove(owner, key) {
      const groups = owners.get(owner);
      const left = (groups?.get(key) ?? 1) - 1;
      if (left > 0) groups!.set(key, left);
      else groups?.delete(key);
      if (groups && !groups.size) owners.delete(owner);
    },
  };
}
