/** Work on many members, a few at a time. */

/**
 * Runs `work` on each item, at most `limit` at once, and gives each item's result in the items' order.
 * Once `signal` fires no further item is started: its result is undefined (those under way finish,
 * so what they made is known). `work` is expected to turn its failures into results.
 */
export async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>, signal?: AbortSignal): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array<R | undefined>(items.length).fill(undefined);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !signal?.aborted) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
