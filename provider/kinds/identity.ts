/**
 * A resource's own identity, beside its key (../resource-key.ts). The key is derived from the URN the
 * resource had at its first create, so a resource renamed away with `aliases` keeps it and a new
 * resource later declared under the old name derives the same one. The nonce tells those two apart:
 * random, minted at the resource's first check and kept in state from then on (../check.ts).
 *
 * A create's idempotency key is derived from the key, the generation and the nonce: a retry of the
 * same create (a lost answer, a timeout) sends the same one, so the service answers with the sandbox
 * the first attempt made; no two resources, generations or stacks ever send the same one. A re-run of
 * a killed `up` checks the resource anew and so sends another key: what the killed run made is found
 * by its marker instead (./sandbox/adoption.ts), as on a deployment of the service that predates keys.
 */
import { createHash, randomBytes } from "node:crypto";

/** 16 hex digits: two resources share one with odds of 1 in 2^64. */
export function mintNonce(): string {
  return randomBytes(8).toString("hex");
}

/**
 * The `Idempotency-Key` of a create of the resource with these internals: `ps-` and 48 hex digits
 * (the service takes 1 to 255 of `[a-z0-9-]`). Undefined without a nonce (state written before 0.3
 * holds none until the resource's next check), so such a create is sent without a key.
 */
export function idempotencyKeyOf(inputs: { __resource?: string | undefined; __generation?: number | undefined; __nonce?: string | undefined }): string | undefined {
  if (!inputs.__nonce) return undefined;
  const digest = createHash("sha256").update(`${inputs.__resource ?? ""}#${inputs.__generation ?? 0}#${inputs.__nonce}`).digest("hex");
  return `ps-${digest.slice(0, 48)}`;
}
