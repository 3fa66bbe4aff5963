/**
 * What a webhook receiver checks (docs/service.md#lifecycle-events-and-webhooks): the
 * `e2b-signature` header is SHA-256 of the signature secret followed by the raw request body, in
 * base64 without trailing `=`; `e2b-signature-version` is `v1`. Verify the raw bytes received,
 * before any JSON parse: a re-serialized body signs differently.
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** The headers of a delivery, as the service names them. */
export const WEBHOOK_HEADERS = {
  webhookID: "e2b-webhook-id",
  deliveryID: "e2b-delivery-id",
  signatureVersion: "e2b-signature-version",
  signature: "e2b-signature",
} as const;

/** The only signature version there is. */
export const WEBHOOK_SIGNATURE_VERSION = "v1";

/** The `e2b-signature` the service sends for `rawBody` signed with `secret`. */
export function webhookSignature(secret: string, rawBody: string | Uint8Array): string {
  return createHash("sha256").update(secret, "utf8").update(rawBody).digest("base64").replace(/=+$/, "");
}

/**
 * Whether `signature` (the `e2b-signature` header) is `secret`'s over `rawBody`, compared in
 * constant time. A missing header is false.
 */
export function verifyWebhookSignature(secret: string, rawBody: string | Uint8Array, signature: string | undefined): boolean {
  if (signature === undefined) return false;
  const expected = Buffer.from(webhookSignature(secret, rawBody));
  const given = Buffer.from(signature.trim().replace(/=+$/, ""));
  return expected.length === given.length && timingSafeEqual(expected, given);
}
