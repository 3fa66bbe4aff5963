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
 * The one digest of identity parts: SHA-256 of the parts joined by `#`, 64 hex digits. Plain, not an
 * HMAC keyed by the API key (../runtime/made-from.ts): what it names must read the same under every
 * key of the team, and after a key rotation (a template's claim, ./template/claim.ts). So it never
 * digests an input's value, only keys, nonces and IDs.
 */
export function identityDigest(...parts: (string | number)[]): string {
  return createHash("sha256").update(parts.join("#")).digest("hex");
}

/**
 * The `Idempotency-Key` of a create of the resource with these internals: `ps-` and 48 hex digits
 * (the service takes 1 to 255 of `[a-z0-9-]`). Undefined without a nonce (state written before 0.3
 * holds none until the resource's next check), so such a create is sent without a key.
 */
export function idempotencyKeyOf(inputs: { __resource?: string | undefined; __generation?: number | undefined; __nonce?: string | undefined }): string | undefined {
  if (!inputs.__nonce) return undefined;
  return `ps-${identityDigest(inputs.__resource ?? "", inputs.__generation ?? 0, inputs.__nonce).slice(0, 48)}`;
}

/**
 * The nonce of the resource a create replaces, by the replacing resource's key. The engine checks a
 * replacement twice: first with the old state (which holds the old nonce), then afresh, with none, for
 * the inputs the create gets; both in the same provider process, one after the other. So the first
 * check notes the old nonce under the resource's key now, and the create of the replacement learns
 * which sandbox carrying its marker is the one it replaces (left for the engine to delete), as opposed
 * to another resource's (../kinds/sandbox/adoption.ts). In-process only: it concerns one run.
 */
const checkedWithState = new Map<string, string>();

/** Notes that the resource now keyed `key` was checked with state holding `nonce`. */
export function noteChecked(key: unknown, nonce: unknown): void {
  if (typeof key === "string" && key !== "" && typeof nonce === "string" && nonce !== "") checkedWithState.set(key, nonce);
}

/** The nonce of the state the resource keyed `key` was last checked with in this process, if any. */
export function checkedNonce(key: string | undefined): string | undefined {
  return key === undefined ? undefined : checkedWithState.get(key);
}
