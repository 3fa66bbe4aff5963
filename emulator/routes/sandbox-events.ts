/**
 * The sandbox lifecycle events API (docs/service.md#lifecycle-events-and-webhooks):
 * `GET /events/sandboxes` (every sandbox of the team) and `GET /events/sandboxes/{sandboxID}` (one),
 * newest first unless `orderAsc=true`, `offset` (default 0) and `limit` (1–100, default 10), `types`
 * repeated to keep only those types. A sandbox with no events kept (unknown, or gone for 7 days)
 * lists none: 200 with `[]`.
 */
import { json, type Reply } from "../http";
import type { Route } from "../router";
import type { Stores } from "../store";
import { LIFECYCLE_EVENT_TYPES } from "../store/lifecycle-types";
import { queryBool, queryEnumAll, queryInt } from "../validate";
import { sandboxID } from "./sandboxes";

export const EVENTS_DEFAULT_LIMIT = 10;
export const EVENTS_MAX_LIMIT = 100;

export function sandboxEventRoutes(stores: Stores): Route[] {
  return [
    { method: "GET", pattern: "/events/sandboxes", auth: "apiKey", handler: (ctx) => listEvents(stores, ctx.query) },
    {
      method: "GET", pattern: "/events/sandboxes/:sandboxID", auth: "apiKey",
      handler: (ctx) => listEvents(stores, ctx.query, sandboxID(ctx.params.sandboxID ?? "")),
    },
  ];
}

function listEvents(stores: Stores, query: URLSearchParams, sandbox?: string): Reply {
  const offset = queryInt(query, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = queryInt(query, "limit", EVENTS_DEFAULT_LIMIT, 1, EVENTS_MAX_LIMIT);
  const orderAsc = queryBool(query, "orderAsc", false);
  const types = queryEnumAll(query, "types", LIFECYCLE_EVENT_TYPES);
  return json(200, stores.events.list({ sandboxID: sandbox, types, orderAsc, offset, limit }));
}
