/**
 * The team's lifecycle webhooks (POST|GET /events/webhooks, GET|PATCH|DELETE /events/webhooks/{id}),
 * in memory. The signature secret is kept for signing deliveries and never shown: a view has the
 * other fields only (docs/service.md#lifecycle-events-and-webhooks).
 */
import { newUUID } from "../ids";
import type { LifecycleEventType } from "./lifecycle-types";

/** A webhook as stored. */
export interface WebhookRecord {
  id: string;
  teamID: string;
  name: string;
  createdAt: Date;
  enabled: boolean;
  url: string;
  events: LifecycleEventType[];
  signatureSecret: string;
}

/** What a create sets; `enabled` defaults to true. */
export type NewWebhookInput = Pick<WebhookRecord, "name" | "url" | "events" | "signatureSecret"> & { enabled?: boolean | undefined };
/** What an update may replace; a field left out is kept. */
export type WebhookPatch = Partial<Omit<WebhookRecord, "id" | "teamID" | "createdAt">>;

export class WebhookStore {
  private readonly hooks = new Map<string, WebhookRecord>();

  constructor(private readonly teamID: string) {}

  create(input: NewWebhookInput): WebhookRecord {
    const record: WebhookRecord = { ...input, id: newUUID(), teamID: this.teamID, createdAt: new Date(), enabled: input.enabled ?? true, events: [...input.events] };
    this.hooks.set(record.id, record);
    return record;
  }

  get(id: string): WebhookRecord | undefined {
    return this.hooks.get(id);
  }

  /** Oldest first. */
  all(): WebhookRecord[] {
    return [...this.hooks.values()];
  }

  update(id: string, patch: WebhookPatch): WebhookRecord | undefined {
    const record = this.hooks.get(id);
    if (!record) return undefined;
    for (const [key, value] of Object.entries(patch)) if (value !== undefined) Object.assign(record, { [key]: value });
    return record;
  }

  delete(id: string): boolean {
    return this.hooks.delete(id);
  }

  /** The enabled webhooks that subscribe to `type`. */
  subscribedTo(type: LifecycleEventType): WebhookRecord[] {
    return this.all().filter((h) => h.enabled && h.events.includes(type));
  }
}

/** A webhook as every answer shows it: never its secret. */
export function webhookView(r: WebhookRecord) {
  return { id: r.id, teamID: r.teamID, name: r.name, createdAt: r.createdAt.toISOString(), enabled: r.enabled, url: r.url, events: [...r.events] };
}
