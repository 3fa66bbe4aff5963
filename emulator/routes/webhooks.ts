/**
 * Lifecycle webhooks (docs/service.md#lifecycle-events-and-webhooks): `POST /events/webhooks`
 * registers one (201), `GET /events/webhooks` lists the team's (200, oldest first),
 * `GET|PATCH|DELETE /events/webhooks/{webhookID}` read (200), update (200; only the fields sent are
 * replaced) and delete (204) one. No answer carries the signature secret. A body the schema refuses
 * is a 400 in the validator's words (../validate.ts); a URL that is not absolute http(s) is a 400;
 * an unknown ID is a 404.
 */
import { z } from "zod";
import { ApiError, json, noContent, type Reply, type RequestContext } from "../http";
import type { Route } from "../router";
import type { Stores } from "../store";
import { LIFECYCLE_EVENT_TYPES, type LifecycleEventType } from "../store/lifecycle-types";
import { webhookView, type WebhookRecord } from "../store/webhooks";
import { notOneOf, parseBody } from "../validate";

export const WEBHOOK_NOT_FOUND = "Webhook not found";
export const WEBHOOK_BAD_URL = "Invalid webhook URL: it must be an absolute http:// or https:// URL";

const EventName = z.enum(LIFECYCLE_EVENT_TYPES as [LifecycleEventType, ...LifecycleEventType[]], { error: () => notOneOf(LIFECYCLE_EVENT_TYPES) });
const Events = z.array(EventName).min(1, { error: "minimum number of items is 1" })
  .refine((events) => new Set(events).size === events.length, { error: "duplicate items found" });
const NonEmpty = z.string().min(1, { error: "minimum string length is 1" });
const NewWebhookBody = z.object({ name: NonEmpty, url: z.string(), enabled: z.boolean().optional(), events: Events, signatureSecret: NonEmpty });
const WebhookPatchBody = NewWebhookBody.partial();

export function webhookRoutes(stores: Stores): Route[] {
  const { webhooks } = stores;
  return [
    { method: "POST", pattern: "/events/webhooks", auth: "apiKey", handler: (ctx) => create(stores, ctx) },
    { method: "GET", pattern: "/events/webhooks", auth: "apiKey", handler: () => json(200, webhooks.all().map(webhookView)) },
    { method: "GET", pattern: "/events/webhooks/:webhookID", auth: "apiKey", handler: (ctx) => json(200, webhookView(found(stores, ctx))) },
    { method: "PATCH", pattern: "/events/webhooks/:webhookID", auth: "apiKey", handler: (ctx) => update(stores, ctx) },
    {
      method: "DELETE", pattern: "/events/webhooks/:webhookID", auth: "apiKey",
      handler: (ctx) => (webhooks.delete(found(stores, ctx).id), noContent()),
    },
  ];
}

async function create(stores: Stores, ctx: RequestContext): Promise<Reply> {
  const body = parseBody(NewWebhookBody, await ctx.json());
  return json(201, webhookView(stores.webhooks.create({ ...body, url: checkedURL(body.url) })));
}

async function update(stores: Stores, ctx: RequestContext): Promise<Reply> {
  const body = parseBody(WebhookPatchBody, await ctx.json());
  const id = found(stores, ctx).id;
  const patch = body.url === undefined ? body : { ...body, url: checkedURL(body.url) };
  return json(200, webhookView(stores.webhooks.update(id, patch)!));
}

function found(stores: Stores, ctx: RequestContext): WebhookRecord {
  const record = stores.webhooks.get(ctx.params.webhookID ?? "");
  if (!record) throw new ApiError(404, WEBHOOK_NOT_FOUND);
  return record;
}

/** An absolute http or https URL with a host, kept as given; the message never repeats it (it may hold credentials). */
function checkedURL(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError(400, WEBHOOK_BAD_URL);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") throw new ApiError(400, WEBHOOK_BAD_URL);
  return raw;
}
