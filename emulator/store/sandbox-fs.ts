/**
 * A sandbox's files on the host: `<dataDir>/sandboxes/<id>/` stands for its `/`, with `home/user`
 * created, and each volume mount at path P is a symlink `<root>P` → the volume's directory.
 */
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";

/** Sandbox path of the default user's home. */
export const HOME_PATH = "/home/user";

/** Creates the root of a new sandbox and its mount links; returns the root directory. */
export function createSandboxRoot(sandboxesDir: string, sandboxID: string, mounts: { path: string; hostDir: string }[]): string {
  const rootDir = join(sandboxesDir, sandboxID);
  mkdirSync(join(rootDir, HOME_PATH), { recursive: true });
  for (const mount of mounts) {
    const link = join(rootDir, mount.path);
    mkdirSync(dirname(link), { recursive: true });
    // A mount may cover a directory the emulator just made (e.g. /home/user): the volume wins.
    rmSync(link, { recursive: true, force: true });
    symlinkSync(mount.hostDir, link, "dir");
  }
  return rootDir;
}

/** Removes a sandbox's root. Links are removed, never followed, so volume content stays. */
export function removeSandboxRoot(rootDir: string): void {
  rmSync(rootDir, { recursive: true, force: true });
}
