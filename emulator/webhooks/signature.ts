/**
 * The `e2b-signature` of a delivery (docs/service.md#lifecycle-events-and-webhooks): SHA-256 of the
 * webhook's secret followed by the raw body, in base64 without its trailing `=`. Written here from
 * the docs, apart from the sdk's verifier, so a test of one against the other can fail.
 */
import { createHash } from "node:crypto";

/** The signature version the header `e2b-signature-version` carries. */
export const SIGNATURE_VERSION = "v1";

export function signDelivery(secret: string, body: string): string {
  return createHash("sha256").update(secret + body, "utf8").digest("base64").replace(/=+$/, "");
}
