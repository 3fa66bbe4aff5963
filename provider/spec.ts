/**
 * One spec per resource drives everything: `check` (validation and defaults), `diff` (what changed,
 * what forces replacement), the resource class (outputs, secrets) and schema.json (docs, types).
 *
 * A spec declares which inputs the service can change in place and which change nothing remotely;
 * every other input forces a replacement. Replacement is the default on purpose: an input that
 * no handler applies would otherwise be a silent no-op "update".
 */
import type { z } from "zod";
import type { Credential } from "./config-keys";

/**
 * Inputs the provider adds for itself; never user-facing, never diffed, never in the schema.
 * `__resource`: the key auto-names and markers derive from (./resource-key.ts: minted at the first create, kept after);
 * `__generation`: counts replacements; `__auto`: the inputs `check` filled with an auto-name;
 * `__secrets`: the plaintext of every value the program marked secret, so logs can hide exactly those;
 * `__nonce`: random, minted at the resource's first check and kept in state, so that what is derived
 * from it (a create's idempotency key: ./kinds/identity.ts) is never shared by two resources, even two
 * that the same key names (one renamed away with `aliases`, one declared later under the old name).
 */
export const INTERNAL_INPUTS = ["__provider", "__resource", "__generation", "__auto", "__secrets", "__nonce"] as const;

/**
 * What a spec's generic readers (check, diff, the schema) take: any object schema. `any` and not
 * `z.ZodObject`: a spec's name lists are typed by its schemas' keys, and a specific spec is then
 * assignable to the generic one only if that one accepts any keys.
 */
type AnyObject = z.ZodObject<any>;

/** The names of an object schema's top-level fields. */
type FieldOf<S extends z.ZodObject> = Extract<keyof S["shape"], string>;
/** Fields of a field's object value (`provision.logging`); nothing for lists and scalars. */
type SubfieldOf<T> = T extends readonly unknown[] ? never : T extends object ? Extract<keyof T, string> : never;
/** A top-level input, or a dotted path one level inside one. */
type InputPath<I extends z.ZodObject> = { [K in FieldOf<I>]: K | `${K}.${SubfieldOf<NonNullable<z.output<I>[K]>>}` }[FieldOf<I>];

/**
 * A spec's lists name its own fields: a typo or a field removed from the schema is a compile error
 * where the list is written. `NoInfer`: the schemas alone fix what the lists may name.
 */
export interface SpecDeclaration<
  N extends string = string,
  I extends z.ZodObject = AnyObject,
  O extends z.ZodObject = AnyObject,
  D extends z.ZodObject = AnyObject,
> {
  /** The kind's name: its class, its type tokens (`sandbox:index:<kind>`) and its registry key. */
  kind: N;
  /** Markdown: what the resource is, and what to know before using it. */
  description: string;
  /** User-facing inputs (camelCase, defaults, docs). Strict: an unknown field is an error. */
  inputs: I;
  /** Outputs besides the echoed inputs. Used for the class's output properties and schema.json. */
  outputs: O;
  /** Top-level inputs the update handler applies to the live resource (same ID). */
  inPlace: readonly NoInfer<FieldOf<I>>[];
  /**
   * Inputs that change no remote state (a client-side deadline, how output is logged): never reported
   * as a change. Top-level names, or dotted paths inside an in-place input (`provision.logging`).
   */
  localOnly: readonly NoInfer<InputPath<I>>[];
  /** Dotted paths inside in-place inputs whose change still forces a replacement (`provision.triggers`). */
  replaceWithin?: readonly NoInfer<InputPath<I>>[];
  /**
   * Inputs that name the resource uniquely in the service. A replacement that keeps a user-chosen value
   * deletes the old resource first, since the new one could not be made while the old one holds the name.
   */
  uniqueNames?: readonly NoInfer<FieldOf<I>>[];
  /**
   * Optional inputs the service fills with its own default, reported back in the output of the same
   * name. Leaving one out keeps the current value (no change), as the service would.
   */
  computed?: readonly NoInfer<FieldOf<I>>[];
  /** Inputs the class wraps in `pulumi.secret`, so state holds them encrypted. */
  secretInputs: readonly NoInfer<FieldOf<I>>[];
  /** Outputs marked secret (`additionalSecretOutputs`). */
  secretOutputs: readonly NoInfer<FieldOf<I> | FieldOf<O>>[];
  /**
   * Outputs and derived inputs that carry what other inputs hold, by those inputs: each is secret
   * whenever one of them came in secret (a Template's `buildSteps` quote a Dockerfile built around a
   * token). The engine itself keeps secret only a result named like a secret input.
   */
  secretFrom?: { readonly [P in NoInfer<FieldOf<I> | FieldOf<O>>]?: readonly NoInfer<FieldOf<I>>[] };
  /**
   * Values inside inputs and outputs kept secret on their own, as dotted paths where `*` is every key
   * of a map (`members.*.envVars`): for a field that holds what a whole secret input of another kind
   * holds, where wrapping the whole field would hide its keys too (a fleet's members and their IDs).
   * Both front ends wrap them in every answer (../runtime/secrets.ts `wrapSecretsWithin`); the
   * schema's secret flag is whole-property only and does not show them.
   */
  secretWithin?: readonly string[];
  /**
   * Inputs the resource's ID is made of. Pulumi stores IDs in plain text and cannot mark one secret,
   * so `check` refuses these when they come in secret.
   */
  idFrom?: readonly NoInfer<FieldOf<I>>[];
  /** The credentials every call for this kind needs; `check` fails at preview when one is missing. */
  credentials: readonly Credential[];
  /** Credentials some inputs need besides those (a Template's legacy build system needs the access token). */
  credentialsFor?: (inputs: Record<string, unknown>) => readonly Credential[];
  /**
   * Inputs `check` computes from the others (never given by a program): stored and diffed like in-place
   * inputs, so a change of what they sum up (a file of a build context) shows at preview under their name.
   * Documented among the outputs, which echo them.
   */
  derived?: readonly NoInfer<FieldOf<I> | FieldOf<O>>[];
  /**
   * Inputs whose checked value has more than a program gives, as the kind's `derive` makes them (a
   * Volume's `content` with the manifest of its files): their type in the handlers' inputs and in state.
   * Declared here, not computed in zod, so validating a schema reads no file (one way to derive).
   */
  checked?: D;
  /**
   * Inputs filled in by `check` when the user leaves them out (auto-naming), derived from the resource's
   * key and replacement generation, so a re-run of an interrupted `up` computes the same value.
   */
  autoName?: (resourceKey: string, generation: number) => Record<string, unknown>;
  /**
   * Deprecated input names, by the name that replaced them, kept for one release: `check` moves a value
   * given under the old name to the new one (a failure still names the field as it was written), old
   * state is read the same way, and outputs echo the old name too. Neither in the partition below nor diffed.
   */
  renamed?: { readonly [P in NoInfer<FieldOf<I>>]?: NoInfer<FieldOf<I>> };
  /**
   * Outputs that are the resource's own ID. A preview knows the ID of a resource it updates, so both
   * front ends answer these from it (the classes from `this.id`, the plugin's preview of an update from
   * the request's id): a Sandbox whose `templateID` comes from a Template updated in place then plans
   * no replacement, and `up` makes none.
   */
  idOutputs?: readonly NoInfer<FieldOf<O>>[];
  /**
   * Rules across fields, run on known values only; `unknown` names the top-level inputs given but not
   * yet known (a preview), so a rule on whether a field is given can count them. Each issue names its field path.
   */
  crossChecks?: (inputs: Record<string, unknown>, unknown: ReadonlySet<string>) => { path: string; reason: string }[];
}

