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
