/**
 * GET /v2/sandboxes (running and paused, filters, order, cursor pages) and the deprecated
 * GET /sandboxes (running only). `metadata` is one parameter holding a URL-encoded `k=v&k2=v2`.
 */
import { ApiError, json, type Reply } from "../http";
import { paginate } from "../paging";
import type { Route } from "../router";
import type { Stores } from "../store";
import type { SandboxRecord } from "../store/sandbox-records";
import { queryEnum, queryEnumList, queryError, queryInt } from "../validate";
import { listedView } from "./sandbox-views";

const STATES = ["running", "paused"] as const;

/** GET /v2/sandboxes and GET /sandboxes. */
export function sandboxListRoutes(stores: Stores): Route[] {
  return [
    { method: "GET", pattern: "/v2/sandboxes", auth: "apiKey", handler: (ctx) => listV2(stores, ctx.query) },
    {
      method: "GET", pattern: "/sandboxes", auth: "apiKey",
      handler: (ctx) => {
        const matches = metadataFilter(ctx.query.get("metadata"));
        // Newest first, as the handler sorts them (infra: handlers/sandboxes_list.go, SortPaginatedSandboxesDesc).
        const running = stores.sandboxes.all().filter((s) => s.state === "running" && matches(s));
        return json(200, running.sort(newestFirst).map(listedView));
      },
    },
  ];
}

function listV2(stores: Stores, query: URLSearchParams): Reply {
  const states = queryEnumList(query, "state", STATES, [...STATES]);
  const order = queryEnum(query, "order", ["asc", "desc"], "desc");
  const limit = queryInt(query, "limit", 100, 1, 100);
  const matches = metadataFilter(query.get("metadata"));
  const after = startedAfter(query.get("startedAfter"));
  const templateID = templateFilter(stores, query.get("template"));
  // `startedAfter` is an at-or-after bound (infra: handlers/sandboxes_list.go, parseSandboxListStartedAfter).
  const selected = stores.sandboxes.all().filter(
    (s) => states.includes(s.state) && matches(s) && s.startedAt.getTime() >= after && (templateID === undefined || s.templateID === templateID),
  );
  const { page, next } = paginate(selected, (s) => ({ t: s.startedAt.getTime(), id: s.sandboxID }), { limit, order, token: query.get("nextToken") });
  // The running total counts what the filters match, before the page limit, and is sent only when
  // running sandboxes were asked for (same handler).
  const headers: Record<string, string> = {};
  if (states.includes("running")) headers["X-Total-Running"] = String(selected.filter((s) => s.state === "running").length);
  if (next) headers["X-Next-Token"] = next;
  return json(200, page.map(listedView), headers);
}

function newestFirst(a: SandboxRecord, b: SandboxRecord): number {
  return b.startedAt.getTime() - a.startedAt.getTime() || b.sandboxID.localeCompare(a.sandboxID);
}

/** A predicate for `metadata=k%3Dv%26k2%3Dv2`: every pair must be in the sandbox's metadata. */
export function metadataFilter(raw: string | null): (s: SandboxRecord) => boolean {
  if (raw === null || raw === "") return () => true;
  const pairs = [...new URLSearchParams(raw)];
  if (pairs.length === 0 || pairs.some(([k]) => k === "")) {
    throw new ApiError(400, `Error when parsing metadata: '${raw}' is not of the form key=value&key2=value2`);
  }
  return (s) => pairs.every(([k, v]) => s.metadata[k] === v);
}

function startedAfter(raw: string | null): number {
  if (raw === null || raw === "") return Number.NEGATIVE_INFINITY;
  const t = Date.parse(raw);
  if (Number.isNaN(t)) throw queryError("startedAfter", `'${raw}' is not an RFC 3339 date-time`);
  return t;
}

/** `template` may be an ID or an alias; an unknown one matches no sandbox. */
function templateFilter(stores: Stores, raw: string | null): string | undefined {
  if (raw === null || raw === "") return undefined;
  return stores.templates.resolve(raw)?.template.templateID ?? `unknown:${raw}`;
}
