/**
 * The one place the engine's view of a resource meets the runtime's. The runtime was written for the
 * dynamic provider, whose class hands it two inputs of its own: `__resource` (the key auto-names and
 * markers derive from) and `__secrets` (the plaintext of the values the program marked secret, so logs
 * can hide them). A native plugin gets both from the request instead: the key is the URN the engine
 * sends, and the secrets are the values that arrive wrapped as secrets (./wire-values.ts). `__secrets`
 * is never stored by the plugin: every request carries its wrapped secrets again.
 */
import type { ResourceKind } from "../spec";
import { SPECS } from "../specs";
import { unwrap, wrapSecrets } from "./wire-values";

type Obj = Record<string, unknown>;

/** The start of every token of the schema: resources, types and functions. */
export const PACKAGE_TOKEN_PREFIX = "sandbox:index:";

/** The schema's type token of each kind: `sandbox:index:Volume`. */
export const TOKENS: Record<ResourceKind, string> = {
  Template: `${PACKAGE_TOKEN_PREFIX}Template`,
  Volume: `${PACKAGE_TOKEN_PREFIX}Volume`,
  Sandbox: `${PACKAGE_TOKEN_PREFIX}Sandbox`,
};

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
 * Runtime results as the engine stores them: every key that came in secret, every secret input and
 * output of the spec wrapped; `__secrets` dropped (it is derived again on every request).
 */
export function fromRuntime(kind: ResourceKind, values: Obj, secretKeys: Iterable<string>): Obj {
  const spec = SPECS[kind];
  return wrapSecrets(withoutSecrets(values), new Set([...secretKeys, ...spec.secretInputs, ...spec.secretOutputs]));
}

/** The inputs a user would write for a resource read from the service (import): its spec's inputs in the state. */
export function importedInputs(kind: ResourceKind, props: Obj): Obj {
  const keys = Object.keys(SPECS[kind].inputs.shape).filter((k) => !(k in (SPECS[kind].renamed ?? {})) && props[k] !== undefined && props[k] !== null);
  return wrapSecrets(Object.fromEntries(keys.map((k) => [k, props[k]])), SPECS[kind].secretInputs);
}

function withoutSecrets(values: Obj): Obj {
  const { __secrets: _dropped, ...rest } = values;
  return rest;
}
