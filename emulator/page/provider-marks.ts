/**
 * What the page's "By stack" view says of the objects pulumi-sandbox made: which ones a finished
 * create made (some stack's state records them) and which ones a killed or failed run left behind.
 * It reads the marks the provider leaves (docs/reruns-and-identity.md, "Where the provider keeps its
 * marks"): a sandbox's claim directories under /tmp, a volume's pending file at its root. The emulator
 * holds their files on its own disk, so a paused sandbox is read without being resumed, which no
 * client of the service could do. The names are the provider's; test/unit/provider-marks.test.ts
 * keeps them equal, since the emulator does not import the provider.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Stores } from "../store";

/** Where a finished create of a Sandbox leaves its claim (provider/kinds/sandbox/claim.ts CLAIMS). */
export const SANDBOX_CLAIMS = "/tmp/.pulumi-sandbox-claims";
/** What a Volume's create writes first and removes last (provider/kinds/volume/claim.ts PENDING_FILE). */
export const VOLUME_PENDING = "/.pulumi-sandbox-pending";
/** The sandbox metadata entry naming the resource that made it (provider/kinds/sandbox/spec.ts MARKER_KEY). */
export const SANDBOX_MARKER = "pulumi-sandbox.resource";
/** The one naming the create that made it (provider/kinds/sandbox/adoption.ts NONCE_KEY); none before claims. */
export const SANDBOX_NONCE = "pulumi-sandbox.nonce";

/**
 * A marked sandbox's standing: `finished` (a finished create claimed it, or it is a copy of one that
 * did: a fork holds its parent's claims), `interrupted` (no create finished: the next `up` of its
 * stack adopts it, or it is left over), or `before-claims` (made by a provider older than claims).
 */
export type SandboxStanding = "finished" | "interrupted" | "before-claims";

export interface ProviderMarks {
  /** Every sandbox carrying the provider's marker, by ID. */
  sandboxes: Record<string, SandboxStanding>;
  /** Volumes whose create never ended (their pending file is still there). */
  interruptedVolumes: { volumeID: string; name: string }[];
}

export function providerMarks(stores: Stores): ProviderMarks {
  const sandboxes: Record<string, SandboxStanding> = {};
  for (const s of stores.sandboxes.all()) {
    if (s.metadata[SANDBOX_MARKER] === undefined) continue;
    const claims = join(s.rootDir, SANDBOX_CLAIMS);
    if (existsSync(claims) && readdirSync(claims).length > 0) sandboxes[s.sandboxID] = "finished";
    else sandboxes[s.sandboxID] = s.metadata[SANDBOX_NONCE] === undefined ? "before-claims" : "interrupted";
  }
  const interruptedVolumes = stores.volumes
    .all()
    .filter((v) => existsSync(join(v.hostDir, VOLUME_PENDING)))
    .map((v) => ({ volumeID: v.volumeID, name: v.name }));
  return { sandboxes, interruptedVolumes };
}
