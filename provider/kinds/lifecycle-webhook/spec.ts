/**
 * LifecycleWebhook: a team webhook the service POSTs sandbox lifecycle events to, each signed with a
 * secret the service never gives back (docs/service.md#lifecycle-events-and-webhooks).
 *   create  POST /events/webhooks {name, url, enabled, events, signatureSecret}
 *           (an auto-named one: a webhook already listed under its auto-name is adopted, ./lifecycle-webhook.ts)
 *   read    GET /events/webhooks/{webhookID}     (404: gone; the secret is never answered, so state keeps the program's)
 *   update  PATCH /events/webhooks/{webhookID}   (every input: the service replaces each field sent)
 *   delete  DELETE /events/webhooks/{webhookID}  (404: already gone)
 * Replacement: none. PATCH takes every input, a new `signatureSecret` included. `events` left out:
 * every type at create, and the webhook's own after (`computed`).
 */
import { z } from "zod";
import { LIFECYCLE_EVENT_TYPES } from "../../../sdk/schemas/events";
import { defineSpec } from "../../spec";
import { autoName } from "../naming";

/** An absolute http or https URL with a host, as the service takes it; the message never repeats it (it may hold credentials). */
function isWebhookURL(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

const EventName = z.enum(LIFECYCLE_EVENT_TYPES, { error: `must be one of ${LIFECYCLE_EVENT_TYPES.join(", ")}` });

export const LifecycleWebhookInputs = z.strictObject({
  name: z.string({ error: "must be a string" })
    .min(1, { error: "must not be empty" })
    .optional()
    .describe("Name of the webhook, shown in the team's list (the service does not require it unique). Default: the resource name plus a stable suffix. A change renames it in place."),
  url: z.string({ error: "must be a string" })
    .refine(isWebhookURL, { error: "must be an absolute http:// or https:// URL" })
    .describe("Where the service POSTs each event. A change is an update in place."),
  enabled: z.boolean({ error: "must be a boolean" })
    .default(true)
    .describe("Whether the service delivers events to the webhook. Default: true. A change is an update in place."),
  events: z.array(EventName, { error: "must be a list of event types" })
    .min(1, { error: "must name at least one event type" })
    .refine((events) => new Set(events).size === events.length, { error: "must not name an event type twice" })
    .optional()
    .describe(`The event types delivered: any of ${LIFECYCLE_EVENT_TYPES.map((t) => `\`${t}\``).join(", ")}, each once. Default: every one at create; left out later, the webhook's stay. A change is an update in place.`),
  signatureSecret: z.string({ error: "must be a string" })
    .min(1, { error: "must not be empty" })
    .describe("What each delivery is signed with (the `e2b-signature` header). Write-only: the service never returns it, so the provider cannot see it changed elsewhere. Always secret. A change is an update in place."),
});

export const LifecycleWebhookOutputs = z.object({
  webhookID: z.string().describe("The webhook's ID: the `e2b-webhook-id` header of each delivery."),
});

export const lifecycleWebhookSpec = defineSpec({
  kind: "LifecycleWebhook",
  description:
    "A lifecycle webhook of the team: the service POSTs each sandbox lifecycle event of the types in `events` " +
    "(created, updated, paused, resumed, killed, checkpointed) to `url`, signed with `signatureSecret`. The secret " +
    "is secret everywhere in Pulumi (state, previews, logs) and never read back from the service. Every input " +
    "changes in place (one PATCH); deleting the resource unregisters the webhook.",
  inputs: LifecycleWebhookInputs,
  outputs: LifecycleWebhookOutputs,
  inPlace: ["name", "url", "enabled", "events", "signatureSecret"],
  localOnly: [],
  // Left out, a create subscribes to every type (./lifecycle-webhook.ts): the service requires a list,
  // and a schema default cannot be one (Pulumi's schema takes scalar defaults only).
  computed: ["events"],
  secretInputs: ["signatureSecret"],
  secretOutputs: ["signatureSecret"],
  idOutputs: ["webhookID"],
  credentials: ["apiKey"],
  autoName: (key, generation) => ({ name: autoName(key, generation) }),
});
