/**
 * The provider's code as the dynamic-provider host runs it, loaded by package name
 * (`pulumi-sandbox/runtime`) from the provider text in state (../handle.ts). Keeping the real code
 * here, outside that text, keeps the state small, and lets a newer installed version serve resources
 * recorded by an older one.
 *
 * What a call needs is loaded when it is first needed: `check` and `diff` (all a preview makes) need
 * the specs; the HTTP and in-sandbox clients behind create, read, update and delete load at the first
 * of those.
 */
// First: on a Node.js too old for the dependencies, fail here with the fix, not deep inside them.
import "../../sdk/node-version";
import type * as pulumi from "@pulumi/pulumi";
import { resolveOptions } from "../../sdk/config";
import { checkInputs, type CheckOutcome } from "../check";
import { diffInputs, type DiffOutcome } from "../diff";
import type { Credential } from "../config-keys";
import { underCurrentNames, type ResourceKind } from "../spec";
import { SPECS } from "../specs";
import { clientOptions, configProblems, configure as configureContext, type ConfigSource } from "./configured";
import { unlessGone } from "./gone";
import { untyped, type DeriveOutcome, type Inputs, type Outputs, type ResourceHandlers, type UntypedHandlers } from "./handlers";
import { deriveTemplateSteps } from "../resources/template-derive";
import { migrate, stamped } from "./migrate";

// Keyed by the registry's kinds: the compiler refuses a kind without handlers, or another kind's.
// Imported at the first call that needs them: a preview never loads the clients.
const LOADERS: { [K in ResourceKind]: () => Promise<ResourceHandlers<K>> } = {
  Template: async () => (await import("../resources/template.js")).templateHandlers,
  Volume: async () => (await import("../resources/volume.js")).volumeHandlers,
  Sandbox: async () => (await import("../resources/sandbox.js")).sandboxHandlers,
  TemplateTag: async () => (await import("../resources/template-tag.js")).templateTagHandlers,
};
/**
 * Adds a spec's `derived` inputs to checked inputs (unknown ones at preview stay unknown), before any
 * call. Local work, at every preview: kept out of the handlers so `check` loads no client.
 */
const DERIVE: { [K in ResourceKind]?: (inputs: Inputs) => DeriveOutcome } = { Template: deriveTemplateSteps };
/** The kinds whose `check` adds derived inputs: those whose spec lists `derived` (test/unit/derive-kinds.test.ts). */
export const DERIVING_KINDS = Object.keys(DERIVE) as ResourceKind[];
const handlersOf = async (kind: ResourceKind): Promise<UntypedHandlers> => untyped(await LOADERS[kind]());

export function configure(req: { config: ConfigSource }): void {
  configureContext(req.config);
}

/** Validation before any API call; a bad stack config value and a missing credential are reported here too, at preview. */
export async function check(kind: ResourceKind, olds: Inputs, news: Inputs): Promise<CheckOutcome> {
  const checked = checkInputs(SPECS[kind], migrate(kind, olds ?? {}), news ?? {});
  if (!checked.inputs) return checked;
  // Inputs computed from the others (a Template's build steps): local work, still before any call.
  const outcome = DERIVE[kind]?.(checked.inputs) ?? checked;
  if (!outcome.inputs) return outcome;
  const failures = [...configProblems().map((reason) => ({ property: "", reason })), ...missingCredentials(kind, outcome.inputs)];
  return failures.length ? { failures } : outcome;
}

/** Where each credential is set, and what a kind needs it for. */
const CREDENTIAL_HELP: Record<Credential, (kind: ResourceKind) => string> = {
  apiKey: (kind) => `sandbox:apiKey: ${kind} needs an API key: run \`pulumi config set --secret sandbox:apiKey <key>\` or set E2B_API_KEY.`,
  accessToken: (kind) =>
    `sandbox:accessToken: ${kind} needs an access token (buildSystem "v1": its build endpoints take only a Bearer token): run ` +
    "`pulumi config set --secret sandbox:accessToken <token>` or set E2B_ACCESS_TOKEN.",
};

function missingCredentials(kind: ResourceKind, inputs: Inputs): { property: string; reason: string }[] {
  const o = resolveOptions(clientOptions());
  const needed = [...new Set([...SPECS[kind].credentials, ...(SPECS[kind].credentialsFor?.(inputs) ?? [])])];
  return needed.filter((c) => !o[c]).map((c) => ({ property: "", reason: CREDENTIAL_HELP[c](kind) }));
}

export async function diff(kind: ResourceKind, _id: string, olds: Outputs, news: Inputs): Promise<DiffOutcome> {
  return diffInputs(SPECS[kind], migrate(kind, olds ?? {}), news ?? {});
}

/**
 * What goes back to the host is plain JSON: the host packs results with `Struct.fromJavaScript`, which
 * throws on `undefined` (and then never answers the engine). Absent is what `undefined` meant.
 */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export async function create(kind: ResourceKind, inputs: Inputs) {
  const { id, outs } = await (await handlersOf(kind)).create(underCurrentNames(SPECS[kind], inputs));
  return plain({ id, outs: stamped(kind, outs) });
}

export async function read(kind: ResourceKind, id: string, props: Outputs) {
  const found = await (await handlersOf(kind)).read(id, migrate(kind, props ?? {}));
  return plain(found.props ? { ...found, props: stamped(kind, found.props) } : found);
}

/** A resource that expired or was deleted elsewhere fails its update saying so, and what to do (./gone.ts). */
export async function update(kind: ResourceKind, id: string, olds: Outputs, news: Inputs) {
  const handlers = await handlersOf(kind);
  const state = migrate(kind, olds ?? {});
  const change = () => handlers.update(id, state, underCurrentNames(SPECS[kind], news ?? {}));
  const key = typeof state.__resource === "string" ? state.__resource : undefined;
  const { outs } = await unlessGone(kind, id, key, () => handlers.read(id, state), change);
  return plain({ outs: stamped(kind, outs) });
}

export async function remove(kind: ResourceKind, id: string, props: Outputs): Promise<void> {
  return (await handlersOf(kind)).delete(id, migrate(kind, props ?? {}));
}

const providers = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

/** The provider object of one kind, as the text in state (../handle.ts) asks the host to use it. */
export function provider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  let p = providers.get(kind);
  if (!p) {
    p = {
      configure: async (req) => configure(req),
      check: (olds, news) => check(kind, olds, news),
      diff: (id, olds, news) => diff(kind, id, olds, news),
      create: (inputs) => create(kind, inputs),
      read: (id, props) => read(kind, id, props),
      update: (id, olds, news) => update(kind, id, olds, news),
      delete: (id, props) => remove(kind, id, props),
    };
    providers.set(kind, p);
  }
  return p;
}
