/**
 * Writes a template's tree (template-tree.ts) into a new sandbox's root dir, as the emulator's
 * user (root, where sandboxes are isolated). Nothing is written through a link: the root may hold
 * links already (the system links such as `/bin` → `usr/bin`, with namespaces) and the tree its own
 * (an archive's symlinks, which may point anywhere), so each node's parent dirs are opened one by
 * one without following a link (../confined), and a node whose way passes a link, or that would
 * replace one, is skipped. A template can therefore never reach outside the sandbox's root or into
 * a volume (mount points are skipped too).
 */
import { constants } from "node:fs";
import { symlink } from "node:fs/promises";
import { Dir } from "../confined/dir";
import { chmodAt, chownAt, mkdirAt, openAt, statAt } from "../confined/ops";
import { makeWhiteout } from "../confined/whiteout";
import type { TemplateResult, TreeNode } from "./template-tree";

/**
 * Fills `rootDir` (the sandbox's `/`) with `result`'s tree. Paths at or under `skip` (volume mount
 * points) are left alone. `hostOwner` maps a node's owner to the host id that stands for it
 * (isolated sandboxes); without it, files are the emulator's.
 */
export async function fillSandboxRoot(
  rootDir: string,
  result: TemplateResult,
  skip: readonly string[] = [],
  hostOwner: (owner: string) => number | undefined = () => undefined,
): Promise<void> {
  const root = await Dir.trusted(rootDir);
  // Paths come sorted, so siblings share their parent's open dir.
  let parent: { path: string; dir: Dir | undefined } | undefined;
  try {
    for (const path of [...result.tree.keys()].sort()) {
      if (skip.some((s) => s === "/" || path === s || path.startsWith(`${s}/`))) continue;
      const parts = path.split("/").filter((p) => p !== "");
      const name = parts.pop();
      if (name === undefined) continue;
      const parentPath = parts.join("/");
      if (parent?.path !== parentPath) {
        if (parent?.dir !== root) await parent?.dir?.close();
        parent = { path: parentPath, dir: await openParents(root, parts) };
      }
      if (parent.dir) await place({ dir: parent.dir, name, follow: false }, result.tree.get(path)!, hostOwner);
    }
  } finally {
    if (parent?.dir !== root) await parent?.dir?.close();
    await root.close();
  }
}

/** The dir `parts` names under `root`, made where missing; undefined when a link or a file is on the way. */
async function openParents(root: Dir, parts: string[]): Promise<Dir | undefined> {
  let dir = root;
  for (const part of parts) {
    await mkdirAt({ dir, name: part, follow: false }).catch(() => undefined);
    const next = await dir.sub(part).catch(() => undefined);
    if (dir !== root) await dir.close();
    if (!next) return undefined;
    dir = next;
  }
  return dir;
}

/** Writes one node; skipped when a link (or anything of another type) is in its place. */
async function place(at: { dir: Dir; name: string; follow: false }, node: TreeNode, hostOwner: (owner: string) => number | undefined): Promise<void> {
  const existing = await statAt(at);
  if (existing?.isSymbolicLink()) return;
  if (node.type === "dir") {
    if (existing && !existing.isDirectory()) return;
    if (!existing) await mkdirAt(at);
    await chmodAt(at, node.mode | 0o700);
  } else if (node.type === "whiteout") {
    if (!existing) await makeWhiteout(at.dir.at(at.name));
    return;
  } else if (node.type === "file") {
    if (existing && !existing.isFile()) return;
    const handle = await openAt(at, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, node.mode).catch(() => undefined);
    if (!handle) return;
    try {
      await handle.writeFile(node.data ?? Buffer.alloc(0));
      await handle.chmod(node.mode);
    } finally {
      await handle.close();
    }
  } else {
    if (existing) return;
    await symlink(node.linkname ?? "", at.dir.at(at.name));
  }
  const id = hostOwner(node.owner);
  if (id !== undefined) await chownAt(at, id, id);
}
