/**
 * The shape of one resource's remote operations, typed from its spec; check and diff are generic
 * (../check.ts, ../diff.ts). A handler receives the inputs `check` produced (the spec's output type
 * plus the provider's own fields) and returns the state: those inputs echoed, then the spec's outputs.
 */
import type { z } from "zod";
import { isSandboxError } from "../../sdk/errors";
import type { ResourceKind } from "../spec";
import type { SPECS } from "../kinds";

/** The provider's own fields (INTERNAL_INPUTS), as `check` sets them. A type, not an interface, so state stays assignable to plain records. */
export type Internals = {
  __provider?: unknown;
  __resource?: string;
  __generation?: number;
  __auto?: string[];
  __secrets?: string[];
  __version?: string;
};

/** A resource's user-facing inputs, as `check` returns them (defaults applied). */
export type SpecInputs<K extends ResourceKind> = z.output<(typeof SPECS)[K]["inputs"]>;
/** A resource's checked inputs. */
export type InputsOf<K extends ResourceKind> = SpecInputs<K> & Internals;
/** A resource's state: its inputs, then every output of its spec. */
export type StateOf<K extends ResourceKind> = InputsOf<K> & z.output<(typeof SPECS)[K]["outputs"]>;

/** What `derive` answers: the inputs with the derived ones added, or why they cannot be derived. */
export interface DeriveOutcome {
  inputs?: Record<string, unknown>;
  failures?: { property: string; reason: string }[];
}

export interface ResourceHandlers<K extends ResourceKind> {
  create(inputs: InputsOf<K>): Promise<{ id: string; outs: StateOf<K> }>;
  /** `{}` (no id) means the resource is gone. */
  read(id: string, olds: StateOf<K>): Promise<{ id?: string; props?: StateOf<K> }>;
  update(id: string, olds: StateOf<K>, news: InputsOf<K>): Promise<{ outs: StateOf<K> }>;
  delete(id: string, olds: StateOf<K>): Promise<void>;
}

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
export function untyped(handlers: { [K in ResourceKind]: ResourceHandlers<K> }[ResourceKind]): UntypedHandlers {
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
