/**
 * Reads a build sandbox's root dir back into a template tree (template-tree.ts) once its commands
 * ran: what a RUN step or the start command left is part of the template, as the service keeps the
 * build sandbox's disk as the next layer (infra: packages/orchestrator/pkg/template/build/phases/steps/builder.go,
 * SyncChangesToDisk after each step). The sandbox's processes are all gone by then, but the tree is
 * still the sandbox's making, so it is read as copy-tree.ts reads one: each dir opened without
 * following a link and named through its fd (../confined/dir.ts), each file opened with O_NOFOLLOW;
 * a link the command made is kept as a link, never entered. Sockets, pipes and devices are left out,
 * but for an overlay's whiteout (a 0/0 character device), which is kept as the removal it stands for.
 */
import { constants } from "node:fs";
import { open, readdir, readlink } from "node:fs/promises";
import { Dir } from "../confined/dir";
import { statAt } from "../confined/ops";
import { isWhiteout } from "../confined/whiteout";
import type { TreeNode } from "./template-tree";

/** Sandbox paths the layout makes (system dirs, /proc, /dev...): not template content. */
export interface ReadOptions {
  /** Paths left out with everything under them. */
  skip: ReadonlySet<string>;
  /** Paths left out themselves (a system dir's mount point) while what lies under them is read. */
  bare: ReadonlySet<string>;
  /** The owner name a host uid stands for in the sandbox. */
  owner: (uid: number) => string;
}

/** The tree under `rootDir`, keyed by absolute sandbox path. */
export async function readTree(rootDir: string, opts: ReadOptions): Promise<Map<string, TreeNode>> {
  const tree = new Map<string, TreeNode>();
  const root = await Dir.trusted(rootDir);
  try {
    await readLevel(root, "", tree, opts);
  } finally {
    await root.close();
  }
  return tree;
}

async function readLevel(dir: Dir, path: string, tree: Map<string, TreeNode>, opts: ReadOptions): Promise<void> {
  for (const name of await readdir(dir.self)) {
    const sandboxPath = `${path}/${name}`;
    if (opts.skip.has(sandboxPath)) continue;
    const at = { dir, name, follow: false } as const;
    const st = await statAt(at);
    if (!st) continue;
    const base = { mode: st.mode & 0o7777, owner: opts.owner(st.uid) };
    if (st.isDirectory()) {
      if (!opts.bare.has(sandboxPath)) tree.set(sandboxPath, { type: "dir", ...base });
      // Swapped for a link since the lstat: nothing is entered.
      const sub = await dir.sub(name).catch(() => undefined);
      if (!sub) continue;
      try {
        await readLevel(sub, sandboxPath, tree, opts);
      } finally {
        await sub.close();
      }
    } else if (st.isSymbolicLink()) {
      if (!opts.bare.has(sandboxPath)) tree.set(sandboxPath, { type: "symlink", ...base, linkname: await readlink(dir.at(name)) });
    } else if (st.isFile()) {
      const data = await readFile(dir, name);
      if (data) tree.set(sandboxPath, { type: "file", ...base, data });
    } else if (isWhiteout(st)) {
      // An overlay's whiteout: the step removed the image's file here (an image build's upper dir).
      tree.set(sandboxPath, { type: "whiteout", mode: 0, owner: "root" });
    }
  }
}

async function readFile(dir: Dir, name: string): Promise<Buffer | undefined> {
  const handle = await open(dir.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return undefined;
  try {
    return (await handle.stat()).isFile() ? await handle.readFile() : undefined;
  } finally {
    await handle.close();
  }
}
