/**
 * Sandbox lifecycle events of the platform API (docs/service.md#lifecycle-events-and-webhooks): the
 * team's events of the last 7 days, newest first unless `orderAsc`, paged by `offset` and `limit`.
 * Every call authenticates with the team's API key.
 *
 * | method         | verb and path                          | success |
 * |----------------|----------------------------------------|---------|
 * | list           | GET /events/sandboxes                  | 200     |
 * | listForSandbox | GET /events/sandboxes/{sandboxID}      | 200     |
 */
import { z } from "zod";
import type { CallOptions, HttpClient } from "../transport/http";
import { SandboxLifecycleEvent, type LifecycleEventType } from "../schemas/events";

/** Filters and paging of an events list; each is left to the service's default when absent. */
export interface LifecycleEventsQuery {
  /** Only events of these types (any of them). Default: every type. */
  types?: readonly LifecycleEventType[];
  /** Oldest first when true. Default false: newest first. */
  orderAsc?: boolean;
  /** Events to skip, 0 or more. Default 0. */
  offset?: number;
  /** Events to return, 1 to {@link MAX_EVENTS_LIMIT}. Default 10. */
  limit?: number;
}

/** The most events one list call returns. */
export const MAX_EVENTS_LIMIT = 100;

const Events = z.array(SandboxLifecycleEvent);

/** The events area: `client.events`. */
export class LifecycleEvents {
  constructor(private readonly http: HttpClient) {}

  /** One page of the events of every sandbox of the team. @throws `invalid_argument` for a bad filter or limit. */
  list(q: LifecycleEventsQuery = {}, call?: CallOptions): Promise<SandboxLifecycleEvent[]> {
    return this.http.call({ method: "GET", route: "/events/sandboxes", query: queryOf(q), auth: "apiKey" }, Events, call);
  }

  /**
   * One page of the events of one sandbox, killed ones included while their events are kept; a
   * sandbox with none lists none. @throws `invalid_argument` for a malformed ID, a bad filter or limit.
   */
  listForSandbox(sandboxID: string, q: LifecycleEventsQuery = {}, call?: CallOptions): Promise<SandboxLifecycleEvent[]> {
    const op = { method: "GET", route: "/events/sandboxes/{id}", params: { id: sandboxID }, query: queryOf(q), auth: "apiKey" } as const;
    return this.http.call(op, Events, call);
  }
}

function queryOf(q: LifecycleEventsQuery) {
  return { types: q.types, orderAsc: q.orderAsc, offset: q.offset, limit: q.limit };
}
