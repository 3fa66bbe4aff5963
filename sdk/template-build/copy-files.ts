/**
 * The files of one COPY step, listed and hashed once when a build is planned, and carried to its
 * upload: the entries the files hash covers, each with its lstat as it was hashed. The upload then
 * reads only the archives the service lacks (docs/service.md#build-sequence, step 2), and whether the
 * files moved on since the plan is told from their listing alone (path, size, mode and modification
 * time, as `make` and git's index tell it), without reading or hashing them again.
 */
import { SandboxError } from "../errors";
import { listContextFiles, type ContextEntry } from "./context-files";
import { hashEntries } from "./files-hash";

/** One COPY step's files as they were hashed. */
export interface CopyFiles {
  src: string;
  dest: string;
  filesHash: string;
  /** Where they were listed from, and the `.dockerignore` patterns they were listed with. */
  contextDir: string;
  ignore: readonly string[];
  /** In path order, as listContextFiles gave them when they were hashed. */
  entries: ContextEntry[];
}

/** A file that is not as it was planned: its context-relative path (`""`: the context itself) and how. */
export interface ChangedEntry {
  path: string;
  change: "changed" | "added" | "removed";
}

/**
 * Lists and hashes the files of `COPY src dest` over `contextDir`.
 *
 * @throws SandboxError `invalid_argument` when `src` matches nothing in the context.
 */
export function copyFiles(src: string, dest: string, contextDir: string, ignore: readonly string[] = []): CopyFiles {
  const entries = listContextFiles(src, contextDir, ignore);
  if (entries.length === 0) {
    throw new SandboxError({ code: "invalid_argument", message: `COPY ${src}: no files found in ${contextDir} for '${src}'` });
  }
  return { src, dest, filesHash: hashEntries(src, dest, entries), contextDir, ignore, entries };
}

/**
 * The files hash of `COPY src dest` over `contextDir`.
 *
 * @throws SandboxError `invalid_argument` when `src` matches nothing in the context.
 */
export function filesHash(src: string, dest: string, contextDir: string, ignore: readonly string[] = []): string {
  return copyFiles(src, dest, contextDir, ignore).filesHash;
}

/**
 * The first entry of `files` whose listing differs now from when it was hashed, or undefined when
 * none does. A context that cannot be listed any more is its root, removed.
 */
export function changedEntry(files: CopyFiles): ChangedEntry | undefined {
  let now: ContextEntry[];
  try {
    now = listContextFiles(files.src, files.contextDir, files.ignore);
  } catch {
    return { path: "", change: "removed" };
  }
  const before = new Map(files.entries.map((e) => [e.path, e]));
  for (const entry of now) {
    const was = before.get(entry.path);
    if (was === undefined) return { path: entry.path, change: "added" };
    before.delete(entry.path);
    if (!sameListing(was, entry)) return { path: entry.path, change: "changed" };
  }
  const [gone] = before.keys();
  return gone === undefined ? undefined : { path: gone, change: "removed" };
}

function sameListing(a: ContextEntry, b: ContextEntry): boolean {
  if (a.stats.mode !== b.stats.mode) return false;
  // A directory's size and times change with its children, which are listed themselves.
  return a.stats.isDirectory() || (a.stats.size === b.stats.size && a.stats.mtimeMs === b.stats.mtimeMs);
}

/** How a message names a changed entry: `app/main.py changed`. */
export function describeChange(c: ChangedEntry, contextDir: string): string {
  return `${c.path === "" ? contextDir : c.path} ${c.change === "removed" && c.path === "" ? "can no longer be read" : c.change}`;
}
