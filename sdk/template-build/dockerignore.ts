/**
 * `.dockerignore` patterns, matched as Docker filters a build context (moby/patternmatcher), in the
 * form e2b's SDK uses (PyPI `e2b-dockerfile-utils` 0.1, `dockerignore.py`, which e2b 2.63 lists a
 * COPY step's files with): patterns are relative to the context (a leading `/` is dropped, `.` and
 * `..` segments cleaned), `*` and `?` stay within a segment, `**` spans segments, a pattern that
 * matches a directory excludes everything under it, and `!` re-includes (the last pattern that
 * matches wins). Pure.
 */
import { posix } from "node:path";

/** A pattern that is not a valid `.dockerignore` pattern (an unterminated `[`, an empty `!`). */
export class IgnorePatternError extends Error {}

const LITERAL_REGEX_CHARS = new Set([".", "+", "(", ")", "|", "{", "}", "$", "^"]);
const WILDCARD_CHARS = /[*?[\\]/;
const BAD_PATTERN = "syntax error in pattern";

/** Go's `filepath.Clean` of a slash-separated pattern. */
function clean(pattern: string): string {
  const collapsed = pattern.replace(/\/+/g, "/");
  if (collapsed === "") return ".";
  const normal = posix.normalize(collapsed);
  return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
}

/** Advances over one (possibly escaped) character of a bracket expression. */
function classChar(pattern: string, i: number, backslashIsEscape: boolean): number {
  const n = pattern.length;
  if (i >= n || pattern[i] === "-" || pattern[i] === "]") throw new IgnorePatternError(BAD_PATTERN);
  if (pattern[i] === "\\" && backslashIsEscape) {
    i++;
    if (i >= n) throw new IgnorePatternError(BAD_PATTERN);
  }
  i++;
  if (i >= n) throw new IgnorePatternError(BAD_PATTERN);
  return i;
}

/** Refuses what Go's `filepath.Match` refuses (Docker validates patterns with it). */
function validatePattern(pattern: string, backslashIsEscape: boolean): void {
  const n = pattern.length;
  let i = 0;
  while (i < n) {
    const ch = pattern[i++];
    if (ch === "\\" && backslashIsEscape) {
      if (i >= n) throw new IgnorePatternError(BAD_PATTERN);
      i++;
    } else if (ch === "[") {
      if (i < n && pattern[i] === "^") i++;
      let ranges = 0;
      while (!(ranges > 0 && i < n && pattern[i] === "]")) {
        i = classChar(pattern, i, backslashIsEscape);
        if (pattern[i] === "-") i = classChar(pattern, i + 1, backslashIsEscape);
        ranges++;
      }
      i++;
    }
  }
}

const escapeRegExp = (ch: string) => ch.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

type MatchType = "exact" | "prefix" | "suffix" | "regex";

/** The end (the index of its `]`) of the bracket expression whose `[` is just before `i`. */
function bracketEnd(pattern: string, i: number, backslashIsEscape: boolean): number {
  let j = i;
  if (j < pattern.length && pattern[j] === "^") j++;
  while (j < pattern.length && pattern[j] !== "]") {
    if (pattern[j] === "\\" && backslashIsEscape) j++;
    j++;
  }
  return j;
}

/** A pattern as a regular expression, and the plainest test that does its work (moby's match types). */
function translate(pattern: string, backslashIsEscape: boolean): { regex: string; type: MatchType } {
  let regex = "^";
  let type: MatchType = "exact";
  const n = pattern.length;
  for (let i = 0; i < n; ) {
    const first = i === 0;
    const ch = pattern[i++]!;
    if (ch === "*" && pattern[i] === "*") {
      i++;
      // `**/` is `**`.
      if (pattern[i] === "/") i++;
      const last = i >= n;
      regex += last ? ".*" : "(.*/)?";
      type = first ? "suffix" : last && type === "exact" ? "prefix" : "regex";
    } else if (ch === "*" || ch === "?") {
      regex += ch === "*" ? "[^/]*" : "[^/]";
      type = "regex";
    } else if (ch === "[") {
      // A bracket expression as it is; a leading `^` negates it.
      const end = bracketEnd(pattern, i, backslashIsEscape);
      regex += pattern.slice(i - 1, end + 1);
      i = end + 1;
      type = "regex";
    } else if (ch === "]") {
      regex += "\\]";
      type = "regex";
    } else if (LITERAL_REGEX_CHARS.has(ch)) {
      regex += `\\${ch}`;
    } else if (ch === "\\" && backslashIsEscape && i < n) {
      regex += escapeRegExp(pattern[i++]!);
      type = "regex";
    } else {
      regex += ch === "\\" ? "\\\\" : ch === "/" ? "\\/" : ch;
    }
  }
  return { regex, type };
}

/** A pattern as a test of one path: plain string checks where it has no wildcards, else a regular expression. */
function compile(pattern: string, backslashIsEscape: boolean): (path: string) => boolean {
  validatePattern(pattern, backslashIsEscape);
  const { regex, type } = translate(pattern, backslashIsEscape);
  if (type === "exact") return (path) => path === pattern;
  if (type === "prefix") {
    const prefix = pattern.slice(0, -2);
    return (path) => path.startsWith(prefix);
  }
  if (type === "suffix") {
    const suffix = pattern.slice(2);
    // `**/foo` also matches `foo`.
    return (path) => path.endsWith(suffix) || (suffix.startsWith("/") && path === suffix.slice(1));
  }
  let compiled: RegExp;
  try {
    compiled = new RegExp(`${regex}$`);
  } catch (err) {
    throw new IgnorePatternError((err as Error).message);
  }
  return (path) => compiled.test(path);
}

interface Pattern {
  exclusion: boolean;
  dirs: string[];
  match: (path: string) => boolean;
}

/**
 * Matches context-relative paths against `.dockerignore` patterns.
 *
 * @throws IgnorePatternError for an invalid pattern, naming it.
 */
export class PatternMatcher {
  private readonly list: Pattern[] = [];
  private readonly cleaned: string[] = [];

  constructor(patterns: readonly string[]) {
    for (const original of patterns) {
      if (original.startsWith("#")) continue;
      let pattern = original.trim();
      if (!pattern) continue;
      const exclusion = pattern.startsWith("!");
      if (exclusion) {
        pattern = pattern.slice(1).trim();
        if (!pattern) throw new IgnorePatternError(`Invalid ignore pattern '${original}': illegal exclusion pattern`);
      }
      pattern = clean(pattern);
      if (pattern.length > 1 && pattern.startsWith("/")) pattern = pattern.slice(1);
      try {
        this.list.push({ exclusion, dirs: pattern.split("/"), match: compile(pattern, true) });
      } catch (err) {
        if (err instanceof IgnorePatternError) throw new IgnorePatternError(`Invalid ignore pattern '${original}': ${err.message}`);
        throw err;
      }
      this.cleaned.push(`${exclusion ? "!" : ""}${pattern}`);
    }
  }

  /** The cleaned patterns, `!` before exclusions; blanks and comments dropped. */
  get patterns(): string[] {
    return [...this.cleaned];
  }

  /**
   * Whether the path is excluded. As BuildKit does, the patterns are tried on each parent directory
   * first, and a pattern that matched a parent matches every path under it.
   */
  matches(path: string): boolean {
    const segments = path.split("/");
    let parentMatched: boolean[] = [];
    let matched = false;
    for (let depth = 1; depth <= segments.length; depth++) {
      const current = segments.slice(0, depth).join("/");
      const currentMatched: boolean[] = [];
      matched = false;
      this.list.forEach((pattern, i) => {
        let match = parentMatched.length > 0 && parentMatched[i] === true;
        if (!match) {
          // An inclusion cannot change a path already matched, nor an exclusion one not matched yet.
          if (pattern.exclusion !== matched) {
            currentMatched.push(false);
            return;
          }
          match = pattern.match(current);
        }
        currentMatched.push(match);
        if (match) matched = !pattern.exclusion;
      });
      parentMatched = currentMatched;
    }
    return matched;
  }

  /** Whether a `!` pattern could re-include a path under the directory: then an excluded directory is still walked. */
  mayMatchUnder(dirPath: string): boolean {
    const dirSegments = dirPath.split("/");
    return this.list.some((p) => p.exclusion && mayMatchUnder(p, dirSegments));
  }
}

function mayMatchUnder(pattern: Pattern, dirSegments: string[]): boolean {
  for (let i = 0; i < dirSegments.length; i++) {
    if (i >= pattern.dirs.length) return false;
    const segment = pattern.dirs[i]!;
    if (segment.includes("**")) return true;
    if (!WILDCARD_CHARS.test(segment) && segment !== dirSegments[i]) return false;
  }
  return pattern.dirs.length > dirSegments.length;
}
