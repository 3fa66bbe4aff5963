/**
 * Which files of a build context one COPY source stands for, listed as e2b's SDK lists them (e2b 2.63,
 * `template/utils.py`, `get_all_files_in_path`), so the files hash and the uploaded archive agree
 * with it:
 * - the source is a glob relative to the context, read as wcmatch reads it with GLOBSTAR and DOTMATCH:
 *   `*`, `?`, `[...]` within a segment, `**` across segments (not into symlinked directories), dot
 *   files included; `.` is the context itself;
 * - a matched directory brings itself and everything under it; symlinks are listed, never followed;
 * - the context's `.dockerignore` (./dockerignore.ts) drops what it excludes, with Docker's rules: a
 *   pattern that matches a directory drops everything under it, `!` patterns bring paths back (an
 *   excluded directory is still walked when one could), the last pattern that matches wins, and the
 *   context itself is never excluded;
 * - the result is sorted by path (code point order).
 */
import { lstatSync, readdirSync, readFileSync, statSync, type Stats } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { PatternMatcher } from "./dockerignore";

export { IgnorePatternError } from "./dockerignore";

/** One entry of a context: its POSIX path relative to the context, and its lstat. */
export interface ContextEntry {
  /** e.g. `app/main.py`; `""` for the context directory itself. */
  path: string;
  absolute: string;
  stats: Stats;
}

/**
 * The `.dockerignore` patterns of a context, as the SDK reads them: its lines (a leading BOM
 * dropped), trimmed, blanks and lines that start with `#` dropped.
 */
export function readDockerignore(contextDir: string): string[] {
  let text: string;
  try {
    text = readFileSync(`${contextDir}/.dockerignore`, "utf8");
  } catch {
    return [];
  }
  if (text.startsWith("\ufeff")) text = text.slice(1);
  return text.split("\n").filter((line) => !line.startsWith("#") && line.trim() !== "").map((line) => line.trim());
}

/**
 * The entries `src` stands for in `contextDir`, sorted by path; empty when nothing matches.
 *
 * @throws IgnorePatternError when an ignore pattern is not a valid `.dockerignore` pattern.
 */
export function listContextFiles(src: string, contextDir: string, ignore: readonly string[] = []): ContextEntry[] {
  const root = resolve(contextDir);
  const matcher = new PatternMatcher(ignore.map((p) => normalizeIgnorePattern(p, root)));
  const files = new Map<string, ContextEntry>();
  const add = (path: string, absolute: string, stats: Stats) => files.set(absolute, { path, absolute, stats });

  const walk = (dirAbsolute: string, dirPath: string): void => {
    for (const name of readdirSync(dirAbsolute)) {
      const path = dirPath === "" ? name : `${dirPath}/${name}`;
      const absolute = `${dirAbsolute}/${name}`;
      const stats = lstatOf(absolute);
      if (!stats) continue;
      const ignored = matcher.matches(path);
      if (!ignored) add(path, absolute, stats);
      if (stats.isDirectory() && (!ignored || matcher.mayMatchUnder(path))) walk(absolute, path);
    }
  };

  const matches = globMatches(src, root).map((raw) => {
    const absolute = resolve(root, raw);
    return { absolute, path: relative(root, absolute).split("\\").join("/") };
  });
  // Parents before their children, so what a walked directory holds is not walked again.
  const depth = (path: string) => (path === "" ? 0 : path.split("/").length);
  matches.sort((a, b) => depth(a.path) - depth(b.path));
  const walked = new Set<string>();
  const underWalked = (path: string) => {
    if (walked.has("")) return true;
    for (let parent = parentOf(path); parent !== ""; parent = parentOf(parent)) if (walked.has(parent)) return true;
    return false;
  };
  for (const { absolute, path } of matches) {
    if (path === ".." || path.startsWith("../") || isAbsolute(path)) continue;
    if (underWalked(path)) continue;
    if (path !== "" && matcher.matches(path)) continue;
    const stats = lstatOf(absolute);
    if (!stats) continue;
    if (stats.isDirectory()) {
      add(path, absolute, stats);
      walk(absolute, path);
      walked.add(path);
    } else {
      add(path, absolute, stats);
    }
  }
  return [...files.values()].sort((a, b) => comparePaths(a.path, b.path));
}

