/**
 * Webhook deliveries: each event goes to every enabled webhook subscribed to its type, as a signed
 * POST of the event's JSON (docs/service.md#lifecycle-events-and-webhooks). A delivery runs apart
 * from the API call that caused the event (it starts on a later turn of the event loop, and nothing
 * waits for it); an attempt fails on an answer other than 2xx, a connection error or no answer within
 * the timeout, and is retried after each delay of `retryDelaysMs` (the service: 3 retries, 10 s
 * apart). After the last one the delivery is `failed`. Only the URL a user registered is ever sent
 * to. Each delivery, with its attempts, is kept for inspection (`emulator.state.webhookDeliveries()`).
 */
import { newUUID } from "../ids";
import type { LifecycleEvent } from "../store/lifecycle-events";
import type { WebhookRecord, WebhookStore } from "../store/webhooks";
import { postOnce } from "./post";
import { signDelivery, SIGNATURE_VERSION } from "./signature";

/** The service's schedule: up to 3 retries, 10 seconds apart. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [10_000, 10_000, 10_000];
/** How long an attempt waits for an answer (the emulator's choice; the docs do not say). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** Deliveries kept; older ones are forgotten first. */
export const MAX_DELIVERIES = 10_000;

/** One POST of a delivery. */
export interface WebhookAttempt {
  /** Its `e2b-delivery-id`, new at each attempt. */
  deliveryID: string;
  /** When it was sent (ISO 8601). */
  at: string;
  /** The answer's status; absent when none came. */
  status?: number;
  /** Why it failed without an answer (connection refused, timeout). */
  error?: string;
}

/** One event sent to one webhook, with every attempt. */
export interface WebhookDelivery {
  webhookID: string;
  eventID: string;
  eventType: string;
  sandboxID: string;
  url: string;
  /** `pending` while attempts remain; `delivered` on a 2xx; `failed` after the last retry. */
  state: "pending" | "delivered" | "failed";
  attempts: WebhookAttempt[];
  /** The raw body every attempt sent (what the signature covers). */
  body: string;
}

export interface DeliveryOptions {
  retryDelaysMs: readonly number[];
  timeoutMs: number;
}

export class WebhookDeliveries {
  private readonly deliveries: WebhookDelivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly stop = new AbortController();

  constructor(private readonly webhooks: WebhookStore, private readonly opts: DeliveryOptions) {}

  /** Starts a delivery of `event` to each webhook subscribed to it; returns at once. */
  dispatch(event: LifecycleEvent): void {
    if (this.stop.signal.aborted) return;
    const body = JSON.stringify(event);
    for (const hook of this.webhooks.subscribedTo(event.type)) {
      const delivery: WebhookDelivery = { webhookID: hook.id, eventID: event.id, eventType: event.type, sandboxID: event.sandboxId, url: hook.url, state: "pending", attempts: [], body };
      this.deliveries.push(delivery);
      if (this.deliveries.length > MAX_DELIVERIES) this.deliveries.splice(0, this.deliveries.length - MAX_DELIVERIES);
      // A copy: a later PATCH changes later events' deliveries, not this one's retries.
      const registered = { ...hook };
      this.later(0, () => this.attempt(delivery, registered));
    }
  }

  /** Every delivery kept, oldest first (copies). */
  all(): WebhookDelivery[] {
    return this.deliveries.map((d) => ({ ...d, attempts: d.attempts.map((a) => ({ ...a })) }));
  }

  /** Stops retries and in-flight attempts; pending deliveries stay pending. */
  close(): void {
    this.stop.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** One attempt; the URL and secret are those the webhook had when the event happened. */
  private async attempt(delivery: WebhookDelivery, hook: WebhookRecord): Promise<void> {
    const attempt: WebhookAttempt = { deliveryID: newUUID(), at: new Date().toISOString() };
    delivery.attempts.push(attempt);
    const headers = {
      "content-type": "application/json",
      "e2b-webhook-id": hook.id,
      "e2b-delivery-id": attempt.deliveryID,
      "e2b-signature-version": SIGNATURE_VERSION,
      "e2b-signature": signDelivery(hook.signatureSecret, delivery.body),
    };
    try {
      attempt.status = await postOnce(hook.url, delivery.body, headers, this.opts.timeoutMs, this.stop.signal);
    } catch (err) {
      attempt.error = (err as Error).message;
    }
    if (this.stop.signal.aborted) return;
    if (attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300) {
      delivery.state = "delivered";
      return;
    }
    const delay = this.opts.retryDelaysMs[delivery.attempts.length - 1];
    // A webhook deleted since gets no more retries.
    if (delay === undefined || !this.webhooks.get(hook.id)) delivery.state = "failed";
    else this.later(delay, () => this.attempt(delivery, hook));
  }

  private later(ms: number, run: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void run();
    }, ms).unref();
    this.timers.add(timer);
  }
}

/** Checks the emulator options of the schedule; throws a message naming the option. */
export function deliveryOptions(retryDelaysMs?: readonly number[], timeoutMs?: number): DeliveryOptions {
  const delays = retryDelaysMs ?? DEFAULT_WEBHOOK_RETRY_DELAYS_MS;
  if (!Array.isArray(delays) || delays.some((d) => !(Number.isFinite(d) && d >= 0))) {
    throw new Error(`webhookRetryDelaysMs must be a list of 0 or more milliseconds, got ${JSON.stringify(retryDelaysMs)}`);
  }
  const timeout = timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  if (!(Number.isFinite(timeout) && timeout > 0)) throw new Error(`webhookTimeoutMs must be more than 0 milliseconds, got ${timeoutMs}`);
  return { retryDelaysMs: [...delays], timeoutMs: timeout };
}
