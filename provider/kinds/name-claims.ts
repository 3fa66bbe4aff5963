/**
 * Claims on auto-named objects (a Volume's name, a Secret's name, a Template's alias). An auto-name
 * is derived from the resource's key (./naming.ts), and two resources can share a key: one renamed
 * away with `aliases` keeps the key of its first URN, and a new resource declared later under that
 * name derives it again. What tells their objects apart is a mark each kind keeps where the service
 * lets a client write, and where users do not look: the secret's metadata and the template's file
 * cache carry a claim (a finished create made this); a volume, whose files are all the user's, carries
 * a pending mark during its create instead, removed at its end (./volume/claim.ts). An object under
 * the name that no finished create made (a killed run's) is adopted; one a finished create made is
 * some resource's, recorded in some state, and is never taken over: `check` gives the new resource the
 * next free name instead (../runtime/name-choice.ts).
 */
import type { CallOptions } from "../../sdk/transport/http";
import { autoNamed } from "../runtime/outcome";
import type { ResourceSpec } from "../spec";

/** What holds a name: nothing, an object no finished create made (a killed run's), or one this resource or another made. */
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

/**
 * The refusal of a create that finds its name held by another resource's object: `check` chose the
 * name as free, so another run took it since. `what` names the field ("volume name", "alias").
 */
export function heldByAnother(what: string, name: string, kind: string, id: string): Error {
  return new Error(`${what} "${name}" is held by another resource's ${kind} ${id}: run \`pulumi up\` again, and this resource gets the next free name`);
}

/** The warning of a mark that could not be left (or taken away) at a create's end: the object stays adoptable. */
export function markWarning(kind: string, id: string, err: unknown): string {
  return (
    `warning: could not mark ${kind} ${id} as this resource's (${err instanceof Error ? err.message : String(err)}); ` +
    "a new resource later declared under this one's first name could take it for its own"
  );
}
