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

export type ResourceKind = "Template" | "Volume" | "Sandbox" | "TemplateTag";

/**
 * Inputs the provider adds for itself; never user-facing, never diffed, never in the schema.
 * `__resource`: the key auto-names and markers derive from (./resource-key.ts: minted at the first create, kept after);
 * `__generation`: counts replacements; `__auto`: the inputs `check` filled with an auto-name;
 * `__secrets`: the plaintext of every value the program marked secret, so logs can hide exactly those.
 */
export const INTERNAL_INPUTS = ["__provider", "__resource", "__generation", "__auto", "__secrets"] as const;

export interface SpecDeclaration<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  kind: ResourceKind;
  /** Markdown: what the resource is, and what to know before using it. */
  description: string;
  /** User-facing inputs (camelCase, defaults, docs). Strict: an unknown field is an error. */
  inputs: I;
  /** Outputs besides the echoed inputs. Used for the class's output properties and schema.json. */
  outputs: O;
  /** Top-level inputs the update handler applies to the live resource (same ID). */
  inPlace: readonly string[];
  /**
   * Inputs that change no remote state (a client-side deadline, how output is logged): never reported
   * as a change. Top-level names, or dotted paths inside an in-place input (`provision.logging`).
   */
  localOnly: readonly string[];
  /** Dotted paths inside in-place inputs whose change still forces a replacement (`provision.triggers`). */
  replaceWithin?: readonly string[];
  /**
   * Inputs that name the resource uniquely in the service. A replacement that keeps a user-chosen value
   * deletes the old resource first, since the new one could not be made while the old one holds the name.
   */
  uniqueNames?: readonly string[];
  /**
   * Optional inputs the service fills with its own default, reported back in the output of the same
   * name. Leaving one out keeps the current value (no change), as the service would.
   */
  computed?: readonly string[];
  /** Inputs the class wraps in `pulumi.secret`, so state holds them encrypted. */
  secretInputs: readonly string[];
  /** Outputs marked secret (`additionalSecretOutputs`). */
  secretOutputs: readonly string[];
  /**
   * Outputs and derived inputs that carry what other inputs hold, by those inputs: each is secret
   * whenever one of them came in secret (a Template's `buildSteps` quote a Dockerfile built around a
   * token). The engine itself keeps secret only a result named like a secret input.
   */
  secretFrom?: Readonly<Record<string, readonly string[]>>;
  /**
   * Inputs the resource's ID is made of. Pulumi stores IDs in plain text and cannot mark one secret,
   * so `check` refuses these when they come in secret.
   */
  idFrom?: readonly string[];
  /** The credentials every call for this kind needs; `check` fails at preview when one is missing. */
  credentials: readonly Credential[];
  /** Credentials some inputs need besides those (a Template's legacy build system needs the access token). */
  credentialsFor?: (inputs: Record<string, unknown>) => readonly Credential[];
  /**
   * Inputs `check` computes from the others (never given by a program): stored and diffed like in-place
   * inputs, so a change of what they sum up (a file of a build context) shows at preview under their name.
   * Documented among the outputs, which echo them.
   */
  derived?: readonly string[];
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
  renamed?: Readonly<Record<string, string>>;
  /** Rules across fields, run on known values only. Each issue names its field path. */
  crossChecks?: (inputs: Record<string, unknown>) => { path: string; reason: string }[];
}

export interface ResourceSpec<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> extends SpecDeclaration<I, O> {
  /** Derived: every top-level input neither in place nor local, then `replaceWithin`. */
  replaceOnChanges: readonly string[];
}

export function defineSpec<I extends z.ZodObject, O extends z.ZodObject>(decl: SpecDeclaration<I, O>): ResourceSpec<I, O> {
  const kept = new Set([...decl.inPlace, ...decl.localOnly, ...Object.keys(decl.renamed ?? {})]);
  const replaced = Object.keys(decl.inputs.shape).filter((key) => !kept.has(key));
  return { ...decl, replaceOnChanges: [...replaced, ...(decl.replaceWithin ?? [])] };
}

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
