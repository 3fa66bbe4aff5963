/**
 * Removes a whole tree a sandbox may still be changing (a killed sandbox's root, before its
 * processes are gone; a volume that running sandboxes mount), as the emulator's user (root). A
 * plain recursive rm checks that an entry is a dir, then lists it by path: a sandbox that swaps
 * the dir for a link to `/etc` in between has the host's files removed. Here each dir is opened
 * without following a link and emptied through its fd (dir.ts), so a link is only ever unlinked.
 * Synchronous, as the callers' deletes answer only once the files are gone.
 */
import { closeSync, constants, lstatSync, openSync, readdirSync, rmdirSync, rmSync, unlinkSync } from "node:fs";
import { basename, dirname } from "node:path";
import { O_PATH, VIA_FD } from "./dir";

/** Removes `hostPath` and everything under it; a link there is removed, never followed. Missing: nothing to do. */
export function removeTreeSync(hostPath: string): void {
  if (!VIA_FD) return rmSync(hostPath, { recursive: true, force: true });
  // The path up to the tree is the emulator's own (its data dir).
  const parent = openSync(dirname(hostPath), O_PATH | constants.O_DIRECTORY);
  try {
    removeEntry(parent, basename(hostPath));
  } finally {
    closeSync(parent);
  }
}

function removeEntry(dirFd: number, name: string): void {
  const at = `/proc/self/fd/${dirFd}/${name}`;
  const st = ignoreMissing(() => lstatSync(at));
  if (!st) return;
  if (!st.isDirectory()) return void ignoreMissing(() => unlinkSync(at));
  let fd: number;
  try {
    fd = openSync(at, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Swapped for a link or a file since the lstat: remove that instead.
    if (code === "ELOOP" || code === "ENOTDIR") return void ignoreMissing(() => unlinkSync(at));
    if (code === "ENOENT") return;
    throw err;
  }
  try {
    for (const child of readdirSync(`/proc/self/fd/${fd}`)) removeEntry(fd, child);
  } finally {
    closeSync(fd);
  }
  ignoreMissing(() => rmdirSync(at));
}

function ignoreMissing<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}
