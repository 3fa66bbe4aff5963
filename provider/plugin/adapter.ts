/**
 * The one place the engine's view of a resource meets the runtime's. The runtime was written for the
 * dynamic provider, whose class hands it two inputs of its own: `__resource` (the key auto-names and
 * markers derive from) and `__secrets` (the plaintext of the values the program marked secret, so logs
 * can hide them). A native plugin gets both from the engine instead: the key is built from the URN of
 * the request and the provider's ID (./stack-instance.ts), and the secrets are the values of a check's
 * new inputs that arrive wrapped as secrets (./wire-values.ts): those are the program's own, since the
 * schema marks no input secret for an SDK to wrap whole (../schema/build.ts).
 *
 * Every later request holds values this plugin wrapped itself: the check's answer wraps the spec's
 * secret inputs (`envVars`, `provision`), so state holds them encrypted, and a create then gets them
 * wrapped whether or not the program marked them. So every answer carries the check's `__secrets` on,
 * itself a secret, as the dynamic provider's state does; a request that holds it takes the program's
 * secrets from it. One without it (state written before it was kept) hides every secret string.
 */
import { secretKeys, wrapAnswer, wrapSecrets } from "../runtime/secrets";
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
  /** The plaintext of the values the program marked secret, when known: every answer carries it on as `__secrets`. */
  programSecrets?: (string | number)[];
}

/**
 * Request values as the runtime takes them: plain, with `__secrets`. `fromProgram`: the values are the
 * program's own (a check's new inputs), so what came wrapped is what it marked secret. Otherwise the
 * request's own `__secrets` says that, when it holds one.
 */
export function toRuntime(values: Obj | undefined, fromProgram = false): ToRuntime {
  const { plain, secretKeys, secretValues } = unwrap(values);
  const carried = Array.isArray(plain.__secrets) ? plain.__secrets.filter((v): v is string | number => typeof v === "string" || typeof v === "number") : undefined;
  const programSecrets = fromProgram ? secretValues : carried;
  const hidden = programSecrets ?? secretValues;
  return { values: hidden.length ? { ...withoutSecrets(plain), __secrets: hidden } : withoutSecrets(plain), secretKeys, programSecrets };
}

/**
 * Runtime results as the engine stores them, with what the runtime says is secret wrapped (every key
 * of `request` that came in secret, the spec's secret inputs and outputs, and what derives from a
 * secret input, and any other copy of a program secret: ../runtime/secrets.ts `wrapAnswer`), and the
 * program's secrets carried on as `__secrets`, secret.
 * `request` is what the results answer, as `toRuntime` made it.
 */
export function fromRuntime(kind: ResourceKind, values: Obj, request: ToRuntime): Obj {
  const carried = request.programSecrets ? { __secrets: request.programSecrets } : {};
  return wrapAnswer(kind, { ...withoutSecrets(values), ...carried }, [...secretKeys(kind, request.values, request.secretKeys), "__secrets"], request.values);
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
