/**
 * A Volume's claim (../name-claims.ts): a small file at the volume's root, written through the content
 * API once a create has finished (seeding included), holding the nonce of the resource that made it.
 * Volumes have nothing else a client can write (no metadata, no rename), and sandboxes that mount the
 * volume see the file; it is named so that nobody mistakes it for their own.
 */
import type { VolumeAndToken } from "../../../sdk/schemas/volumes";
import type { CallOptions } from "../../../sdk/transport/http";
import { platform } from "../../runtime/context";
import { isNotFound } from "../../runtime/handlers";
import type { Logger } from "../../runtime/log";
import { engineGone } from "../../runtime/operation";
import type { Holder, NameClaims } from "../name-claims";

export const CLAIM_FILE = "/.pulumi-sandbox-claim";

/** The team's volume named `name`, with a content token, if there is one. */
export async function volumeNamed(name: string, call?: CallOptions): Promise<VolumeAndToken | undefined> {
  const { volumes } = platform();
  const listed = (await volumes.list(call)).find((v) => v.name === name);
  return listed ? volumes.get(listed.volumeID, call) : undefined;
}

/** Who holds a volume: the nonce in its claim file, or no claim. */
export async function holderOfVolume(volume: VolumeAndToken, nonce: string, call?: CallOptions): Promise<Holder> {
  const client = platform().volumes.content(volume);
  try {
    const claimant = new TextDecoder().decode(await client.download(CLAIM_FILE, call)).trim();
    return nonce !== "" && claimant === nonce ? "ours" : "claimed";
  } catch (err) {
    if (isNotFound(err)) return "unclaimed";
    throw err;
  } finally {
    await client.close();
  }
}

export const volumeClaims: NameClaims = {
  field: "name",
  async holder(name, nonce, call) {
    const volume = await volumeNamed(name, call);
    return volume ? holderOfVolume(volume, nonce, call) : "free";
  },
};

/**
 * Claims the volume for the resource whose nonce is `nonce`. Not written, the volume stays adoptable by
 * a later resource under the same first name, so a failure is said on the resource's row, not thrown:
 * the volume itself is made and recorded. Not when the engine went away during the create (a killed
 * `up` whose provider lives on): nothing records it, and the re-run must adopt it.
 */
export async function claimVolume(volume: VolumeAndToken, nonce: string | undefined, log: Logger): Promise<void> {
  if (!nonce || engineGone()) return;
  const client = platform().volumes.content(volume);
  try {
    await client.upload(CLAIM_FILE, new TextEncoder().encode(`${nonce}\n`), { force: true });
  } catch (err) {
    log(`warning: could not mark volume ${volume.volumeID} as this resource's (${err instanceof Error ? err.message : String(err)}); a new resource later declared under this one's first name could take it for its own`);
  } finally {
    await client.close();
  }
}
