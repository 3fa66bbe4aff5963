/**
 * Claims: what tells a sandbox some resource's state records from one that a killed run left.
 *
 * A sandbox is found again by its marker (./adoption.ts), which names the resource's key and generation.
 * Two resources can carry one key: a resource renamed away with `aliases` (or moved to another stack
 * with `pulumi state move`) keeps the key of its old URN, and a resource declared later under that old
 * name derives the same. A fork copies its parent's metadata, marker included. So a sandbox found by the
 * marker is this resource's only if no finished create made it: a killed run's create never finished.
 *
 * The service keeps a sandbox's metadata as it was at its create, so the mark of a finished create goes
 * inside the sandbox: one directory per claiming resource's nonce (../identity.ts) under CLAIMS, made at
 * the end of every create. A fork copies its parent's claims with its files, and is never unclaimed.
 * A paused sandbox's files cannot be read without resuming it, which only its owner may do: its standing
 * is unknown, and unknown is treated as claimed (left alone, never adopted).
 */
import { platform } from "../../runtime/context";
import { isNotFound } from "../../runtime/handlers";
import { inSandbox } from "./in-sandbox";

/** Where a sandbox holds its claims; under /tmp, world-writable, as the provisioning records are (../../runtime/resume.ts). */
export const CLAIMS = "/tmp/.pulumi-sandbox-claims";

/** Whether a finished create made the sandbox: `claimed`, `unclaimed` (a killed run's), or `unknown` (paused). */
export type Standing = "claimed" | "unclaimed" | "unknown";

/** Marks the sandbox as made by a finished create of the resource with this nonce. */
export async function claim(sandboxID: string, envdAccessToken: string | null | undefined, nonce: string): Promise<void> {
  await inSandbox(sandboxID, (fs) => fs.makeDir(`${CLAIMS}/${nonce}`), envdAccessToken ?? null);
}

/** The standing of a running or paused sandbox (one that ended since it was listed: `unclaimed`, it holds nothing). */
export async function standingOf(sandboxID: string): Promise<Standing> {
  let detail;
  try {
    detail = await platform().sandboxes.get(sandboxID);
  } catch (err) {
    if (isNotFound(err)) return "unclaimed";
    throw err;
  }
  if (detail.state !== "running") return "unknown";
  return inSandbox(sandboxID, async (fs) => {
    try {
      return (await fs.listDir(CLAIMS)).length > 0 ? "claimed" : "unclaimed";
    } catch (err) {
      if ((err as { code?: unknown }).code === "not_found") return "unclaimed";
      throw err;
    }
  }, detail.envdAccessToken ?? null);
}
