// Bounded concurrency: each environment is a Pulumi CLI, a language host and a provider process, so
// running every stack at once would only make them queue for the cores (and hit the service's rate limits).

/** Runs `work` on every item, at most `limit` at a time; one failure does not stop the others. */
export async function settleLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = { status: "fulfilled", value: await work(items[i]!) };
      } catch (reason) {
        results[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
