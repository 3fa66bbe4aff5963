/**
 * What the emulator does to an entry found by walk.ts, each through the open dir that holds it, so
 * none can follow a link out of the tree: a link as the last component is acted on itself (chown,
 * remove, rename) or refused (chmod, open), never followed, unless `follow` (unisolated sandboxes).
 */
import type { BigIntStats, Stats } from "node:fs";
import { constants } from "node:fs";
import { chmod, lchown, lstat, mkdir, open, readdir, rename, rmdir, stat, unlink, type FileHandle } from "node:fs/promises";
import { errnoError, O_PATH, VIA_FD } from "./dir";
import type { Located } from "./walk";

type At = Pick<Located, "dir" | "name" | "follow">;

/**
 * lstat of the entry; undefined when nothing is there. `followLast`: a link there is followed
 * where links are the host's (walk.ts followed it already otherwise).
 */
export async function statAt(at: At, opts?: { followLast?: boolean }): Promise<Stats | undefined>;
export async function statAt(at: At, opts: { bigint: true; followLast?: boolean }): Promise<BigIntStats | undefined>;
export async function statAt(at: At, opts: { bigint?: true; followLast?: boolean } = {}): Promise<Stats | BigIntStats | undefined> {
  const read = at.follow && opts.followLast ? stat : lstat;
  return read(at.dir.at(at.name), { bigint: opts.bigint === true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT" || err.code === "ENOTDIR") return undefined;
    throw err;
  });
}

/** Opens the entry's content; a link there is ELOOP. `flags` as for open(2); `mode` for a new file. */
export function openAt(at: At, flags: number, mode?: number): Promise<FileHandle> {
  return open(at.dir.at(at.name), flags | (at.follow ? 0 : constants.O_NOFOLLOW), mode);
}

/** chmod of the entry; a link there is refused (Linux cannot chmod a link itself). */
export async function chmodAt(at: At, mode: number): Promise<void> {
  if (at.follow) return chmod(at.dir.at(at.name), mode);
  if (!VIA_FD) {
    if ((await lstat(at.dir.at(at.name))).isSymbolicLink()) throw errnoError("ELOOP", at.name);
    return chmod(at.dir.at(at.name), mode);
  }
  // An O_PATH handle names the entry itself; chmod through /proc/self/fd reaches that inode, and
  // fails (EOPNOTSUPP) if it is a link, whatever the name points to by then.
  const handle = await open(at.dir.at(at.name), O_PATH | constants.O_NOFOLLOW);
  try {
    await chmod(`/proc/self/fd/${handle.fd}`, mode);
  } finally {
    await handle.close();
  }
}

/** chown of the entry itself (a link's own owner, never its target's); -1 keeps an id. */
export function chownAt(at: At, uid: number, gid: number): Promise<void> {
  return lchown(at.dir.at(at.name), uid, gid);
}

/** mkdir of the entry; EEXIST when something is there (a link included: mkdir never follows one). */
export function mkdirAt(at: At, mode = 0o777): Promise<void> {
  if (at.name === ".") throw errnoError("EEXIST", at.dir.hostPath);
  return mkdir(at.dir.at(at.name), { mode });
}

/** The names in a dir level, merged over an overlay (the first dir's come first). */
export async function namesAt(at: Pick<Located, "dir" | "overlay">): Promise<string[]> {
  const dirs = at.overlay.length > 0 ? at.overlay : [at.dir];
  const lists = await Promise.all(dirs.map((d, i) => readdir(d.self).catch((err: unknown) => (i === 0 ? Promise.reject(err) : []))));
  return [...new Set(lists.flat())];
}

/** rename(2) between two entries; neither last component is followed. */
export function renameAt(from: At, to: At): Promise<void> {
  if (from.name === "." || to.name === ".") throw errnoError("EBUSY", from.name === "." ? from.dir.hostPath : to.dir.hostPath);
  return rename(from.dir.at(from.name), to.dir.at(to.name));
}

/**
 * Removes the entry and, for a dir, everything under it, each dir opened without following a
 * link, so a link swapped in for a dir is unlinked rather than emptied. Missing: nothing to do.
 */
export async function removeAt(at: At): Promise<void> {
  if (at.name === ".") throw errnoError("EBUSY", at.dir.hostPath);
  const st = await lstat(at.dir.at(at.name)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  if (!st) return;
  if (!st.isDirectory()) return ignoreMissing(unlink(at.dir.at(at.name)));
  const sub = await at.dir.sub(at.name).catch((err: NodeJS.ErrnoException) => {
    // Swapped for a link or a file since the lstat: that is what is removed.
    if (err.code === "ELOOP" || err.code === "ENOTDIR") return undefined;
    throw err;
  });
  if (!sub) return ignoreMissing(unlink(at.dir.at(at.name)));
  try {
    for (const name of await readdir(sub.self)) await removeAt({ dir: sub, name, follow: false });
  } finally {
    await sub.close();
  }
  await ignoreMissing(rmdir(at.dir.at(at.name)));
}

async function ignoreMissing(p: Promise<void>): Promise<void> {
  await p.catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOENT") throw err;
  });
}
