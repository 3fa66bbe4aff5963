/**
 * What of a resource is secret, the same for both front ends. The engine keeps secret, of what a
 * provider answers, the values it gets wrapped as secrets, and (for the dynamic-provider host, which
 * takes no secrets) the results named like an input that came in secret. A result computed from a
 * secret input under another name (a Template's `buildSteps`, from a Dockerfile built around a token)
 * would be stored in plain text. So the runtime names every result to keep secret, and each front end
 * wraps those: the dynamic provider in its answers to the host (./index.ts), the plugin in
 * ../plugin/adapter.ts.
 *
 * The same knowledge says what logs and messages must hide (`hiddenValues`).
 */
import { resolveOptions } from "../../sdk/config";
import { SPECS, type ResourceKind } from "../kinds/specs";
import { clientOptions } from "./configured";
import { isWrapped, netSecretsOf, withSecretsNetted, wrapped } from "./secret-net";

type Obj = Record<string, unknown>;

/** The plaintext of the program's secrets, as `__secrets` carries them (../secret-values.ts, ../plugin/adapter.ts). */
export function programSecrets(values: Obj): string[] {
  return Array.isArray(values.__secrets) ? values.__secrets.filter((v): v is string => typeof v === "string" && v !== "") : [];
}

/** Every string inside a value. */
function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(stringsIn);
  return [];
}

/**
 * The inputs that came in secret. The dynamic-provider host strips the marks, but `__secrets` holds
 * the plaintext of each secret string the program gave, so an input holding one of them as a whole
 * came in secret (`pulumi.interpolate` over a secret makes the whole string secret). A secret number
 * or flag is not seen here; the engine keeps those secret under their own name.
 */
export function secretInputs(kind: ResourceKind, values: Obj): Set<string> {
  const secrets = new Set(programSecrets(values));
  if (secrets.size === 0) return new Set();
  return new Set(Object.keys(SPECS[kind].inputs.shape).filter((key) => stringsIn(values[key]).some((s) => secrets.has(s))));
}

/** The spec's `secretFrom` results that take a secret from one of `secret`. */
function derivedSecrets(kind: ResourceKind, secret: ReadonlySet<string>): string[] {
  return Object.entries(SPECS[kind].secretFrom ?? {}).filter(([, from]) => from.some((k) => secret.has(k))).map(([key]) => key);
}

/**
 * The results derived from an input of `request` that came in secret (`secretFrom`): all the engine
 * cannot know of itself when the provider takes no secrets, since it keeps secret the results named
 * like a secret input, and the class asks for the spec's secret outputs (`additionalSecretOutputs`).
 */
export function derivedSecretKeys(kind: ResourceKind, request: Obj): string[] {
  return derivedSecrets(kind, new Set([...secretInputs(kind, request), ...SPECS[kind].secretInputs]));
}

/**
 * The top-level keys of a result to store secret: the spec's secret inputs and outputs, the inputs of
 * `request` that came in secret (and `given`, the ones a front end knows came in secret), and what
 * the spec derives from those (`secretFrom`). `request` is what the result answers: the inputs of a
 * check, create or update, the state a read refreshes.
 */
export function secretKeys(kind: ResourceKind, request: Obj, given: Iterable<string> = []): Set<string> {
  const spec = SPECS[kind];
  const secret = new Set([...given, ...secretInputs(kind, request), ...spec.secretInputs, ...spec.secretOutputs]);
  for (const key of derivedSecrets(kind, secret)) secret.add(key);
  return secret;
}

/** `values` with each of `keys` wrapped as the engine's secret (whole top-level values: coarse, never leaky). */
export function wrapSecrets(values: Obj, keys: Iterable<string>): Obj {
  const out: Obj = { ...values };
  for (const key of keys) {
    const value = out[key];
    if (value !== undefined && value !== null && !isWrapped(value)) out[key] = wrapped(value);
  }
  return out;
}

/** `value` with what `path` (its parts, `*` for every key of a map) names wrapped as a secret; a copy where it changes. */
function wrapAt(value: unknown, path: readonly string[]): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value) || isWrapped(value)) return value;
  const [head, ...rest] = path;
  if (head === undefined) return value;
  const obj = value as Obj;
  const keys = head === "*" ? Object.keys(obj) : head in obj ? [head] : [];
  if (keys.length === 0) return value;
  const out: Obj = { ...obj };
  for (const key of keys) {
    const inner = out[key];
    // Nothing to hide in an absent value or an empty list: left plain, which keeps state small.
    const empty = inner === undefined || inner === null || (Array.isArray(inner) && inner.length === 0);
    if (rest.length > 0) out[key] = wrapAt(inner, rest);
    else if (!empty && !isWrapped(inner)) out[key] = wrapped(inner);
  }
  return out;
}

/**
 * `values` with each value the spec names in `secretWithin` (`members.*.envVars`) wrapped as the
 * engine's secret: finer than `wrapSecrets`, for a field whose keys and other values are not secret.
 * A value already wrapped (whole, or higher up) is left as it is.
 */
export function wrapSecretsWithin(kind: ResourceKind, values: Obj): Obj {
  let out = values;
  for (const path of SPECS[kind].secretWithin ?? []) out = wrapAt(out, path.split(".")) as Obj;
  return out;
}

/**
 * An answer as both front ends hand it to the engine: `keys` wrapped whole (`wrapSecrets`), the spec's
 * `secretWithin` values, then every other copy of a program secret the answer holds, in any field
 * (./secret-net.ts). `requests`: what the answer answers (inputs, or the state a read refreshes),
 * whose `__secrets` name the program's secrets with the answer's own.
 */
export function wrapAnswer(kind: ResourceKind, values: Obj, keys: Iterable<string>, ...requests: Obj[]): Obj {
  return withSecretsNetted(wrapSecretsWithin(kind, wrapSecrets(values, keys)), netSecretsOf(values, ...requests));
}

/**
 * What a resource's log lines, messages and stored output must not show: the credentials, the values
 * the program marked secret, and what was derived from those (each step of a secret Dockerfile as
 * `buildSteps` words it, which is not always a line of the Dockerfile: a continued line is joined).
 */
export function hiddenValues(kind: ResourceKind, values: Obj): string[] {
  const o = resolveOptions(clientOptions());
  const derived = derivedSecretKeys(kind, values);
  const credentials = [o.apiKey, o.accessToken].filter((v): v is string => typeof v === "string" && v !== "");
  return [...credentials, ...programSecrets(values), ...derived.flatMap((key) => stringsIn(values[key]))];
}
