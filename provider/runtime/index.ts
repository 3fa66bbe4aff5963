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
import { redact } from "../../sdk/errors";
import { checkInputs, type CheckOutcome } from "../check";
import { diffInputs, type DiffOutcome } from "../diff";
import type { Credential } from "../config-keys";
import { underCurrentNames } from "../spec";
import { definitionOf, KINDS, SPECS, type ResourceKind } from "../kinds";
import { clientOptions, configProblems, configure as configureContext, type ConfigSource } from "./configured";
import { logsSent, logToEngineInDynamicHost } from "./engine-log";
import { unlessGone } from "./gone";
import { untyped, type Inputs, type Outputs, type UntypedHandlers } from "./handlers";
import { migrate, stamped } from "./migrate";
import { chooseFreeName } from "./name-choice";
import { noteDetailedDiff } from "./detailed-diff";
import { engineBoundsInDynamicHost } from "./operation";
import { derivedSecretKeys, hiddenValues, secretInputs, wrapAnswer } from "./secrets";

/** The kinds whose `check` adds derived inputs: those whose folder has a `derive` (test/unit/derive-kinds.test.ts). */
export const DERIVING_KINDS = KINDS.filter((kind) => definitionOf(kind).derive !== undefined);
/** A kind's handlers, imported at the first call that needs them (../kinds/<kind>/index.ts): a preview never loads the clients. */
const handlersOf = async (kind: ResourceKind): Promise<UntypedHandlers> => untyped(await definitionOf(kind).handlers());

export function configure(req: { config: ConfigSource }): void {
  configureContext(req.config);
}

/** Validation before any API call; a bad stack config value and a missing credential are reported here too, at preview. */
export async function check(kind: ResourceKind, olds: Inputs, news: Inputs): Promise<CheckOutcome> {
  const given = news ?? {};
  // A failure may quote an input (a Dockerfile's COPY source): not one the program marked secret.
  const hide = (outcome: CheckOutcome): CheckOutcome => outcome.failures
    ? { failures: outcome.failures.map((f) => ({ ...f, reason: redact(f.reason, hiddenValues(kind, given)) })) }
    : outcome;
  return hide(await scrubbed(kind, given, async () => {
    const stored = migrate(kind, olds ?? {});
    const own = definitionOf(kind).check;
    const checked = own ? own(stored, given) : checkInputs(SPECS[kind], stored, given);
    if (!checked.inputs) return checked;
    const secretIds = secretIdInputs(kind, checked.inputs);
    if (secretIds.length) return { failures: secretIds };
    // Inputs computed from the others (a Template's build steps): local work, still before any call.
    const outcome = definitionOf(kind).derive?.(checked.inputs) ?? checked;
    if (!outcome.inputs) return outcome;
    const failures = [...configProblems().map((reason) => ({ property: "", reason })), ...missingCredentials(kind, outcome.inputs)];
    return failures.length ? { failures } : { ...outcome, inputs: await chooseFreeName(kind, stored, outcome.inputs) };
  }));
}

/** Inputs the ID is made of (a TemplateTag's `alias:tag`) that came in secret: Pulumi stores an ID in plain text. */
function secretIdInputs(kind: ResourceKind, inputs: Inputs): { property: string; reason: string }[] {
  const secret = secretInputs(kind, inputs);
  return (SPECS[kind].idFrom ?? []).filter((key) => secret.has(key)).map((key) => ({
    property: "",
    reason: `${key}: is a secret, but it is part of the ${kind}'s ID, which Pulumi stores in plain text and cannot mark secret. ` +
      "Pass a value that is not secret (`pulumi.unsecret(...)` if it need not be one).",
  }));
}

/**
 * Runs a method with its errors cleared of what the resource hides (../runtime/secrets.ts): a message
 * may quote the service, which may quote a build log or a command's output. The host prints `stack`
 * too, which holds the message as it was when the error was made.
 */
async function scrubbed<T>(kind: ResourceKind, values: Inputs, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    const hidden = hiddenValues(kind, values);
    err.message = redact(err.message, hidden);
    if (err.stack) err.stack = redact(err.stack, hidden);
    const withReasons = err as Error & { reasons?: unknown };
    if (Array.isArray(withReasons.reasons)) withReasons.reasons = withReasons.reasons.map((r) => (typeof r === "string" ? redact(r, hidden) : r));
    throw err;
  }
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

/** The kind's own diff where it has one (../kinds/kind.ts), else the spec's; what it says of each path goes to the engine too (./detailed-diff.ts). */
export async function diff(kind: ResourceKind, _id: string, olds: Outputs, news: Inputs): Promise<DiffOutcome> {
  const own = definitionOf(kind).diff;
  const outcome = own ? own(migrate(kind, olds ?? {}), news ?? {}) : diffInputs(SPECS[kind], migrate(kind, olds ?? {}), news ?? {});
  noteDetailedDiff(outcome);
  return outcome;
}

