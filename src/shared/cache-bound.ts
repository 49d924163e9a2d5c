// An LRU cache's bound in entries, without the preallocation `max` brings: lru-cache sizes typed
// arrays for `max` entries up front (5.3 MB of old heap for the API-key and totals caches' 170,000,
// measured), which the server held from its start whether or not a key was ever presented. Counting
// every entry as size 1 against `maxSize` bounds the same number, and the arrays grow as entries come.
const one = () => 1;

/** Options bounding an lru-cache at `count` entries, grown as they are added. */
export const entries = (count: number) => ({ maxSize: count, sizeCalculation: one });
