/**
 * Auto-names. Derived from the resource's key (../resource-key.ts: its stack instance and its URN at the
 * first create, so unique among stacks and within its stack) and its replacement generation, never
 * random: a re-run of an interrupted `pulumi up` computes the same name, finds what the killed run made,
 * and adopts it instead of making a second one.
 */
import { resourceNameOf } from "../resource-key";
import { identityDigest } from "./identity";

export function autoName(resourceKey: string, generation: number, maxBase = 40): string {
  const name = resourceNameOf(resourceKey) || "resource";
  const base = name.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, maxBase) || "resource";
  const hash = identityDigest(resourceKey, generation).slice(0, 8);
  return `${base}-${hash}`;
}
