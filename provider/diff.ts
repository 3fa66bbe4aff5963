/**
 * Generic `diff`: compares the stored outputs (which echo the inputs they were made from) with the
 * new checked inputs. A changed replace-input is a replacement; any other change is an in-place
 * update; local-only inputs (client-side deadlines, logging) and the provider's own inputs are never
 * a change, so a second `pulumi up` with the same program reaches the service with nothing.
 */
import { containsUnknown, getPath, INTERNAL_INPUTS, sameValue, underCurrentNames, withoutPaths, type ResourceSpec } from "./spec";

/** How one property path changed, as the engine's detailed diff names it. */
export type PropertyChange = "add" | "delete" | "update";

export interface DiffOutcome {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** The top-level inputs that changed (the engine's `diffs`), when a kind's diff says (../kinds/kind.ts `diff`). */
  diffs?: string[];
  /**
   * Each changed path inside the inputs (`members["ada"].envVars`), when a kind's diff says: the engine
   * shows these (`preview --diff`, `detailedDiff` of `--json`) instead of its own diff of the inputs.
   */
  detailedDiff?: Record<string, PropertyChange>;
}

type Obj = Record<string, unknown>;

/** `provision.logging` → `logging` under `provision`: the local-only paths inside one input. */
function localWithin(spec: ResourceSpec, key: string): string[] {
  return spec.localOnly.filter((p) => p.startsWith(`${key}.`)).map((p) => p.slice(key.length + 1));
}

/**
 * The input fields that differ, by top-level name; an unknown new value (preview) counts as changed.
 * Deprecated names are compared as the names that replaced them.
 */
export function changedFields(spec: ResourceSpec, olds: Obj, news: Obj): string[] {
  return changedUnderCurrentNames(spec, underCurrentNames(spec, olds), underCurrentNames(spec, news));
}

function changedUnderCurrentNames(spec: ResourceSpec, olds: Obj, news: Obj): string[] {
  const skip = new Set<string>([...INTERNAL_INPUTS, ...spec.localOnly, ...Object.keys(spec.renamed ?? {})]);
  const computed = new Set(spec.computed ?? []);
  return [...Object.keys(spec.inputs.shape), ...(spec.derived ?? [])].filter((key) => {
    if (skip.has(key) || (computed.has(key) && news[key] === undefined)) return false;
    const local = localWithin(spec, key);
    return containsUnknown(news[key]) || !sameValue(withoutPaths(olds[key], local), withoutPaths(news[key], local));
  });
}

export function diffInputs(spec: ResourceSpec, oldsGiven: Obj, newsGiven: Obj): DiffOutcome {
  const olds = underCurrentNames(spec, oldsGiven);
  const news = underCurrentNames(spec, newsGiven);
  const changed = new Set(changedUnderCurrentNames(spec, olds, news));
  const replaces = spec.replaceOnChanges.filter((path) => {
    const top = path.split(".")[0] ?? path;
    if (!changed.has(top)) return false;
    const value = getPath(news, path);
    return containsUnknown(value) || !sameValue(getPath(olds, path), value);
  });
  return { changes: changed.size > 0, replaces, deleteBeforeReplace: replaces.length > 0 && keepsChosenName(spec, olds, news) };
}

/** Whether a user-chosen unique name stays the same (an auto-name is minted anew for a replacement). */
function keepsChosenName(spec: ResourceSpec, olds: Obj, news: Obj): boolean {
  const auto = new Set(Array.isArray(news.__auto) ? (news.__auto as string[]) : []);
  return (spec.uniqueNames ?? []).some((key) => news[key] !== undefined && !auto.has(key) && sameValue(olds[key], news[key]));
}
