/**
 * The arguments and results of the lookups of sandbox lifecycle events and of webhooks
 * (docs/service.md#lifecycle-events-and-webhooks), and their entries of the table in
 * ./lookup-shapes.ts. Only zod here, as there. Results are in the program's camelCase; the service's
 * snake_case fields of an event (`sandbox_metadata`, `execution`) are renamed.
 */
import { z } from "zod";
import { LIFECYCLE_EVENT_TYPES } from "../sdk/schemas/events";

const EventType = z.enum(LIFECYCLE_EVENT_TYPES, { error: `must be one of ${LIFECYCLE_EVENT_TYPES.join(", ")}` });

/** The filters the service's events routes take (their defaults are the service's). */
const EventFilters = {
  types: z.array(EventType).optional().describe("Only events of these types. Default: every type."),
  orderAsc: z.boolean().optional().describe("Oldest first. Default: newest first."),
  offset: z.number().int().min(0, { error: "must be 0 or more" }).optional().describe("Events to skip. Default 0."),
  limit: z.number().int().min(1, { error: "must be at least 1" }).max(100, { error: "must be at most 100 (the service's page)" }).optional().describe("At most this many events (1 to 100; the service's default is 10)."),
};

export const ListLifecycleEventsArgs = z.strictObject(EventFilters);
export const GetSandboxLifecycleEventsArgs = z.strictObject({
  sandboxID: z.string().min(1, { error: "must not be empty" }).describe("The sandbox's ID."),
  ...EventFilters,
});

export const LifecycleEventInfo = z.object({
  id: z.string().describe("The event's ID."),
  type: z.string().describe("Its type, e.g. `sandbox.lifecycle.created`."),
  timestamp: z.string().describe("When it happened (RFC 3339)."),
  sandboxID: z.string().describe("The sandbox it is of."),
  templateID: z.string().describe("The sandbox's template."),
  buildID: z.string().describe("The template build the sandbox runs."),
  executionID: z.string().describe("The sandbox's execution: a new one at each create and resume."),
  metadata: z.record(z.string(), z.string()).describe("The sandbox's metadata, when the event carries it."),
  executionTimeMs: z.number().optional().describe("How long the execution ran, in milliseconds: on killed and paused events."),
});

export const GetWebhookArgs = z.strictObject({ webhookID: z.string().min(1, { error: "must not be empty" }).describe("The webhook's ID.") });

export const WebhookInfo = z.object({
  webhookID: z.string().describe("The webhook's ID."),
  name: z.string().describe("Its name."),
  url: z.string().describe("Where its deliveries go."),
  enabled: z.boolean().describe("Whether it is delivered to."),
  events: z.array(z.string()).describe("The event types it subscribes to."),
  createdAt: z.string().describe("When it was registered (RFC 3339). Its signature secret is never answered."),
});

const events = z.object({ events: z.array(LifecycleEventInfo).describe("The events, in the order asked (newest first by default).") });

export const EVENT_LOOKUPS = {
  listLifecycleEvents: {
    description: "The team's sandbox lifecycle events of the last 7 days (created, updated, paused, resumed, killed, checkpointed), newest first, with the service's filters: types, order, offset and limit (at most 100).",
    args: ListLifecycleEventsArgs,
    result: events,
    resultTypes: { events: "LifecycleEventInfo" },
    list: "events",
  },
  getSandboxLifecycleEvents: {
    description: "The lifecycle events of one sandbox of the team (running, paused or ended within 7 days), with the same filters as listLifecycleEvents.",
    args: GetSandboxLifecycleEventsArgs,
    result: events,
    resultTypes: { events: "LifecycleEventInfo" },
    list: "events",
  },
  listWebhooks: {
    description: "The team's lifecycle webhooks; never a signature secret (the service answers none).",
    args: z.strictObject({}),
    result: z.object({ webhooks: z.array(WebhookInfo).describe("The team's webhooks.") }),
    resultTypes: { webhooks: "WebhookInfo" },
    list: "webhooks",
  },
  getWebhook: {
    description: "One lifecycle webhook of the team by ID; never its signature secret. Fails naming the ID when the team has no such webhook.",
    args: GetWebhookArgs,
    result: WebhookInfo,
    resultTypes: {},
  },
} as const;