export interface ResourceSpec<
  N extends string = string,
  I extends z.ZodObject = AnyObject,
  O extends z.ZodObject = AnyObject,
  D extends z.ZodObject = AnyObject,
> extends Omit<SpecDeclaration<N, I, O, D>, "renamed" | "secretFrom"> {
  /** As declared (names checked there), read as plain maps: a key the spec left out is absent, not undefined. */
  renamed?: Readonly<Record<string, string>>;
  secretFrom?: Readonly<Record<string, readonly string[]>>;
  /** Derived: every top-level input neither in place nor local, then `replaceWithin`. */
  replaceOnChanges: readonly string[];
}

export function defineSpec<const N extends string, I extends z.ZodObject, O extends z.ZodObject, D extends z.ZodObject = z.ZodObject<{}>>(
  decl: SpecDeclaration<N, I, O, D>,
): ResourceSpec<N, I, O, D> {
  const kept = new Set([...decl.inPlace, ...decl.localOnly, ...Object.keys(decl.renamed ?? {})]);
  const replaced = Object.keys(decl.inputs.shape).filter((key) => !kept.has(key));
  const { renamed, secretFrom, ...rest } = decl;
  return {
    ...rest,
    ...(renamed ? { renamed: renamed as Readonly<Record<string, string>> } : {}),
    ...(secretFrom ? { secretFrom: secretFrom as Readonly<Record<string, readonly string[]>> } : {}),
    replaceOnChanges: [...replaced, ...(decl.replaceWithin ?? [])],
  };
}

/** A spec's inputs as `check` returns them: defaults applied, and what `checked` declares derived. */
export type CheckedInputs<S extends ResourceSpec> = [keyof CheckedShape<S>] extends [never]
  ? z.output<S["inputs"]>
  : Omit<z.output<S["inputs"]>, keyof CheckedShape<S>> & z.output<NonNullable<S["checked"]>>;
/** The fields `checked` declares; none for a spec without it (its default is an empty object schema). */
type CheckedShape<S extends ResourceSpec> = NonNullable<S["checked"]>["shape"];

/** The sentinel the engine sends for values not known until apply (pulumi/runtime/rpc.js). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** Reads a dotted path (`provision.triggers`) from a plain object. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * `obj` with each deprecated name's value under the name that replaced it. `check` refuses both names
 * at once from a program, and state echoes the same value under both, so where both are set the
 * deprecated one is what a caller last wrote.
 */
export function underCurrentNames(spec: { renamed?: Readonly<Record<string, string>> }, obj: Record<string, unknown>): Record<string, unknown> {
  const renames = Object.entries(spec.renamed ?? {}).filter(([old]) => obj[old] !== undefined);
  if (renames.length === 0) return obj;
  const out = { ...obj };
  for (const [old, current] of renames) {
    out[current] = out[old];
    delete out[old];
  }
  return out;
}

/** A copy of `value` without the given dotted paths (relative to it); `value` itself is not changed. */
export function withoutPaths(value: unknown, paths: readonly string[]): unknown {
  if (paths.length === 0 || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const path of paths) {
    const [head, ...rest] = path.split(".");
    if (head === undefined || !(head in copy)) continue;
    if (rest.length === 0) delete copy[head];
    else copy[head] = withoutPaths(copy[head], [rest.join(".")]);
  }
  return copy;
}

/** Structural equality where key order does not matter and an absent key equals `undefined`. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!sameValue(ao[k], bo[k])) return false;
  return true;
}
