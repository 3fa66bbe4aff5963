/**
 * A sandbox's files on the host: `<dataDir>/sandboxes/<id>/` stands for its `/`, with `home/user`
 * created, and each volume mount at path P is a symlink `<root>P` → the volume's directory. With
 * namespaces (../envd/isolation), the root is laid out as the sandbox's whole `/` and a mount point
 * other than `/` is an empty dir the volume is bound onto inside the sandbox's mount namespace.
 */
import { chownSync, existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { removeTreeSync } from "../confined/remove-tree";
import { overlayDirsOf, prepareRoot } from "../envd/isolation/layout";
import type { Isolation } from "../envd/isolation/mode";

/** Sandbox path of the default user's home. */
export const HOME_PATH = "/home/user";

/**
 * Creates the root of a new sandbox and its mount links; returns the root directory. Mounts go
 * shallowest first, so a volume at `/` becomes the root itself (a link to the volume: what the sandbox
 * writes anywhere lands in the volume, home included, as with a root mount on the service), and
 * deeper mounts are linked inside whatever holds their parent.
 */
export function createSandboxRoot(
  sandboxesDir: string,
  sandboxID: string,
  mounts: { path: string; hostDir: string }[],
  isolation: Isolation = { mode: "none", reason: "not asked for" },
  /** The sandbox's `/` is an image's files with this root dir over them (store/image-roots.ts). */
  image = false,
): string {
  const rootDir = join(sandboxesDir, sandboxID);
  mkdirSync(sandboxesDir, { recursive: true });
  const byDepth = [...mounts].sort((a, b) => depth(a.path) - depth(b.path));
  if (isolation.mode === "namespaces") {
    const atRoot = byDepth.find((m) => m.path === "/");
    if (atRoot) symlinkSync(atRoot.hostDir, rootDir, "dir");
    if (image) prepareUpper(rootDir, isolation, byDepth.map((m) => m.path));
    else prepareRoot(rootDir, isolation, byDepth.map((m) => m.path));
    return rootDir;
  }
  for (const mount of byDepth) {
    const link = mount.path === "/" ? rootDir : join(rootDir, mount.path);
    mkdirSync(dirname(link), { recursive: true });
    // A mount may cover a directory the emulator made (e.g. /home/user): the volume wins.
    rmSync(link, { recursive: true, force: true });
    symlinkSync(mount.hostDir, link, "dir");
  }
  mkdirSync(join(rootDir, HOME_PATH), { recursive: true });
  return rootDir;
}

const depth = (path: string) => (path === "/" ? 0 : path.split("/").length);

/**
 * Removes a sandbox's root. Links are removed, never followed, so volume content stays, and so a
 * sandbox still running cannot point the removal at the host's files (../confined/remove-tree.ts).
 */
export function removeSandboxRoot(rootDir: string): void {
  removeTreeSync(rootDir);
  if (existsSync(overlayDirsOf(rootDir).base)) removeTreeSync(overlayDirsOf(rootDir).base);
}

/**
 * An image sandbox's root dir, the upper dir of its overlay: owned by the sandbox's root, with an
 * empty dir for each volume mount point, and its overlay's other dirs beside it.
 */
function prepareUpper(rootDir: string, isolation: Isolation & { mode: "namespaces" }, mountPaths: string[]): void {
  const { base, work, merged } = overlayDirsOf(rootDir);
  for (const dir of [rootDir, base, work, merged]) {
    mkdirSync(dir, { recursive: true });
    chownSync(dir, isolation.idBase, isolation.idBase);
  }
  for (const path of mountPaths) if (path !== "/") mkdirSync(join(rootDir, path), { recursive: true });
}
