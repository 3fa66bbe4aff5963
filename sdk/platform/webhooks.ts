/**
 * Lifecycle webhooks of the platform API (docs/service.md#lifecycle-events-and-webhooks). Every
 * call authenticates with the team's API key. The signature secret goes out in a create or update
 * body and never comes back.
 *
 * | method  | verb and path                          | success |
 * |---------|----------------------------------------|---------|
 * | create  | POST /events/webhooks                  | 201     |
 * | list    | GET /events/webhooks                   | 200     |
 * | get     | GET /events/webhooks/{webhookID}       | 200     |
 * | update  | PATCH /events/webhooks/{webhookID}     | 200     |
 * | delete  | DELETE /events/webhooks/{webhookID}    | 2xx     |
 */
import { z } from "zod";
import type { CallOptions, HttpClient } from "../transport/http";
import { Webhook, type NewWebhook, type WebhookUpdate } from "../schemas/events";

const Webhooks_ = z.array(Webhook);

/** The webhooks area: `client.webhooks`. */
export class Webhooks {
  constructor(private readonly http: HttpClient) {}

  /**
   * Registers a webhook for the team; each later event of a type in `events` is POSTed to `url`,
   * signed with `signatureSecret`. Not repeated after a dropped connection (a repeat would register
   * a second webhook). @throws `invalid_argument` for a bad URL, an unknown or repeated event, a missing field.
   */
  create(body: NewWebhook, call?: CallOptions): Promise<Webhook> {
    return this.http.call({ method: "POST", route: "/events/webhooks", body, auth: "apiKey" }, Webhook, call);
  }

  /** Every webhook of the team (the service does not page this list). */
  list(call?: CallOptions): Promise<Webhook[]> {
    return this.http.call({ method: "GET", route: "/events/webhooks", auth: "apiKey" }, Webhooks_, call);
  }

  /** One webhook, without its secret. @throws `not_found`. */
  get(webhookID: string, call?: CallOptions): Promise<Webhook> {
    return this.http.call({ method: "GET", route: "/events/webhooks/{id}", params: { id: webhookID }, auth: "apiKey" }, Webhook, call);
  }

  /** Replaces the fields given (a new `signatureSecret` included) and keeps the rest. @throws `not_found`, `invalid_argument`. */
  update(webhookID: string, body: WebhookUpdate, call?: CallOptions): Promise<Webhook> {
    return this.http.call({ method: "PATCH", route: "/events/webhooks/{id}", params: { id: webhookID }, body, auth: "apiKey" }, Webhook, call);
  }

  /** Unregisters a webhook: no later event is delivered to it. @throws `not_found` when it is gone. */
  delete(webhookID: string, call?: CallOptions): Promise<void> {
    return this.http.callVoid({ method: "DELETE", route: "/events/webhooks/{id}", params: { id: webhookID }, auth: "apiKey" }, call);
  }
}
