/**
 * The files hash of a COPY step, computed as the service's SDK computes it, so the service's file
 * cache (GET /templates/{id}/files/{hash}) recognises what that SDK uploaded and vice versa:
 *
 *   sha256( "COPY <src> <dest>"
 *           then, per entry of listContextFiles(src) in path order:
 *             relative POSIX path, st_mode in decimal, size in decimal,
 *             then the content (a regular file) or the link target (a symlink) )
 *
 * Every part is fed as UTF-8 with no separators. Stats follow symlinks except for the symlinks
 * themselves, which contribute their own lstat and target. uid, gid and mtime are left out, so the
 * hash is the same on every machine for the same files.
 */
import { createHash } from "node:crypto";
import { readFileSync, readlinkSync, statSync } from "node:fs";
import { SandboxError } from "../errors";
import { listContextFiles, type ContextEntry } from "./context-files";

/** A files hash: 64 lowercase hex characters. */
export const FILES_HASH_RE = /^[0-9a-f]{64}$/;

/**
 * The files hash of `COPY src dest` over `contextDir`.
 *
 * @throws SandboxError `invalid_argument` when `src` matches nothing in the context.
 */
export function filesHash(src: string, dest: string, contextDir: string, ignore: readonly string[] = []): string {
  const entries = listContextFiles(src, contextDir, ignore);
  if (entries.length === 0) {
    throw new SandboxError({ code: "invalid_argument", message: `COPY ${src}: no files found in ${contextDir} for '${src}'` });
  }
  return hashEntries(src, dest, entries);
}

/** The files hash of already listed entries (see {@link filesHash}). */
export function hashEntries(src: string, dest: string, entries: readonly ContextEntry[]): string {
  const hash = createHash("sha256");
  hash.update(`COPY ${src} ${dest}`);
  for (const entry of entries) {
    hash.update(entry.path);
    if (entry.stats.isSymbolicLink()) {
      hash.update(entry.stats.mode.toString());
      hash.update(entry.stats.size.toString());
      hash.update(readlinkSync(entry.absolute));
      continue;
    }
    const stats = statSync(entry.absolute);
    hash.update(stats.mode.toString());
    hash.update(stats.size.toString());
    if (stats.isFile()) hash.update(readFileSync(entry.absolute));
  }
  return hash.digest("hex");
}
