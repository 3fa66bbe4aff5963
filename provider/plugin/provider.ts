/**
 * The native plugin's front end: `@pulumi/pulumi/provider`'s Provider mapped onto the runtime
 * (../runtime/index.ts), the same code the dynamic provider runs. Each method translates the engine's
 * request (./adapter.ts) and the runtime's answer, and does nothing else.
 */
import type { Provider } from "@pulumi/pulumi/provider";
import * as runtime from "../runtime/index";
import { VERSION } from "../runtime/migrate";
import { fromRuntime, importedInputs, importedState, kindOf, toRuntime, withKnownInputs, type ToRuntime } from "./adapter";
import { invoke } from "./invoke";
import { oldInputs } from "./old-inputs";
import { cancelAll } from "./operation";
import { schemaText } from "./schema-text";
import { keyFor } from "./stack-instance";

type Obj = Record<string, unknown>;

export const plugin: Provider = {
  version: VERSION,

  // schema.json is generated from the specs (`npm run gen`); the plugin serves it as it is.
  getSchema: async () => schemaText(),

  async check(urn, olds, news) {
    const kind = kindOf(urn);
    // The program's own inputs: what comes wrapped is what it marked secret (./adapter.ts).
    const given = toRuntime(news, true);
    // The key of a new resource (../resource-key.ts): the runtime keeps the stored one after the first create.
    const outcome = await runtime.check(kind, toRuntime(olds).values, { ...given.values, __resource: keyFor(urn) });
    return outcome.inputs ? { inputs: fromRuntime(kind, outcome.inputs, given) } : { failures: outcome.failures ?? [] };
  },

  async diff(id, urn, olds, news) {
    const kind = kindOf(urn);
    const given = toRuntime(news).values;
    const recorded = oldInputs();
    return runtime.diff(kind, id, withKnownInputs(kind, toRuntime(olds).values, recorded && toRuntime(recorded).values, given), given);
  },

  async create(urn, inputs) {
    const kind = kindOf(urn);
    const given = toRuntime(inputs);
    const { id, outs } = await partial(kind, given, () => runtime.create(kind, given.values));
    return { id, outs: fromRuntime(kind, outs, given) };
  },

  async read(id, urn, props) {
    const kind = kindOf(urn);
    const stored = toRuntime(props);
    const found = await runtime.read(kind, id, stored.values);
    if (!found.id || !found.props) return { id: "", props: {} }; // gone
    // No stored state: an import (or a get). The engine needs the inputs that would make this resource.
    if (Object.keys(stored.values).length > 0) return { id: found.id, props: fromRuntime(kind, found.props, stored) };
    const state = importedState(kind, found.props);
    return { id: found.id, props: fromRuntime(kind, state, stored), inputs: importedInputs(kind, state) };
  },

  async update(id, urn, olds, news) {
    const kind = kindOf(urn);
    const given = toRuntime(news);
    const recorded = oldInputs();
    const known = withKnownInputs(kind, toRuntime(olds).values, recorded && toRuntime(recorded).values, given.values);
    const { outs } = await partial(kind, given, () => runtime.update(kind, id, known, given.values));
    return { outs: fromRuntime(kind, outs, given) };
  },

  async delete(id, urn, props) {
    await runtime.remove(kindOf(urn), id, toRuntime(props).values);
  },

  // Lookups (`sandbox:index:getTemplate`, ...): ./invoke.ts.
  invoke,

  // The engine's Cancel (first Ctrl-C): waits in flight stop, and what exists is recorded (./operation.ts).
  async cancel() {
    cancelAll();
  },
};

/**
 * A create or update that failed after the resource exists throws an error carrying `id` and
 * `properties` (../runtime/partial.ts); the server sends those to the engine as they are, so their
 * secrets are wrapped here like any other result's.
 */
async function partial<T>(kind: Parameters<typeof fromRuntime>[0], request: ToRuntime, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const e = err as { id?: string; properties?: Obj };
    if (e && typeof e.id === "string" && e.properties) e.properties = fromRuntime(kind, withoutProvider(e.properties), request);
    throw err;
  }
}

function withoutProvider({ __provider: _none, ...rest }: Obj): Obj {
  return rest;
}
