/**
 * The shape of one resource's remote operations, typed from its spec; check and diff are generic
 * (../check.ts, ../diff.ts). A handler receives the inputs `check` produced (the spec's output type
 * plus the provider's own fields) and returns the state: those inputs echoed, then the spec's outputs.
 */
import { isSandboxError } from "../../sdk/errors";
import type { HandlersFor, InputsFor, StateFor } from "../kinds/handler-shape";
import type { ResourceKind, SPECS } from "../kinds/specs";
import type { CheckedInputs } from "../spec";

export type { DeriveOutcome, Internals } from "../kinds/handler-shape";

/** A resource's user-facing inputs, as `check` returns them (defaults applied, derived ones added). */
export type SpecInputs<K extends ResourceKind> = CheckedInputs<(typeof SPECS)[K]>;
/** A resource's checked inputs. */
export type InputsOf<K extends ResourceKind> = InputsFor<(typeof SPECS)[K]>;
/** A resource's state: its inputs, then every output of its spec. */
export type StateOf<K extends ResourceKind> = StateFor<(typeof SPECS)[K]>;
export type ResourceHandlers<K extends ResourceKind> = HandlersFor<(typeof SPECS)[K]>;

/** The untyped values the engine hands over and takes back. */
export type Inputs = Record<string, unknown>;
export type Outputs = Record<string, unknown>;

export interface UntypedHandlers {
  create(inputs: Inputs): Promise<{ id: string; outs: Outputs }>;
  read(id: string, olds: Outputs): Promise<{ id?: string; props?: Outputs }>;
  update(id: string, olds: Outputs, news: Inputs): Promise<{ outs: Outputs }>;
  delete(id: string, olds: Outputs): Promise<void>;
}

/**
 * The one place the engine's plain values meet the handlers' types: `check` has validated the inputs
 * against the spec, and the state was written by a handler (and brought up to date by ./migrate.ts).
 */
export function untyped(handlers: unknown): UntypedHandlers {
  return handlers as unknown as UntypedHandlers;
}

export function isNotFound(err: unknown): boolean {
  return isSandboxError(err) && err.code === "not_found";
}

/** Treats a 404 as done: the thing to delete is already gone. */
export async function ignoreNotFound(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
