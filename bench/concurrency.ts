// Many small HTTP calls with a bounded number in flight: creating a thousand API keys one after the
// other takes long, all at once would swamp the server (and its pool of 8 connections).

/**
 * Calls `work` on every item with at most `limit` calls in flight; results keep the items' order.
 * The first failure rejects the whole call and no further item is started.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]!, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
