/**
 * What the file API makes belongs to the calling user, as when envd writes as that user: with
 * namespaces, the emulator (host root) hands each new file and directory to the user's mapped host
 * id, so the sandbox's own commands can change them. Without namespaces everything is the
 * emulator's user's already.
 */
import { chown, mkdir } from "node:fs/promises";
import path from "node:path";
import { hostOwnerOf, type RequestScope } from "./scope";

/** `mkdir -p` whose new directories belong to the calling user. */
export async function makeDirsAs(scope: RequestScope, hostDir: string): Promise<void> {
  const first = await mkdir(hostDir, { recursive: true });
  const owner = hostOwnerOf(scope);
  if (first === undefined || owner === undefined) return;
  for (let at = hostDir; ; at = path.dirname(at)) {
    await chown(at, owner, owner);
    if (at === first || at === path.dirname(at)) return;
  }
}

/** Gives a file the calling user made to that user. */
export async function giveTo(scope: RequestScope, hostPath: string): Promise<void> {
  const owner = hostOwnerOf(scope);
  if (owner !== undefined) await chown(hostPath, owner, owner);
}
