/**
 * Claims on auto-named objects (a Volume's name, a Secret's name, a Template's alias). An auto-name
 * is derived from the resource's key (./naming.ts), and two resources can share a key: one renamed
 * away with `aliases` keeps the key of its first URN, and a new resource declared later under that
 * name derives it again. What tells their objects apart is a claim the object carries once a create
 * of it finished (each kind says where: a file in the volume, the secret's metadata, a mark in the
 * template's file cache). An object under the name with no claim was left by a killed run of this
 * resource and is adopted; a claimed one is some resource's, recorded in some state, and is never
 * taken over: `check` gives the new resource the next free name instead (../runtime/name-choice.ts).
 */
import type { CallOptions } from "../../sdk/transport/http";
import { autoNamed } from "../runtime/outcome";
import type { ResourceSpec } from "../spec";

/** What holds a name: nothing, an object no finished create claimed, or one claimed by this resource or another. */
export type Holder = "free" | "unclaimed" | "ours" | "claimed";

export interface NameClaims {
  /** The auto-named input (`name`, `alias`). */
  field: string;
  /** Who holds `name`, for the resource whose nonce is `nonce`. @throws SandboxError when the service cannot be asked. */
  holder(name: string, nonce: string, call?: CallOptions): Promise<Holder>;
}

/** The metadata key of a claim, where the object has metadata (a Secret). */
export const CLAIM_KEY = "pulumi-sandbox.claim";

/** How many names are tried: the auto-name, then `<auto-name>-2` up to `-<MAX_CANDIDATES>`. */
export const MAX_CANDIDATES = 9;

/** The names tried in order: the same list on every run, so a killed run's re-run finds what it made. */
export function nameCandidates(first: string): string[] {
  return [first, ...Array.from({ length: MAX_CANDIDATES - 1 }, (_, i) => `${first}-${i + 2}`)];
}

/**
 * The resource's auto-named field and the first candidate for it (the auto-name of its key and
 * generation), when `check` filled that field with an auto-name; undefined for a name the user chose.
 */
export function firstAutoName(spec: ResourceSpec, inputs: Record<string, unknown>): { field: string; first: string } | undefined {
  const key = typeof inputs.__resource === "string" ? inputs.__resource : "";
  const auto = spec.autoName?.(key, typeof inputs.__generation === "number" ? inputs.__generation : 0) ?? {};
  const [field] = Object.keys(auto);
  const first = field === undefined ? undefined : auto[field];
  return field !== undefined && typeof first === "string" && autoNamed(inputs, field) ? { field, first } : undefined;
}

/**
 * The line a create logs when `check` passed over names another resource's object holds: so the user
 * learns why the name has a suffix, and what to do with an object a killed run claimed and never recorded.
 */
export function passedOverNote(spec: ResourceSpec, inputs: Record<string, unknown>, what: string): string | undefined {
  const auto = firstAutoName(spec, inputs);
  const chosen = auto && inputs[auto.field];
  if (!auto || typeof chosen !== "string") return undefined;
  const candidates = nameCandidates(auto.first);
  const skipped = candidates.slice(0, Math.max(0, candidates.indexOf(chosen)));
  if (skipped.length === 0) return undefined;
  const kind = spec.kind.toLowerCase();
  return (
    `warning: ${what} ${skipped.map((n) => `"${n}"`).join(", ")} ${skipped.length > 1 ? "are" : "is"} held by another resource's ${kind} ` +
    `(made under this resource's first name, e.g. before a rename with aliases), so this one is "${chosen}". ` +
    "If no stack of yours records it, a run killed right after creating it left it behind: delete it."
  );
}
