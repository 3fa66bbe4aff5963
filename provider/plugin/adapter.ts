/**
 * The one place the engine's view of a resource meets the runtime's. The runtime was written for the
 * dynamic provider, whose class hands it two inputs of its own: `__resource` (the key auto-names and
 * markers derive from) and `__secrets` (the plaintext of the values the program marked secret, so logs
 * can hide them). A native plugin gets both from the engine instead: the key is built from the URN of
 * the request and the provider's ID (./stack-instance.ts), and the secrets are the values that arrive
 * wrapped as secrets (./wire-values.ts). `__secrets` is never stored by the plugin: every request
 * carries its wrapped secrets again.
 */
import { secretKeys, wrapSecrets } from "../runtime/secrets";
import { definitionOf, KINDS, SPECS, type ResourceKind } from "../kinds";
import { unwrap } from "./wire-values";

type Obj = Record<string, unknown>;

/** The start of every token of the schema: resources, types and functions. */
export const PACKAGE_TOKEN_PREFIX = "sandbox:index:";

/** The schema's type token of each kind of the registry: `sandbox:index:Volume`. */
export const TOKENS = Object.fromEntries(KINDS.map((kind) => [kind, `${PACKAGE_TOKEN_PREFIX}${kind}`])) as Record<ResourceKind, string>;

/** The kind a URN names (`urn:pulumi:stack::project::[parent$]sandbox:index:Volume::name`). */
export function kindOf(urn: string): ResourceKind {
  const type = (urn.split("::")[2] ?? "").split("$").pop() ?? "";
  const kind = (Object.keys(TOKENS) as ResourceKind[]).find((k) => TOKENS[k] === type);
  if (!kind) throw new Error(`pulumi-resource-sandbox: unknown resource type "${type}"; this provider serves ${Object.values(TOKENS).join(", ")}`);
  return kind;
}

export interface ToRuntime {
  values: Obj;
  /** Top-level keys that came in secret: they go back secret. */
  secretKeys: Set<string>;
}

/** Request values as the runtime takes them: plain, with `__secrets` from the wrapped values. */
export function toRuntime(values: Obj | undefined): ToRuntime {
  const { plain, secretKeys, secretValues } = unwrap(values);
  return { values: secretValues.length ? { ...plain, __secrets: secretValues } : withoutSecrets(plain), secretKeys };
}

/**
 * Runtime results as the engine stores them, with what the runtime says is secret wrapped (every key
 * of `request` that came in secret, the spec's secret inputs and outputs, and what derives from a
 * secret input: ../runtime/secrets.ts); `__secrets` dropped (it is derived again on every request).
 * `request` is what the results answer, as `toRuntime` made it.
 */
export function fromRuntime(kind: ResourceKind, values: Obj, request: ToRuntime): Obj {
  return wrapSecrets(withoutSecrets(values), secretKeys(kind, request.values, request.secretKeys));
}

/**
 * A resource read for an import, as a program would have made it: the service's answer corrected
 * where it is not what a program writes (the kind's `importCorrections`). The state and the inputs both get the
 * corrections, since the next diff compares the program with the state.
 */
export function importedState(kind: ResourceKind, props: Obj): Obj {
  return { ...props, ...definitionOf(kind).importCorrections?.(props) };
}

/**
 * The inputs a user would write for a resource read from the service (import): its spec's inputs in
 * the corrected state, less those that are reports rather than wishes (the kind's `notImported`). What the service
 * cannot give back (a template's Dockerfile, a sandbox's envVars and provisioning) is left out: see
 * the plugin's README.
 */
export function importedInputs(kind: ResourceKind, state: Obj): Obj {
  const skip = new Set([...Object.keys(SPECS[kind].renamed ?? {}), ...(definitionOf(kind).notImported ?? [])]);
  const keys = Object.keys(SPECS[kind].inputs.shape).filter((k) => !skip.has(k) && state[k] !== undefined && state[k] !== null);
  return wrapSecrets(Object.fromEntries(keys.map((k) => [k, state[k]])), SPECS[kind].secretInputs);
}

/**
 * Inputs the service cannot give back (the kind's `notReadBack`: a template's Dockerfile) are not
 * recorded by an import, and the state's outputs hold none until an update. Until then the diff takes
 * the value the inputs recorded since (the engine keeps the program's inputs on an unchanged
 * resource), else the program's: declaring an imported template shows no changes, and a later change
 * of its Dockerfile rebuilds it.
 */
export function withKnownInputs(kind: ResourceKind, olds: Obj, oldInputs: Obj | undefined, news: Obj): Obj {
  const missing = (definitionOf(kind).notReadBack ?? []).filter((key) => typeof olds[key] !== "string");
  if (missing.length === 0) return olds;
  const known = (key: string) => (typeof oldInputs?.[key] === "string" ? oldInputs[key] : news[key]);
  return { ...olds, ...Object.fromEntries(missing.map((key) => [key, known(key)])) };
}

function withoutSecrets(values: Obj): Obj {
  const { __secrets: _dropped, ...rest } = values;
  return rest;
}
