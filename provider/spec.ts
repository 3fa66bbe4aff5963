/**
 * One spec per resource drives everything: `check` (validation and defaults), `diff` (what changed,
 * what forces replacement), the resource class (outputs, secrets) and schema.json (docs, types).
 */
import type { z } from "zod";

export type ResourceKind = "Template" | "Volume" | "Sandbox";

/** Inputs the provider adds for itself; never user-facing, never diffed, never in the schema. */
export const INTERNAL_INPUTS = ["__provider", "__resource", "__generation", "__auto"] as const;

export interface ResourceSpec<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  kind: ResourceKind;
  /** Markdown: what the resource is, and what to know before using it. */
  description: string;
  /** User-facing inputs (camelCase, defaults, docs). Strict: an unknown field is an error. */
  inputs: I;
  /** Outputs besides the echoed inputs. Used for the class's output properties and schema.json. */
  outputs: O;
  /** Input paths (dotted) whose change forces a replacement, because the service cannot update them. */
  replaceOnChanges: readonly string[];
  /**
   * Optional inputs the service fills with its own default, reported back in the output of the same
   * name. Leaving one out keeps the current value (no change), as the service would.
   */
  computed?: readonly string[];
  /** Inputs that change no remote state (e.g. a client-side deadline): never reported as a change. */
  localOnly: readonly string[];
  /** Inputs the class wraps in `pulumi.secret`, so state holds them encrypted. */
  secretInputs: readonly string[];
  /** Outputs marked secret (`additionalSecretOutputs`). */
  secretOutputs: readonly string[];
  /**
   * Inputs filled in by `check` when the user leaves them out (auto-naming), derived from the resource's
   * name so a re-run of an interrupted `up` computes the same value.
   */
  autoName?: (resourceKey: string, generation: number) => Record<string, unknown>;
  /** Rules across fields, run on known values only. Each issue names its field path. */
  crossChecks?: (inputs: Record<string, unknown>) => { path: string; reason: string }[];
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
