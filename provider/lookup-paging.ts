/** Following the service's cursor-paged lists for the lookups (./lookup-queries.ts). */

/** Page size asked of the service's paged lists (its maximum); a test asks for smaller pages. */
export const PAGE_SIZE = 100;

/** Every page of a cursor-paged list; a token seen before ends it (a service repeating one has no more pages). */
export async function allPages<T>(page: (nextToken?: string) => Promise<{ items: T[]; nextToken?: string }>): Promise<T[]> {
  const all: T[] = [];
  const seen = new Set<string>();
  let token: string | undefined;
  for (;;) {
    const { items, nextToken } = await page(token);
    all.push(...items);
    if (!nextToken || seen.has(nextToken)) return all;
    seen.add(nextToken);
    token = nextToken;
  }
}
