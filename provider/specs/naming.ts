/**
 * Auto-names. Derived from the resource's key (`project/stack/name`) and its replacement generation,
 * never random: a re-run of an interrupted `pulumi up` computes the same name, finds what the killed
 * run made, and adopts it instead of making a second one.
 */
import { createHash } from "node:crypto";

export function autoName(resourceKey: string, generation: number, maxBase = 40): string {
  const name = resourceKey.split("/").pop() || "resource";
  const base = name.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, maxBase) || "resource";
  const hash = createHash("sha256").update(`${resourceKey}#${generation}`).digest("hex").slice(0, 8);
  return `${base}-${hash}`;
}
