/**
 * Everything the runtime and the front ends need of one kind besides its spec, declared in the
 * kind's folder (`<kind>/index.ts`) and listed once in ./index.ts. What is declared here is read
 * generically: no file outside the kind's folder names the kind.
 */
import type { CheckOutcome } from "../check";
import type { DiffOutcome } from "../diff";
import type { ResourceSpec } from "../spec";
import type { DeriveOutcome, HandlersFor } from "./handler-shape";
import type { NameClaims } from "./name-claims";

type Obj = Record<string, unknown>;
/** The names of a spec's inputs: the lists below name its own fields. */
type InputName<S extends ResourceSpec> = Extract<keyof S["inputs"]["shape"], string>;

/** A change of a stored shape, applied to state written by versions before `before` (../runtime/migrate.ts). */
export interface Migration {
  /** Applies to state written by versions before this one (or by one that recorded no version). */
  before: string;
  why: string;
  up(state: Obj): Obj;
}

export interface KindDefinition<S extends ResourceSpec = ResourceSpec> {
  spec: S;
  /** The handlers, imported at their first call: a preview never loads the clients. */
  handlers: () => Promise<HandlersFor<S>>;
  /**
   * Adds the spec's derived inputs to checked inputs (unknown ones at preview stay unknown), before
   * any call: local work, at every preview, kept out of the handlers so `check` loads no client.
   */
  derive?: (inputs: Obj) => DeriveOutcome;
  /**
   * Replaces the generic `check` (../check.ts `checkInputs` with the spec), for a kind whose inputs
   * hold other resources' inputs that are checked by those resources' own rules (a fleet's members).
   * `olds`: the stored state, brought up to date; `news`: the program's inputs. Local work, as `derive`.
   */
  check?: (olds: Obj, news: Obj) => CheckOutcome;
  /**
   * Replaces the generic `diff` (../diff.ts `diffInputs`), for a kind whose changes are per part (a
   * fleet's members): it may name each changed path (`detailedDiff`). `olds`: the stored state, brought
   * up to date; `news`: the checked inputs. Local work: a preview makes no call.
   */
  diff?: (olds: Obj, news: Obj) => DiffOutcome;
  /**
   * For a kind with an auto-named unique name: who holds a name (./name-claims.ts), so that `check`
   * gives a new resource a name no other resource's object holds. Loaded at first need (it calls the service).
   */
  claims?: () => Promise<NameClaims>;
  /** State migrations, oldest first. */
  migrations?: readonly Migration[];
  /** How a resource of this kind comes to be gone without Pulumi (../runtime/gone.ts); default: deleted by another client. */
  howGone?: string;
  /** Import (the plugin's Read with no state): the service's answer corrected where it is not what a program writes. */
  importCorrections?: (props: Obj) => Obj;
  /** Inputs an import leaves out: the service reports them, but a resource made outside Pulumi never asked for them. */
  notImported?: readonly InputName<S>[];
  /**
   * Inputs the service cannot give back (a Template's Dockerfile), so an imported resource's state has
   * none until an update; the plugin's diff then takes the one the engine recorded, else the program's.
   */
  notReadBack?: readonly InputName<S>[];
}

/** A kind's definition, its handlers checked against its own spec. */
export function defineKind<S extends ResourceSpec>(definition: KindDefinition<S>): KindDefinition<S> {
  return definition;
}
