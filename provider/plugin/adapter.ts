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
import type { ResourceKind } from "../spec";
import { SPECS } from "../kinds";
import { unwrap } from "./wire-values";

type Obj = Record<string, unknown>;

/** The start of every token of the schema: resources, types and functions. */
export const PACKAGE_TOKEN_PREFIX = "sandbox:index:";

/** The schema's type token of each kind: `sandbox:index:Volume`. */
export const TOKENS: Record<ResourceKind, string> = {
  Template: `${PACKAGE_TOKEN_PREFIX}Template`,
  Volume: `${PACKAGE_TOKEN_PREFIX}Volume`,
  Sandbox: `${PACKAGE_TOKEN_PREFIX}Sandbox`,
  TemplateTag: `${PACKAGE_TOKEN_PREFIX}TemplateTag`,
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
 * where it is not what a program writes (IMPORT_CORRECTIONS). The state and the inputs both get the
 * corrections, since the next diff compares the program with the state.
 */
export function importedState(kind: ResourceKind, props: Obj): Obj {
  return { ...props, ...IMPORT_CORRECTIONS[kind]?.(props) };
}

/**
 * The inputs a user would write for a resource read from the service (import): its spec's inputs in
 * the corrected state, less those that are reports rather than wishes (NOT_IMPORTED). What the service
 * cannot give back (a template's Dockerfile, a sandbox's envVars and provisioning) is left out: see
 * the plugin's README.
 */
export function importedInputs(kind: ResourceKind, state: Obj): Obj {
  const skip = new Set([...Object.keys(SPECS[kind].renamed ?? {}), ...(NOT_IMPORTED[kind] ?? [])]);
  const keys = Object.keys(SPECS[kind].inputs.shape).filter((k) => !skip.has(k) && state[k] !== undefined && state[k] !== null);
  return wrapSecrets(Object.fromEntries(keys.map((k) => [k, state[k]])), SPECS[kind].secretInputs);
}

const IMPORT_CORRECTIONS: Partial<Record<ResourceKind, (props: Obj) => Obj>> = {
  Sandbox: (props) => ({
    // A program names a template by its alias (`base`); the service reports both, and the ID would
    // differ from what the program says and replace the sandbox.
    templateID: typeof props.alias === "string" && props.alias ? props.alias : props.templateID,
    // The life the sandbox was given: its deadline counted from its start (unless extended since).
    timeoutSeconds: lifeSeconds(props),
  }),
};

/**
 * A sandbox's `state` output is the service's report; the input of the same name is a wish to keep it
 * running or paused, which a sandbox made outside Pulumi never expressed.
 */
const NOT_IMPORTED: Partial<Record<ResourceKind, string[]>> = { Sandbox: ["state"] };

function lifeSeconds(props: Obj): number | undefined {
  const seconds = Math.round((Date.parse(String(props.endAt)) - Date.parse(String(props.startedAt))) / 1000);
  return Number.isInteger(seconds) && seconds >= 1 && seconds <= 86_400 ? seconds : undefined;
}

/**
 * A template's Dockerfile cannot be read back from the service, so an import records none, and the
 * state's outputs hold none until an update. Until then the diff takes the Dockerfile the inputs
 * recorded since (the engine keeps the program's inputs on an unchanged resource), else the
 * program's: declaring an imported template shows no changes, and a later change of its Dockerfile
 * rebuilds it.
 */
export function withKnownDockerfile(kind: ResourceKind, olds: Obj, oldInputs: Obj | undefined, news: Obj): Obj {
  if (kind !== "Template" || typeof olds.dockerfile === "string") return olds;
  const recorded = oldInputs?.dockerfile;
  return { ...olds, dockerfile: typeof recorded === "string" ? recorded : news.dockerfile };
}

function withoutSecrets(values: Obj): Obj {
  const { __secrets: _dropped, ...rest } = values;
  return rest;
}
