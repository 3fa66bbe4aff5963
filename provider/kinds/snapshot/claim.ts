/**
 * A Snapshot's claim. An auto-named snapshot's name derives from the resource's key and generation
 * (./auto-name.ts), and two resources share a key: one renamed away with `aliases` (or moved with
 * `pulumi state move`) keeps the key of its first name, and a new resource declared under that name
 * derives it again. Its create found the renamed one's snapshot by that name and took it for a killed
 * run's, so both recorded one snapshot, and deleting either deleted it for the other.
 *
 * So a create that finished claims its snapshot, and one found under the name is adopted only when no
 * claim names it; a claimed one is passed over for the next name (`<name>-2`...). A snapshot can hold
 * no mark of its own: the service keeps no metadata on it, and its template is known by name only. The
 * claim goes where the two resources meet, the sandbox it was taken of (the name digests the sandbox's
 * ID, so a snapshot found under it is of the same sandbox): a directory under SNAPSHOT_CLAIMS, as a
 * Sandbox's own claims are kept (../sandbox/claim.ts). Only a running sandbox is asked or marked: a
 * paused one would be resumed by the call, and its standing is unknown, taken as claimed.
 */
import type { FilesystemClient } from "../../../sdk/in-sandbox/filesystem";
import { isNotFound } from "../../runtime/handlers";
import { clientOptions, platform } from "../../runtime/context";
import { logsSent } from "../../runtime/engine-log";
import { engineGone } from "../../runtime/operation";
import { identityDigest } from "../identity";

/** Where a sandbox holds the claims of the snapshots taken of it; under /tmp, as its own claims. */
export const SNAPSHOT_CLAIMS = "/tmp/.pulumi-sandbox-snapshot-claims";

/** The claim's directory: a plain digest of the snapshot's ID (../identity.ts), which reads the same under every API key of the team. */
const claimOf = (snapshotID: string): string => `${SNAPSHOT_CLAIMS}/${identityDigest("snapshot-claim", snapshotID).slice(0, 32)}`;

/** Runs `use` on the filesystem of `sandboxID` when it runs; undefined when it is paused or gone. */
async function inRunning<T>(sandboxID: string, use: (fs: FilesystemClient) => Promise<T>): Promise<T | undefined> {
  let detail;
  try {
    detail = await platform().sandboxes.get(sandboxID);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  if (detail.state !== "running") return undefined;
  const [{ FilesystemClient }, { SandboxRpc }] = await Promise.all([import("../../../sdk/in-sandbox/filesystem.js"), import("../../../sdk/transport/rpc.js")]);
  const rpc = new SandboxRpc({ sandboxID, envdAccessToken: detail.envdAccessToken ?? null, options: clientOptions() });
  try {
    return await use(new FilesystemClient(rpc));
  } finally {
    void rpc.close().catch(() => undefined);
  }
}

/** Whether a killed run took `snapshotID` of `sandboxID` (no finished create claimed it); false when that cannot be told. */
export async function unclaimed(sandboxID: string, snapshotID: string): Promise<boolean> {
  return (await inRunning(sandboxID, async (fs) => !(await fs.exists(claimOf(snapshotID))))) === true;
}

/**
 * Claims `snapshotID` in the sandbox it was taken of, at the end of its create. The line goes to the
 * engine first and its answer is awaited, so an engine killed as the snapshot was taken is noticed
 * (its connection closed) and nothing is claimed: the re-run must adopt it. A claim that cannot be
 * written is said, and costs only the protection above.
 */
export async function claimSnapshot(sandboxID: string, snapshotID: string, log: (line: string) => void): Promise<void> {
  log(`took snapshot ${snapshotID} of sandbox ${sandboxID}`);
  await logsSent();
  if (engineGone()) return;
  try {
    const made = await inRunning(sandboxID, (fs) => fs.makeDir(claimOf(snapshotID)));
    if (made === undefined) log(`warning: sandbox ${sandboxID} no longer runs, so snapshot ${snapshotID} is not marked as this resource's: a new resource later declared under this one's first name could take it for its own`);
  } catch (err) {
    log(`warning: could not mark snapshot ${snapshotID} as this resource's (${err instanceof Error ? err.message : String(err)}): a new resource later declared under this one's first name could take it for its own`);
  }
}