/** Code point order, as Python sorts the paths; the context itself (`""`) first. */
function comparePaths(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** An absolute pattern that points into the context, made relative to it (the SDK's `_normalize_ignore_pattern`). */
function normalizeIgnorePattern(raw: string, root: string): string {
  let pattern = raw.trim();
  const negated = pattern.startsWith("!");
  if (negated) pattern = pattern.slice(1).trim();
  if (isAbsolute(pattern)) {
    const rel = relative(root, pattern);
    if (rel !== "" && rel !== ".." && !rel.startsWith("../")) pattern = rel;
  }
  return `${negated ? "!" : ""}${pattern}`;
}

/**
 * The paths the glob `src` matches under `root`, as wcmatch's `glob(src, GLOBSTAR | DOTMATCH,
 * root_dir=root)` writes them (before the SDK normalises them): literal segments must exist (`.` and
 * `..` included), magic ones match directory entries, `**` matches any depth of directories without
 * entering symlinked ones, a trailing `/` matches directories only.
 */
function globMatches(src: string, root: string): string[] {
  if (src === "" || isAbsolute(src)) return [];
  const dirOnly = src.endsWith("/");
  const parts = src.split("/").filter((p, i, all) => p !== "" && !(p === "**" && all[i - 1] === "**"));
  if (parts.length === 0) return [];
  const out: string[] = [];
  let states: { path: string; absolute: string }[] = [{ path: "", absolute: root }];
  const join = (base: string, name: string) => (base === "" ? name : `${base}/${name}`);
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    const next: { path: string; absolute: string }[] = [];
    for (const state of states) {
      if (part === "**") {
        if (last) {
          if (state.path !== "") out.push(`${state.path}/`);
          for (const d of descendants(state.absolute, state.path)) if (!dirOnly || isDir(d.absolute)) out.push(d.path);
        } else {
          next.push(state, ...descendants(state.absolute, state.path).filter((d) => d.dir));
        }
        continue;
      }
      const segment = segmentPattern(part);
      const names = segment instanceof RegExp ? listNames(state.absolute).filter((n) => segment.test(n)) : [segment];
      for (const name of names) {
        const entry = { path: join(state.path, name), absolute: `${state.absolute}/${name}` };
        if (last) {
          if (dirOnly ? isDir(entry.absolute) : lstatOf(entry.absolute) !== undefined) out.push(entry.path);
        } else if (isDir(entry.absolute)) {
          next.push(entry);
        }
      }
    }
    states = next;
  });
  return out;
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Every entry under a directory, depth first; directories that are symlinks are listed, not entered. */
function descendants(absolute: string, path: string): { path: string; absolute: string; dir: boolean }[] {
  const out: { path: string; absolute: string; dir: boolean }[] = [];
  for (const name of listNames(absolute)) {
    const child = { path: path === "" ? name : `${path}/${name}`, absolute: `${absolute}/${name}` };
    const stats = lstatOf(child.absolute);
    if (!stats) continue;
    out.push({ ...child, dir: stats.isDirectory() });
    if (stats.isDirectory()) out.push(...descendants(child.absolute, child.path));
  }
  return out;
}

/**
 * One segment of a glob: the name it stands for when it has no wildcard (escapes resolved), else
 * a regular expression over names (`*`, `?`, `[...]` with `!` or `^` negating, `\x` for `x`).
 */
function segmentPattern(segment: string): string | RegExp {
  let re = "";
  let literal = "";
  let magic = false;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === "\\" && i + 1 < segment.length) {
      const escaped = segment[++i]!;
      literal += escaped;
      re += escapeRegExp(escaped);
    } else if (c === "*") {
      magic = true;
      re += ".*";
    } else if (c === "?") {
      magic = true;
      re += ".";
    } else if (c === "[" && segment.indexOf("]", i + 2) > i) {
      const end = segment.indexOf("]", i + 2);
      let body = segment.slice(i + 1, end);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      magic = true;
      re += `[${negated ? "^" : ""}${body.replace(/[\\\]^[]/g, "\\$&")}]`;
      i = end;
    } else {
      literal += c;
      re += escapeRegExp(c);
    }
  }
  return magic ? new RegExp(`^${re}$`, "su") : literal;
}

function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
