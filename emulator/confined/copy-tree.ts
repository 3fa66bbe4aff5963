/**
 * Copies a sandbox's files (its root dir, which its processes may be changing) into another tree,
 * as the emulator's user (root, where sandboxes are isolated): what a snapshot or a fork takes, and
 * what a sandbox made from one starts with. Each dir is opened without following a link and named
 * through its fd (dir.ts), so a link the sandbox swaps in for a dir is copied as a link, never
 * entered, and nothing outside either tree is read or written. Links, modes and owners are kept;
 * sockets, pipes and devices are not files a snapshot holds, and are left out, but for an overlay's
 * whiteout (./whiteout.ts), an image sandbox's removal of an image's file.
 */
import { constants } from "node:fs";
import { open, readdir, readlink, symlink } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { Dir } from "./dir";
import { chmodAt, chownAt, mkdirAt, statAt } from "./ops";
import { isWhiteout, makeWhiteout } from "./whiteout";

/**
 * Copies everything under `fromDir` into `toDir` (both exist). Sandbox paths at or under `skip`
 * (volume mount points: a volume is not part of a sandbox's files) are left out. Where the target
 * already has a link, or an entry of another type, the copy leaves it alone, as a template's files are.
 */
export async function copyTree(fromDir: string, toDir: string, skip: readonly string[] = []): Promise<void> {
  if (skip.includes("/")) return;
  const from = await Dir.trusted(fromDir);
  try {
    const to = await Dir.trusted(toDir);
    try {
      await copyLevel(from, to, "", skip);
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

async function copyLevel(from: Dir, to: Dir, path: string, skip: readonly string[]): Promise<void> {
  for (const name of await readdir(from.self)) {
    const sandboxPath = `${path}/${name}`;
    if (skip.some((s) => sandboxPath === s || sandboxPath.startsWith(`${s}/`))) continue;
    const src = { dir: from, name, follow: false } as const;
    const dst = { dir: to, name, follow: false } as const;
    const st = await statAt(src);
    if (!st) continue;
    const there = await statAt(dst);
    if (there?.isSymbolicLink()) continue;
    if (st.isDirectory()) {
      if (there && !there.isDirectory()) continue;
      if (!there) await mkdirAt(dst, 0o700);
      await copySubdir(src, dst, sandboxPath, skip);
    } else if (st.isFile()) {
      if (there && !there.isFile()) continue;
      if (!(await copyFile(src, dst, st.mode))) continue;
    } else if (st.isSymbolicLink()) {
      if (there) continue;
      await symlink(await readlink(from.at(name)), to.at(name));
    } else {
      // An image sandbox's removal of one of the image's files (./whiteout.ts) goes with its files.
      if (isWhiteout(st) && !there) await makeWhiteout(to.at(name));
      continue;
    }
    if (!st.isSymbolicLink()) await chmodAt(dst, st.mode & 0o7777);
    await chownAt(dst, st.uid, st.gid).catch(ignorePermission);
  }
}

type Entry = { dir: Dir; name: string; follow: false };

async function copySubdir(src: Entry, dst: Entry, path: string, skip: readonly string[]): Promise<void> {
  // Swapped for a link or a file since the lstat: nothing is entered.
  const sub = await src.dir.sub(src.name).catch(() => undefined);
  if (!sub) return;
  try {
    const target = await dst.dir.sub(dst.name);
    try {
      await copyLevel(sub, target, path, skip);
    } finally {
      await target.close();
    }
  } finally {
    await sub.close();
  }
}

/** Copies one file's content; false when it is no longer a file (swapped or removed since its lstat). */
async function copyFile(src: Entry, dst: Entry, mode: number): Promise<boolean> {
  const input = await open(src.dir.at(src.name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!input) return false;
  try {
    if (!(await input.stat()).isFile()) return false;
    const output = await open(dst.dir.at(dst.name), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, mode & 0o777);
    await pipeline(input.createReadStream({ autoClose: false }), output.createWriteStream());
    return true;
  } finally {
    await input.close();
  }
}

/** Without root, the owner of a copy is the emulator's user: files of other owners cannot be given away. */
function ignorePermission(err: NodeJS.ErrnoException): void {
  if (err.code !== "EPERM") throw err;
}
