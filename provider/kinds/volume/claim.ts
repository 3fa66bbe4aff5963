/**
 * A Volume's mark (../name-claims.ts), inverted so that a finished create leaves nothing of ours in the
 * volume: a small file at its root, `/.pulumi-sandbox-pending`, holding the creating resource's nonce,
 * written right after the volume exists and removed as the create's last step (seeding included).
 * Volumes have nothing else a client can write (no metadata, no rename), and a directory a user mounts
 * must be empty (`initdb`, `git clone .`): so the mark says "a create of it is under way, or was
 * killed", and its absence "a finished create made it" (or something outside the provider did).
 *
 * | the volume holds                            | holder      |
 * |---------------------------------------------|-------------|
 * | the pending file with this resource's nonce | ours        |
 * | the pending file with another nonce         | unclaimed: a killed run's, adopted (and marked anew) |
 * | no pending file                             | claimed: never taken |
 *
 * 0.3 wrote `/.pulumi-sandbox-claim` (the nonce) at a finished create's end: such a volume has no pending
 * file, so it counts as claimed. Only the resource whose nonce it holds could count it as its own, and
 * that resource has state, so it never asks (`check` asks for a resource with none, with a nonce just
 * minted): the file is not read there, and each check still costs one download. The update of that
 * resource removes it ({@link dropLegacyClaim}).
 */
import type { VolumeAndToken } from "../../../sdk/schemas/volumes";
import type { CallOptions } from "../../../sdk/transport/http";
import type { VolumeContent } from "../../../sdk/volume-content/client";
import { platform } from "../../runtime/context";
import { isNotFound } from "../../runtime/handlers";
import type { Logger } from "../../runtime/log";
import { engineGone } from "../../runtime/operation";
import { markWarning, type Holder, type NameClaims } from "../name-claims";

export const PENDING_FILE = "/.pulumi-sandbox-pending";
/** What 0.3 left at the root of every volume it made. */
export const LEGACY_CLAIM_FILE = "/.pulumi-sandbox-claim";

/** The team's volume named `name`, with a content token, if there is one. */
export async function volumeNamed(name: string, call?: CallOptions): Promise<VolumeAndToken | undefined> {
  const { volumes } = platform();
  const listed = (await volumes.list(call)).find((v) => v.name === name);
  return listed ? volumes.get(listed.volumeID, call) : undefined;
}

/** Runs `fn` with a content client of the volume, closed after. */
async function withContent<T>(volume: VolumeAndToken, fn: (client: VolumeContent) => Promise<T>): Promise<T> {
  const client = platform().volumes.content(volume);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** The nonce in the file at `path`, undefined when there is none. */
async function nonceIn(client: VolumeContent, path: string, call?: CallOptions): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await client.download(path, call)).trim();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Who holds a volume, for the resource whose nonce is `nonce` (the table above). */
export async function holderOfVolume(volume: VolumeAndToken, nonce: string, call?: CallOptions): Promise<Holder> {
  const pending = await withContent(volume, (client) => nonceIn(client, PENDING_FILE, call));
  if (pending === undefined) return "claimed";
  return nonce !== "" && pending === nonce ? "ours" : "unclaimed";
}

export const volumeClaims: NameClaims = {
  field: "name",
  async holder(name, nonce, call) {
    const volume = await volumeNamed(name, call);
    return volume ? holderOfVolume(volume, nonce, call) : "free";
  },
};

/**
 * Marks the volume as under this resource's create, before anything is seeded: killed from here on,
 * the re-run finds the mark and adopts the volume. Not written, such a re-run passes it over, so the
 * failure is said on the row, naming the volume, and the create goes on.
 */
export async function markPending(volume: VolumeAndToken, nonce: string | undefined, log: Logger): Promise<void> {
  if (!nonce) return;
  try {
    await withContent(volume, (client) => client.upload(PENDING_FILE, new TextEncoder().encode(`${nonce}\n`), { force: true }));
  } catch (err) {
    log(`warning: could not mark volume ${volume.volumeID} as being made by this resource (${err instanceof Error ? err.message : String(err)}); if this run is killed before it ends, the next one passes the volume over: delete it then`);
  }
}

/**
 * The create's last step, once the engine is about to record the volume (made, or seeded part way):
 * the volume is left as the user's, with none of our files. Not when the engine went away during the
 * create (a killed `up` whose provider lives on): nothing records it, and the re-run must adopt it.
 * Not removed, the volume stays adoptable by a new resource under this one's first name: said on the row.
 */
export async function clearPending(volume: VolumeAndToken, nonce: string | undefined, log: Logger): Promise<void> {
  if (!nonce || engineGone()) return;
  try {
    await withContent(volume, (client) => removeIfThere(client, PENDING_FILE));
  } catch (err) {
    log(markWarning("volume", volume.volumeID, err));
  }
}

async function removeIfThere(client: VolumeContent, path: string): Promise<void> {
  try {
    await client.remove(path);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Removes 0.3's claim file from a volume this resource made (it holds the resource's nonce), at the
 * resource's update: the one call a user makes to change the volume. Not at refresh, whose `read`
 * also serves `pulumi preview --refresh`, which must change nothing. A failure is said, not thrown.
 */
export async function dropLegacyClaim(volume: VolumeAndToken, nonce: string | undefined, log: Logger): Promise<void> {
  if (!nonce) return;
  try {
    await withContent(volume, async (client) => {
      if ((await nonceIn(client, LEGACY_CLAIM_FILE)) === nonce) await removeIfThere(client, LEGACY_CLAIM_FILE);
    });
  } catch (err) {
    log(`warning: could not remove ${LEGACY_CLAIM_FILE}, which an earlier version of the provider wrote, from volume ${volume.volumeID} (${err instanceof Error ? err.message : String(err)}); delete it yourself, or the next update tries again`);
  }
}
