/**
 * The patterns of `${VAR#…}`, `${VAR%…}` and `${VAR/…/…}` as BuildKit matches them (moby/buildkit
 * `frontend/dockerfile/shell`; PyPI `e2b-dockerfile-utils` 0.1, `lexer.py`), for ./shell-word.ts.
 */
import { ShellLexError } from "./shell-chars";

/**
 * A shell wildcard pattern (`?` one character, `*` the shortest or, when greedy, the longest run) as a
 * regular expression. Bracket expressions are not supported, as in BuildKit.
 */
export function shellPatternToRegExp(pattern: string, greedy: boolean, anchored: boolean, global = false): RegExp {
  let out = anchored ? "^" : "";
  // Python's `.`, which the SDK's patterns are made of: any character but a newline.
  const star = greedy ? "[^\\n]*" : "[^\\n]*?";
  const chars = [...pattern];
  for (let i = 0; i < chars.length; ) {
    let ch = chars[i++]!;
    if (ch === "*") {
      out += star;
      continue;
    }
    if (ch === "?") {
      out += "[^\\n]";
      continue;
    }
    if (ch === "\\") {
      // `}` and `/` are escaped to be part of the `${}` word; the escape itself is not part of the pattern.
      const after = chars[i] ?? "";
      if (after === "}" || after === "/") continue;
      i++;
      if (after !== "*" && after !== "?" && after !== "\\") throw new ShellLexError(`invalid pattern (${pattern}) in substitution: invalid escape '\\${after}'`);
      ch = after;
    }
    out += "[]{}.+()|^$*?\\".includes(ch) ? `\\${ch}` : ch;
  }
  return new RegExp(out, global ? "gu" : "u");
}

export function trimPrefix(pattern: string, value: string, greedy: boolean): string {
  return value.replace(shellPatternToRegExp(pattern, greedy, true), "");
}

/** Reverses a pattern without turning `a\*c` into `c*\a`. */
function reversePattern(pattern: string): string {
  const chars = [...pattern];
  const out: string[] = [];
  for (let i = 0; i < chars.length; ) {
    if (chars[i] === "\\" && i + 1 < chars.length) {
      out.unshift(chars[i]!, chars[i + 1]!);
      i += 2;
    } else out.unshift(chars[i++]!);
  }
  return out.join("");
}

/** The shortest (or longest) suffix match, found as a prefix match of the reversed pattern in the reversed value. */
export function trimSuffix(pattern: string, value: string, greedy: boolean): string {
  const reversed = [...value].reverse().join("");
  return [...trimPrefix(reversePattern(pattern), reversed, greedy)].reverse().join("");
}
