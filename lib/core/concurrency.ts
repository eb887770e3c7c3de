/**
 * Runs `task` for every item, at most `limit` at a time, in item order; resolves when all are
 * done and rejects with the first failure (as `Promise.all`: tasks already started run on).
 */
export async function forEachAtMost<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** `work` for every item, at most `limit` at a time; the results in item order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const indexed = items.map((item, index) => ({ item, index }));
  await forEachAtMost(indexed, limit, async ({ item, index }) => {
    results[index] = await work(item);
  });
  return results;
}
