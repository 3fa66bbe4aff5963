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
import { AsyncLocalStorage } from "node:async_hooks";
import { platform } from "../../runtime/context";
import { engineGone } from "../../runtime/operation";
import { isNotFound } from "../../runtime/handlers";
import { inSandbox } from "./in-sandbox";

/** Where a sandbox holds its claims; under /tmp, world-writable, as the provisioning records are (../../runtime/resume.ts). */
export const CLAIMS = "/tmp/.pulumi-sandbox-claims";

/** Whether a finished create made the sandbox: `claimed`, `unclaimed` (a killed run's), or `unknown` (paused). */
export type Standing = "claimed" | "unclaimed" | "unknown";

/** A claim a create holds back (`holdingClaims`). */
export interface HeldClaim {
  sandboxID: string;
  envdAccessToken: string | null | undefined;
  nonce: string;
  /**
   * The pause the create asked for, made once the claim is: a claim goes to the sandbox's envd, and a
   * request there resumes a paused sandbox (with autoResume) or fails, so a paused one stays unclaimed
   * and running while state says paused.
   */
  pause?: () => Promise<void>;
}

const holding = new AsyncLocalStorage<HeldClaim[]>();

/**
 * Marks the sandbox as made by a finished create of the resource with this nonce (inside
 * `holdingClaims`: noted for later). Not when the engine went away during the create (a killed `up`
 * whose provider lives on): its result is never recorded, and the re-run must adopt the sandbox.
 */
export async function claim(sandboxID: string, envdAccessToken: string | null | undefined, nonce: string): Promise<void> {
  const later = holding.getStore();
  if (later) later.push({ sandboxID, envdAccessToken, nonce });
  else if (!engineGone()) await inSandbox(sandboxID, (fs) => fs.makeDir(`${CLAIMS}/${nonce}`), envdAccessToken ?? null);
}

/**
 * Runs `fn` with the claims of its creates held back in `held`, for the caller to make (`claim` each)
 * once the create they are part of has finished: a fleet's members are made long before the fleet's
 * create ends, and the re-run of a killed one (checked anew, with another nonce) must find them
 * unclaimed, so it adopts them.
 */
export function holdingClaims<T>(held: HeldClaim[], fn: () => T): T {
  return holding.run(held, fn);
}

/**
 * Holds back the pause of sandbox `sandboxID` until its held claim is made (`claimHeld`): true when
 * its claim is held, false when the caller is to pause it now (its claim is made already, or none is).
 */
export function pauseAfterClaim(sandboxID: string, pause: () => Promise<void>): boolean {
  const held = holding.getStore()?.find((c) => c.sandboxID === sandboxID);
  if (!held) return false;
  held.pause = pause;
  return true;
}

/** Makes a held claim now (its sandbox still runs: a held create pauses nothing), leaving its pause to the caller. */
export async function claimHeld({ sandboxID, envdAccessToken, nonce }: HeldClaim): Promise<void> {
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
