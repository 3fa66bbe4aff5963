/**
 * Secret: a team secret, a value the service keeps for sandbox egress and never gives back
 * (docs/service.md#secrets).
 *   create  POST /secrets {name, value, metadata}        (an unknown outcome is resolved by GET /secrets/{name})
 *   read    GET /secrets/{secretID}                       (404: gone; the value is never answered, so state keeps the program's)
 *   update  POST /secrets/{secretID} {value, metadata}    (a new version, same ID and name)
 *   delete  DELETE /secrets/{secretID}                    (404: already gone)
 * Replacement: `name` (no call renames a secret). A new `value` or `metadata` is an update in place:
 * the service takes both in one call, so either change writes a new version.
 */
import { z } from "zod";
import { defineSpec } from "../../spec";
import { CLAIM_KEY } from "../name-claims";
import { autoName } from "../naming";

/** The service's name rule, in the lower case it stores names in, so state and program agree. */
const NAME = /^[a-z0-9_-]+$/;
/** The prefix the service keeps for secret IDs; a name cannot start with it. */
const ID_PREFIX = "sec_";
const bytes = (s: string) => Buffer.byteLength(s, "utf8");
/** The claim's key and its value, a 16-digit nonce (../identity.ts). */
const CLAIM_BYTES = bytes(CLAIM_KEY) + 16;

export const SecretInputs = z.strictObject({
  name: z.string({ error: "must be a string" })
    .min(1, { error: "must not be empty" })
    .max(128, { error: "must be at most 128 characters" })
    .regex(NAME, { error: "may contain only lowercase letters, digits, '_' and '-' (the service stores names lower-cased)" })
    .refine((n) => !n.startsWith(ID_PREFIX), { error: "must not start with 'sec_': the service keeps that prefix for secret IDs" })
    .optional()
    .describe("Name of the secret, unique in the team. Default: the resource name plus a stable suffix. A change replaces the secret."),
  value: z.string({ error: "must be a string" })
    .describe("The secret's value. Write-only: the service never returns it, so the provider cannot see it changed elsewhere. Always secret. A change writes a new version in place."),
  metadata: z.record(z.string(), z.string({ error: "must be a string" }), { error: "must be a map of strings" })
    // The service takes 32 entries and 8192 bytes; the provider's claim (./claim.ts) takes one entry and CLAIM_BYTES.
    .refine((m) => Object.keys(m).every((k) => !k.startsWith("pulumi-sandbox.")), { error: "names must not start with the reserved prefix 'pulumi-sandbox.'" })
    .refine((m) => Object.keys(m).length <= 31, { error: "must have at most 31 entries (the service's 32, less the one the provider keeps for its claim)" })
    .refine((m) => Object.keys(m).every((k) => bytes(k) <= 128), { error: "keys must be at most 128 bytes" })
    .refine((m) => Object.values(m).every((v) => bytes(v) <= 1024), { error: "values must be at most 1024 bytes" })
    .refine((m) => Object.entries(m).reduce((n, [k, v]) => n + bytes(k) + bytes(v), 0) <= 8192 - CLAIM_BYTES, { error: `must be at most ${8192 - CLAIM_BYTES} bytes in all (the service's 8192, less the provider's claim)` })
    .optional()
    .describe("Your own labels for the secret (not secret). Default: none. A change writes a new version in place, with the same value."),
});

export const SecretOutputs = z.object({
  secretID: z.string().describe("The secret's ID (`sec_…`)."),
  currentVersion: z.number().describe("The version the service serves: 1 at create, one more at each update, by Pulumi or anyone else."),
});

export const secretSpec = defineSpec({
  kind: "Secret",
  description:
    "A team secret: a value the service keeps and never returns (only its metadata). The value is secret everywhere " +
    "in Pulumi (state, previews, logs). A new `value` or `metadata` writes a new version of the same secret; a new " +
    "`name` replaces it. Deleting the resource deletes the secret. The service offers secrets behind a feature flag. " +
    "A Sandbox refers to one by name in a header value of its `network.rules` (`${e2b.secrets.<name>}`): the service " +
    "puts the value in the sandbox's matching outgoing requests, and it never enters the sandbox.",
  inputs: SecretInputs,
  outputs: SecretOutputs,
  inPlace: ["value", "metadata"],
  localOnly: [],
  uniqueNames: ["name"],
  secretInputs: ["value"],
  secretOutputs: ["value"],
  idOutputs: ["secretID"],
  credentials: ["apiKey"],
  // An auto-name never takes the service's reserved ID prefix.
  autoName: (key, generation) => ({ name: autoName(key, generation).replace(/^sec_/, "sec-") }),
});