/**
 * What goes back to the host is plain JSON: the host packs results with `Struct.fromJavaScript`, which
 * throws on `undefined` (and then never answers the engine). Absent is what `undefined` meant.
 */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export async function create(kind: ResourceKind, inputs: Inputs) {
  return scrubbed(kind, inputs, async () => {
    const { id, outs } = await (await handlersOf(kind)).create(underCurrentNames(SPECS[kind], inputs));
    return plain({ id, outs: stamped(kind, outs) });
  });
}

export async function read(kind: ResourceKind, id: string, props: Outputs) {
  return scrubbed(kind, props ?? {}, async () => {
    const found = await (await handlersOf(kind)).read(id, migrate(kind, props ?? {}));
    return plain(found.props ? { ...found, props: stamped(kind, found.props) } : found);
  });
}

/** A resource that expired or was deleted elsewhere fails its update saying so, and what to do (./gone.ts). */
export async function update(kind: ResourceKind, id: string, olds: Outputs, news: Inputs) {
  return scrubbed(kind, news ?? {}, async () => {
    const handlers = await handlersOf(kind);
    const state = migrate(kind, olds ?? {});
    const change = () => handlers.update(id, state, underCurrentNames(SPECS[kind], news ?? {}));
    const key = typeof state.__resource === "string" ? state.__resource : undefined;
    const { outs } = await unlessGone(kind, id, key, () => handlers.read(id, state), change);
    return plain({ outs: stamped(kind, outs) });
  });
}

export async function remove(kind: ResourceKind, id: string, props: Outputs): Promise<void> {
  return scrubbed(kind, props ?? {}, async () => (await handlersOf(kind)).delete(id, migrate(kind, props ?? {})));
}

/**
 * `values` as the dynamic-provider host passes them on, with what derives from a secret input wrapped
 * as a secret, and every other copy of a program secret (./secrets.ts `wrapAnswer`): the host takes
 * an answer as it is, and the engine keeps a wrapped value secret. The rest the engine marks itself, by name.
 */
function withSecretsWrapped(kind: ResourceKind, values: Outputs, request: Inputs): Outputs {
  return wrapAnswer(kind, values, derivedSecretKeys(kind, request), request);
}

/** A create or update that failed once the resource existed: the state it carries (./partial.ts) is an answer too. */
async function wrappingPartial<T>(kind: ResourceKind, request: Inputs, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const e = err as { id?: unknown; properties?: unknown };
    if (e && typeof e.id === "string" && e.properties && typeof e.properties === "object") {
      e.properties = withSecretsWrapped(kind, e.properties as Outputs, request);
    }
    throw err;
  }
}

const providers = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

// Loaded in the dynamic-provider host, the runtime's lines go on their resources' rows (./engine-log.ts),
// and its creates and updates stop on the engine's Cancel and deadline (./operation.ts).
logToEngineInDynamicHost();
engineBoundsInDynamicHost();

/** Each method answers (or fails) only once its lines reached the engine (./engine-log.ts, `logsSent`). */
function afterLinesSent(methods: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
  const wrapped: Record<string, (...args: never[]) => Promise<unknown>> = {};
  for (const [name, method] of Object.entries(methods) as [string, (...args: never[]) => unknown][]) {
    wrapped[name] = async (...args) => {
      try {
        return await method(...args);
      } finally {
        await logsSent();
      }
    };
  }
  return wrapped as unknown as pulumi.dynamic.ResourceProvider;
}

/** The provider object of one kind, as the text in state (../handle.ts) asks the host to use it. */
export function provider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  let p = providers.get(kind);
  if (!p) {
    p = {
      configure: async (req) => configure(req),
      check: async (olds, news) => {
        const outcome = await check(kind, olds, news);
        return outcome.inputs ? { ...outcome, inputs: withSecretsWrapped(kind, outcome.inputs, outcome.inputs) } : outcome;
      },
      diff: (id, olds, news) => diff(kind, id, olds, news),
      create: async (inputs) => {
        const { id, outs } = await wrappingPartial(kind, inputs, () => create(kind, inputs));
        return { id, outs: withSecretsWrapped(kind, outs, inputs) };
      },
      read: async (id, props) => {
        const found = await read(kind, id, props);
        return found.props ? { ...found, props: withSecretsWrapped(kind, found.props, props ?? {}) } : found;
      },
      update: async (id, olds, news) => {
        const { outs } = await wrappingPartial(kind, news, () => update(kind, id, olds, news));
        return { outs: withSecretsWrapped(kind, outs, news) };
      },
      delete: (id, props) => remove(kind, id, props),
    };
    p = afterLinesSent(p);
    providers.set(kind, p);
  }
  return p;
}
