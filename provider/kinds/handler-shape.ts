/**
 * The shape of one kind's remote operations, typed from its spec alone: a kind's folder declares its
 * handlers against its own spec, before any registry exists (./kind.ts). The registry-keyed names
 * (`InputsOf<"Volume">`) are in ../runtime/handlers.ts.
 */
import type { z } from "zod";
import type { CheckedInputs, ResourceSpec } from "../spec";

/** The provider's own fields (INTERNAL_INPUTS), as `check` sets them. A type, not an interface, so state stays assignable to plain records. */
export type Internals = {
  __provider?: unknown;
  __resource?: string;
  __generation?: number;
  __auto?: string[];
  __secrets?: string[];
  __nonce?: string;
  __version?: string;
};

/** A spec's checked inputs: its user-facing inputs as `check` returns them, then the provider's own fields. */
export type InputsFor<S extends ResourceSpec> = CheckedInputs<S> & Internals;
/** A spec's state: its checked inputs, then every output. */
export type StateFor<S extends ResourceSpec> = InputsFor<S> & z.output<S["outputs"]>;

export interface HandlersFor<S extends ResourceSpec> {
  create(inputs: InputsFor<S>): Promise<{ id: string; outs: StateFor<S> }>;
  /** `{}` (no id) means the resource is gone. */
  read(id: string, olds: StateFor<S>): Promise<{ id?: string; props?: StateFor<S> }>;
  update(id: string, olds: StateFor<S>, news: InputsFor<S>): Promise<{ outs: StateFor<S> }>;
  delete(id: string, olds: StateFor<S>): Promise<void>;
}

/** What a kind's `derive` answers: the inputs with the derived ones added, or why they cannot be derived. */
export interface DeriveOutcome {
  inputs?: Record<string, unknown>;
  failures?: { property: string; reason: string }[];
}
