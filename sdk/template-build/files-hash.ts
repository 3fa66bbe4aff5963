/**
 * The files hash of a COPY step, computed as e2b's SDK computes it (e2b 2.63, `template/utils.py`,
 * `calculate_files_hash`), so the service's file cache (GET /templates/{id}/files/{hash}) recognises
 * what that SDK uploaded and vice versa:
 *
 *   sha256( "COPY <src> <dest>"
 *           then, per entry of listContextFiles(src) in path order:
 *             relative POSIX path (`.` for the context itself), st_mode in decimal,
 *             size in decimal (not for a directory),
 *             then the content (a regular file) or the link target (a symlink) )
 *
 * Every part is fed as UTF-8 with no separators. Stats follow symlinks except for the symlinks
 * themselves, which contribute their own lstat and target. uid, gid and mtime are left out, and so is
 * a directory's size (the filesystem's, not its files': e2b 2.63 dropped it, where the JS SDK 2.51 and
 * e2b 2.45 still hash it), so the hash is the same on every machine for the same files.
 */
import { createHash } from "node:crypto";
import { readFileSync, readlinkSync, statSync } from "node:fs";
import type { ContextEntry } from "./context-files";

/** A files hash: 64 lowercase hex characters. */
export const FILES_HASH_RE = /^[0-9a-f]{64}$/;

/**
 * The files hash of entries listed by listContextFiles (./copy-files.ts lists and hashes a step's). `keep` gets what each entry
 * contributed as it was read (a file's bytes, a link's target), so an archive of the very bytes
 * hashed needs no second read of the context (./context-tar.ts).
 */
export function hashEntries(src: string, dest: string, entries: readonly ContextEntry[], keep?: (path: string, read: Buffer) => void): string {
  const hash = createHash("sha256");
  hash.update(`COPY ${src} ${dest}`);
  for (const entry of entries) {
    hash.update(entry.path === "" ? "." : entry.path);
    if (entry.stats.isSymbolicLink()) {
      hash.update(entry.stats.mode.toString());
      hash.update(entry.stats.size.toString());
      const target = readlinkSync(entry.absolute);
      hash.update(target);
      keep?.(entry.path, Buffer.from(target));
      continue;
    }
    const stats = statSync(entry.absolute);
    hash.update(stats.mode.toString());
    if (!stats.isDirectory()) hash.update(stats.size.toString());
    if (!stats.isFile()) continue;
    const data = readFileSync(entry.absolute);
    hash.update(data);
    keep?.(entry.path, data);
  }
  return hash.digest("hex");
}
