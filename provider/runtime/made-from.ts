/**
 * What a resource was made from, in a form the service keeps beside it: a sandbox's metadata, a
 * template build's record (../kinds/template/record.ts). A run that finds what an interrupted run
 * left adopts it only when it was made from the inputs this run has; anything else is made again.
 *
 * Digests are HMACs keyed by the API key, never plain hashes. Sandbox metadata is listed to every key
 * of the team, and a plain hash of inputs holding a guessable secret (an `envVars` password) would let
 * its reader test guesses offline. Keyed, a digest tells nothing to whoever lacks this stack's key, and
 * whoever holds it can already read what the digest covers (a sandbox's environment, through envd).
 * Secret values are hashed, not left out: a changed secret must not get its old sandbox adopted. The
 * cost of the key: a re-run with another API key finds nothing made from its inputs, and makes anew.
 */
import { createHmac } from "node:crypto";
import { platform } from "./context";

/** JSON with every object's keys sorted: state and the engine do not keep the order a program wrote. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v);
}

/** The 64-hex HMAC of `value` for one use (`purpose` keeps digests of different uses apart). */
export function madeFromDigest(purpose: string, value: unknown): string {
  return createHmac("sha256", platform().options.apiKey ?? "").update(`pulumi-sandbox/${purpose}\0${canonical(value)}`).digest("hex");
}

/** Hex digits kept of each field's digest: enough to tell a change (1 in 4 billion to miss one), short in metadata. */
const FIELD_DIGEST_HEX = 8;

/**
 * The entry of {@link fieldDigests} that digests nothing but the key: when it differs, so does every
 * field's digest, whatever the inputs, and a difference says that the API key changed, not the inputs.
 */
export const KEY_ENTRY = "~key";

/** What {@link differingFields} answers when the two digests were made with different API keys. */
export const ANOTHER_KEY = ["the API key"];

/**
 * One short digest per field, `field:digest` joined by commas, fields in name order; a field left out
 * (undefined) has none. Per field, so that a difference can name the field that changed. First, the
 * digest of the key alone (KEY_ENTRY).
 */
export function fieldDigests(purpose: string, fields: Record<string, unknown>): string {
  const entries = Object.keys(fields)
    .filter((k) => fields[k] !== undefined)
    .sort()
    .map((k) => `${k}:${madeFromDigest(`${purpose}/${k}`, fields[k]).slice(0, FIELD_DIGEST_HEX)}`);
  return [`${KEY_ENTRY}:${madeFromDigest(`${purpose}/${KEY_ENTRY}`, null).slice(0, FIELD_DIGEST_HEX)}`, ...entries].join(",");
}

/**
 * The fields whose digests differ between two {@link fieldDigests} values (a field in one only
 * included); ANOTHER_KEY when both name their key and the keys differ (every field would differ).
 */
export function differingFields(a: string, b: string): string[] {
  const parse = (s: string) => new Map(s.split(",").filter(Boolean).map((e) => [e.slice(0, e.lastIndexOf(":")), e.slice(e.lastIndexOf(":") + 1)] as const));
  const [x, y] = [parse(a), parse(b)];
  if (x.has(KEY_ENTRY) && y.has(KEY_ENTRY) && x.get(KEY_ENTRY) !== y.get(KEY_ENTRY)) return ANOTHER_KEY;
  // A digest from before KEY_ENTRY has none: that is no change of any input.
  return [...new Set([...x.keys(), ...y.keys()])].filter((k) => k !== KEY_ENTRY && x.get(k) !== y.get(k)).sort();
}
