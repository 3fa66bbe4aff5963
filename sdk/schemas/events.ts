/**
 * Wire schemas of sandbox lifecycle events and webhooks (GET /events/sandboxes[/{sandboxID}],
 * POST|GET /events/webhooks, GET|PATCH|DELETE /events/webhooks/{webhookID}), in the API's casing
 * (docs/service.md#lifecycle-events-and-webhooks). Answers are read leniently: a field the service
 * adds later passes through, and an event type this version does not know is kept as a string.
 */
import { z } from "zod";

/** Every event type the service reports, in its order; the names a webhook subscribes to. */
export const LIFECYCLE_EVENT_TYPES = [
  "sandbox.lifecycle.created",
  "sandbox.lifecycle.updated",
  "sandbox.lifecycle.killed",
  "sandbox.lifecycle.paused",
  "sandbox.lifecycle.resumed",
  "sandbox.lifecycle.checkpointed",
] as const;

/** One of {@link LIFECYCLE_EVENT_TYPES}: what a webhook subscribes to and a request filters on. */
export const LifecycleEventType = z.enum(LIFECYCLE_EVENT_TYPES);
export type LifecycleEventType = z.infer<typeof LifecycleEventType>;

/**
 * Body of POST /events/webhooks. `url`: an absolute http or https URL; `events`: at least one type,
 * none twice; `signatureSecret`: what each delivery is signed with (see `webhookSignature`), never
 * returned by any answer; `enabled` defaults to true.
 */
export const NewWebhook = z.object({
  name: z.string(),
  url: z.string(),
  enabled: z.boolean().optional(),
  events: z.array(LifecycleEventType),
  signatureSecret: z.string(),
});
export type NewWebhook = z.infer<typeof NewWebhook>;

/** Body of PATCH /events/webhooks/{webhookID}: each field sent replaces the webhook's; one left out is kept. */
export const WebhookUpdate = NewWebhook.partial();
export type WebhookUpdate = z.infer<typeof WebhookUpdate>;

/** A webhook as every answer shows it: never its signature secret. `createdAt` is RFC 3339. */
export const Webhook = z.looseObject({
  id: z.string(),
  teamID: z.string(),
  name: z.string(),
  createdAt: z.string(),
  enabled: z.boolean(),
  url: z.string(),
  events: z.array(z.string()),
});
export type Webhook = z.infer<typeof Webhook>;

/** `eventData.execution`: the sandbox execution a killed or paused event ends. */
export const SandboxExecution = z.looseObject({
  /** RFC 3339: when the execution (the create, or the last resume) started. */
  started_at: z.string(),
  vcpu_count: z.number(),
  memory_mb: z.number(),
  /** How long it ran, in milliseconds. */
  execution_time: z.number(),
});
export type SandboxExecution = z.infer<typeof SandboxExecution>;

/** `eventData`: the sandbox's metadata, `execution` on killed and paused events, and what else the type carries. */
export const LifecycleEventData = z.looseObject({
  sandbox_metadata: z.record(z.string(), z.string()).optional(),
  execution: SandboxExecution.optional(),
});
export type LifecycleEventData = z.infer<typeof LifecycleEventData>;

/** One lifecycle event: an item of the events lists, and the body of a webhook delivery. */
export const SandboxLifecycleEvent = z.looseObject({
  version: z.string(),
  id: z.string(),
  /** One of {@link LIFECYCLE_EVENT_TYPES}, or a type newer than this sdk. */
  type: z.string(),
  eventData: LifecycleEventData.nullable(),
  sandboxBuildId: z.string(),
  sandboxExecutionId: z.string(),
  sandboxId: z.string(),
  sandboxTeamId: z.string(),
  sandboxTemplateId: z.string(),
  /** RFC 3339. */
  timestamp: z.string(),
});
export type SandboxLifecycleEvent = z.infer<typeof SandboxLifecycleEvent>;
