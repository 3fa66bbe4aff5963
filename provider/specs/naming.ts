/**
 * Auto-names. Derived from the resource's key (its URN at the first create: stack, project, parent
 * types, type and name, so unique in the stack) and its replacement generation, never random: a re-run
 * of an interrupted `pulumi up` computes the same name, finds what the killed run made, and adopts it
 * instead of making a second one. Keys written by versions before 0.2 are `project/stack/name`.
 */
import { createHash } from "node:crypto";

/** The resource's own name in its key: after the URN's last `::`, or the last `/` of an old key. */
export function resourceNameOf(resourceKey: string): string {
  const urnName = resourceKey.lastIndexOf("::");
  return urnName >= 0 ? resourceKey.slice(urnName + 2) : (resourceKey.split("/").pop() ?? "");
}

export function autoName(resourceKey: string, generation: number, maxBase = 40): string {
  const name = resourceNameOf(resourceKey) || "resource";
  const base = name.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, maxBase) || "resource";
  const hash = createHash("sha256").update(`${resourceKey}#${generation}`).digest("hex").slice(0, 8);
  return `${base}-${hash}`;
}
