/**
 * The characters and errors the Dockerfile shell lexer (./shell-lex.ts) is made of, as BuildKit
 * defines them (moby/buildkit `frontend/dockerfile/shell`; PyPI `e2b-dockerfile-utils` 0.1, `lexer.py`).
 */

/** Parameters a single character names: `$@`, `$?`, … */
export const SPECIAL_PARAMS = "@*#?-$!0";
const ASCII_SPACES = " \t\n\v\f\r\u0085\u00a0";

/** Go's `unicode.IsSpace`, as BuildKit tests for whitespace. */
export function isSpace(ch: string): boolean {
  return ASCII_SPACES.includes(ch) || /^\p{Z}$/u.test(ch);
}

export const isLetter = (ch: string) => /^\p{L}$/u.test(ch);
export const isDigit = (ch: string) => /^\p{Nd}$/u.test(ch);

/** A word the lexer cannot read (an unclosed quote, a bad `${…}`). */
export class ShellLexError extends Error {}

/** Where a ShellLex looks variables up (a Map will do). */
export interface VariableSource {
  get(name: string): string | undefined;
}
