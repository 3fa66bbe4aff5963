/**
 * Cursor pagination as the real list endpoints do it: `limit` items per page and an opaque
 * `nextToken` (sent back in `X-Next-Token`) naming the last item seen, so items created or removed
 * between pages do not shift the next page.
 */
import { ApiError } from "./http";

/** Sort key of an item: a time in milliseconds, then an ID to break ties. */
export interface PageKey {
  t: number;
  id: string;
}

/** How to cut one page. */
export interface PageOptions {
  /** Items per page, at least 1. */
  limit: number;
  /** The `nextToken` of the previous page, or null for the first page. */
  token: string | null;
  order: "asc" | "desc";
}

/** Sorts `items` by key in `order` and returns the page after `token`, with the next token when more remain. */
export function paginate<T>(items: T[], key: (item: T) => PageKey, opts: PageOptions): { page: T[]; next?: string } {
  const sign = opts.order === "asc" ? 1 : -1;
  const cmp = (a: PageKey, b: PageKey) => sign * (a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const sorted = [...items].sort((a, b) => cmp(key(a), key(b)));
  const after = opts.token ? decodeToken(opts.token) : undefined;
  const rest = after ? sorted.filter((item) => cmp(key(item), after) > 0) : sorted;
  const page = rest.slice(0, opts.limit);
  const last = page.at(-1);
  if (rest.length <= opts.limit || last === undefined) return { page };
  return { page, next: encodeToken(key(last)) };
}

function encodeToken(k: PageKey): string {
  return Buffer.from(JSON.stringify([k.t, k.id])).toString("base64url");
}

function decodeToken(token: string): PageKey {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (Array.isArray(value) && typeof value[0] === "number" && typeof value[1] === "string") return { t: value[0], id: value[1] };
  } catch {
    // falls through to the 400 below
  }
  throw new ApiError(400, "Invalid next token");
}
