/**
 * The lookups of lifecycle events and webhooks (./lookup-event-shapes.ts; ./lookup-queries.ts holds
 * the table): one call each, since the service answers the events in pages the caller chooses.
 */
import type { PlatformClient } from "../sdk/platform/client";
import type { LifecycleEventsQuery } from "../sdk/platform/lifecycle-events";
import type { SandboxLifecycleEvent, Webhook } from "../sdk/schemas/events";
import { naming } from "./lookup-errors";
import type { LookupArgs, LookupResult } from "./lookup-shapes";

type EventInfo = LookupResult<"listLifecycleEvents">["events"][number];

function eventInfo(e: SandboxLifecycleEvent): EventInfo {
  const ran = e.eventData?.execution?.execution_time;
  return {
    id: e.id, type: e.type, timestamp: e.timestamp, sandboxID: e.sandboxId, templateID: e.sandboxTemplateId,
    buildID: e.sandboxBuildId, executionID: e.sandboxExecutionId, metadata: { ...e.eventData?.sandbox_metadata },
    ...(typeof ran === "number" ? { executionTimeMs: ran } : {}),
  };
}

const filtersOf = ({ types, orderAsc, offset, limit }: LookupArgs<"listLifecycleEvents">): LifecycleEventsQuery => ({ types, orderAsc, offset, limit });

/** GET /events/sandboxes: the team's events. */
export async function lifecycleEvents(client: PlatformClient, args: LookupArgs<"listLifecycleEvents">): Promise<LookupResult<"listLifecycleEvents">> {
  return { events: (await naming("listLifecycleEvents", "arguments", "", () => client.events.list(filtersOf(args)), [])).map(eventInfo) };
}

/** GET /events/sandboxes/{sandboxID}: one sandbox's events. */
export async function sandboxLifecycleEvents(client: PlatformClient, args: LookupArgs<"getSandboxLifecycleEvents">): Promise<LookupResult<"getSandboxLifecycleEvents">> {
  const found = await naming("getSandboxLifecycleEvents", "sandboxID", args.sandboxID, () => client.events.listForSandbox(args.sandboxID, filtersOf(args)), ["not_found"]);
  return { events: found.map(eventInfo) };
}

function webhookInfo(w: Webhook): LookupResult<"getWebhook"> {
  return { webhookID: w.id, name: w.name, url: w.url, enabled: w.enabled, events: [...w.events], createdAt: w.createdAt };
}

/** GET /events/webhooks. */
export async function webhooks(client: PlatformClient): Promise<LookupResult<"listWebhooks">> {
  return { webhooks: (await client.webhooks.list()).map(webhookInfo) };
}

/** GET /events/webhooks/{webhookID}. */
export async function webhook(client: PlatformClient, args: LookupArgs<"getWebhook">): Promise<LookupResult<"getWebhook">> {
  return webhookInfo(await naming("getWebhook", "webhookID", args.webhookID, () => client.webhooks.get(args.webhookID)));
}
