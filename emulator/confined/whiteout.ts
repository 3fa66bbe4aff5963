/**
 * An overlay's whiteout: a 0/0 character device in an upper dir, which hides the lower dirs' entry
 * of its name (an image's file a RUN step or a sandbox removed: emulator/store/image-roots.ts). Only
 * the kernel's overlay makes one in a sandbox's tree (a sandbox cannot mknod), so one found there is
 * carried over as the removal it stands for: into a template's tree, a sandbox's upper dir, a snapshot.
 */
import { spawn } from "node:child_process";
import type { Stats } from "node:fs";
import { forHelper } from "./dir";

export function isWhiteout(st: Stats): boolean {
  return st.isCharacterDevice() && st.rdev === 0;
}

/**
 * Makes a whiteout at `path`, an fd path of this process (dir.ts `at`): by `mknod`, Node having no
 * call for it, through this process's /proc entry; ignored where it fails (an emulator not run as
 * root has no image to hide).
 */
export function makeWhiteout(path: string): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn("mknod", [forHelper(path), "c", "0", "0"], { stdio: "ignore" });
    child.once("error", () => resolve());
    child.once("close", () => resolve());
  });
}
