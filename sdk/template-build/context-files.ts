/**
 * Which files of a build context one COPY source stands for, listed the way the service's SDK lists
 * them (so the files hash and the uploaded archive agree with it): the source is a glob relative to
 * the context (`*`, `?`, `[...]` within a segment, `**` across segments; dot files included); a
 * matched directory brings itself and everything under it; symlinks are listed, never followed;
 * the result is sorted by path. Ignore patterns (the context's `.dockerignore`) drop every entry
 * whose context-relative path they match (and only those).
 */
import { lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { join, posix } from "node:path";

/** One entry of a context: its POSIX path relative to the context, and its lstat. */
export interface ContextEntry {
  /** e.g. `app/main.py`; `""` for the context directory itself. */
  path: string;
  absolute: string;
  stats: Stats;
}

/** The `.dockerignore` patterns of a context: trimmed lines, blanks and comments dropped. */
export function readDockerignore(contextDir: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(contextDir, ".dockerignore"), "utf8");
  } catch {
    return [];
  }
  return text.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
}

/** The entries `src` stands for in `contextDir`, sorted by path; empty when nothing matches. */
export function listContextFiles(src: string, contextDir: string, ignore: readonly string[] = []): ContextEntry[] {
  const ignored = ignore.map(globToRegExp);
  const keep = (path: string) => !ignored.some((re) => re.test(path));
  const found = new Map<string, ContextEntry>();
  for (const entry of matchGlob(src, contextDir)) {
    if (!keep(entry.path)) continue;
    found.set(entry.path, entry);
    if (entry.stats.isDirectory()) for (const child of walk(entry, keep)) found.set(child.path, child);
  }
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Every entry under a directory, depth first; symlinked directories are not entered. */
function* walk(dir: ContextEntry, keep: (path: string) => boolean): Generator<ContextEntry> {
  for (const name of readdirSync(dir.absolute)) {
    const entry = entryAt(dir.absolute, dir.path === "" ? name : `${dir.path}/${name}`, name);
    if (!entry) continue;
    // As with glob's ignore: a pattern drops the paths it matches; a directory's children are
    // dropped only by a pattern that matches them too (`dir/**`).
    if (keep(entry.path)) yield entry;
    if (entry.stats.isDirectory()) yield* walk(entry, keep);
  }
}

/** The entries whose context-relative path matches the glob `src`. */
function matchGlob(src: string, contextDir: string): ContextEntry[] {
  const normal = posix.normalize(src.replace(/\\/g, "/")).replace(/^\.\/+/, "").replace(/\/+$/, "");
  if (normal === "." || normal === "") {
    const root = entryAt(contextDir, "", "");
    return root ? [root] : [];
  }
  const segments = normal.split("/");
  let current: ContextEntry[] = [{ path: "", absolute: contextDir, stats: lstatSync(contextDir) }];
  for (const segment of segments) {
    const next: ContextEntry[] = [];
    for (const base of current) next.push(...stepInto(base, segment));
    current = dedupe(next);
  }
  return current;
}

function stepInto(base: ContextEntry, segment: string): ContextEntry[] {
  if (!base.stats.isDirectory()) return [];
  if (segment === "**") return [base, ...descendantDirs(base)];
  if (!/[*?[]/.test(segment)) {
    const entry = entryAt(base.absolute, join2(base.path, segment), segment);
    return entry ? [entry] : [];
  }
  const re = globToRegExp(segment);
  return readdirSync(base.absolute)
    .filter((name) => re.test(name))
    .map((name) => entryAt(base.absolute, join2(base.path, name), name))
    .filter((e): e is ContextEntry => e !== undefined);
}

function descendantDirs(dir: ContextEntry): ContextEntry[] {
  const out: ContextEntry[] = [];
  for (const entry of walk(dir, () => true)) if (entry.stats.isDirectory()) out.push(entry);
  return out;
}

function entryAt(parentAbsolute: string, path: string, name: string): ContextEntry | undefined {
  const absolute = name === "" ? parentAbsolute : join(parentAbsolute, name);
  try {
    return { path, absolute, stats: lstatSync(absolute) };
  } catch {
    return undefined;
  }
}

function join2(base: string, name: string): string {
  return base === "" ? name : `${base}/${name}`;
}

function dedupe(entries: ContextEntry[]): ContextEntry[] {
  return [...new Map(entries.map((e) => [e.path, e])).values()];
}

/** A glob over a whole path or one segment: `**` crosses `/`, `*` and `?` do not. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) re += "\\[";
      else {
        re += `[${glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${re.replace(/\/+$/, "")}$`);
}
