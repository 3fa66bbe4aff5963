/**
 * The old inputs of the Diff request being answered. @pulumi/pulumi's server hands its provider only
 * the old state (outputs) and the new inputs; the engine also sends the inputs it recorded, and an
 * imported template needs them (./adapter.ts, `withKnownInputs`). ./serve.ts sets them per call.
 */
import { AsyncLocalStorage } from "node:async_hooks";

type Obj = Record<string, unknown>;

const store = new AsyncLocalStorage<Obj | undefined>();

export function withOldInputs(values: Obj | undefined, run: () => unknown): void {
  store.run(values, run);
}

export function oldInputs(): Obj | undefined {
  return store.getStore();
}
