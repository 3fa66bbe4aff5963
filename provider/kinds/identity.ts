/**
 * Identity: what tells one resource's objects in the service from every other's, and what a re-run may
 * take as its own. The one place the rules are written; each kind asks here (and ./name-claims.ts for
 * auto-names), never derives its own.
 *
 * Unique per resource: its nonce, 64 random bits minted at its first check and kept in state (a
 * fleet's member: derived from the fleet's, its key and its incarnation, ../sandbox-fleet/members.ts).
 * The key (../resource-key.ts: the stack instance and the URN of the first create) is NOT unique: a
 * resource renamed away with `aliases`, or moved by `pulumi state move`, keeps it, and a new resource
 * under the old name derives it again. The key only FINDS what a killed run made.
 * Unique per generation: the marker (`<key>#<generation>`, a sandbox's metadata) and auto-names; the
 * generation grows on every replacement, so a replacement never meets the object it replaces.
 * Unique per create: the idempotency key, from key, generation and nonce: a retry of one create sends
 * it again (the service answers with the first attempt's sandbox); no other create ever sends it.
 *
 * What a re-run may adopt: an object found by its key's marker or auto-name only when it carries this
 * create's own nonce, or when no finished create claimed it (a killed run's create never finished).
 * A claimed one, a copy (a fork, a snapshot's sandbox: they inherit marks), a paused one whose files
 * cannot be read, and one made before claims existed are left alone, and the new resource's row says
 * so. Claims live where the service lets a client write (each kind's claim.ts, listed in
 * docs/reruns-and-identity.md); none is written once the engine is gone (a killed `up` whose provider
 * lives on), so the re-run finds the killed run's work unclaimed.
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
 * (the service takes 1 to 255 of `[a-z0-9-]`). `sent` names what the create sends (its inputs'
 * digests, keyed by the API key, and its deadline): a retry sends the same, so it gets the same key,
 * while a create of other inputs under the same generation (the re-run of a killed fleet update,
 * edited since) gets another, where the service would refuse the key it saw with another body.
 * Undefined without a nonce (state written before 0.3 holds none until the resource's next check), so
 * such a create is sent without a key.
 */
export function idempotencyKeyOf(inputs: { __resource?: string | undefined; __generation?: number | undefined; __nonce?: string | undefined }, sent = ""): string | undefined {
  if (!inputs.__nonce) return undefined;
  const parts = [inputs.__resource ?? "", inputs.__generation ?? 0, inputs.__nonce, ...(sent ? [sent] : [])];
  return `ps-${identityDigest(...parts).slice(0, 48)}`;
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
