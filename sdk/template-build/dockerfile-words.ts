/**
 * The words of a Dockerfile line as BuildKit's parser splits them (moby/buildkit
 * `frontend/dockerfile/parser`; PyPI `e2b-dockerfile-utils` 0.1, `syntax.py`): the keyword, the
 * leading `--flag[=value]` words (quotes and escapes resolved), and the arguments' words (quotes and
 * escapes kept, for the shell lexer to resolve). Pure.
 */
import { isSpace } from "./shell-chars";

/** The whitespace BuildKit splits a keyword from its arguments on. */
export const WHITESPACE = /[\t\v\f\r ]+/;

/** What Python's `str.strip()` strips: `str.isspace()` characters. */
const PY_WHITESPACE = "[\\t-\\r\\u001c-\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const PY_STRIP = new RegExp(`^${PY_WHITESPACE}+|${PY_WHITESPACE}+$`, "g");

/** Python's `str.strip()`, as the SDK strips a line. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, "");
}

export function trimLeadingWhitespace(line: string): string {
  let i = 0;
  while (i < line.length && isSpace(line[i]!)) i++;
  return line.slice(i);
}

/**
 * A scan of a line into words, one character at a time, as BuildKit's two splitters do it. `keep`:
 * quotes and escape tokens stay in the words (parseWords), else they are dropped (flags).
 */
class WordScanner {
  pos = 0;
  phase: "spaces" | "word" | "quote" = "spaces";
  quote = "";
  blankOk = false;
  word: string[] = [];
  readonly words: string[] = [];

  constructor(readonly line: string, private readonly escapeToken: string, private readonly keep: boolean) {}

  get atEnd(): boolean {
    return this.pos >= this.line.length;
  }

  /** Ends the current word (an empty one only when it had quotes); returns it. */
  endWord(): string {
    const joined = this.word.join("");
    const had = this.blankOk || this.word.length > 0;
    this.word = [];
    this.blankOk = false;
    if (had) this.words.push(joined);
    return joined;
  }

  /** An escape token at `pos`: the next character taken as it is (with the token when kept); a last one dropped. */
  private escape(endsQuote: boolean): void {
    if (this.pos + 1 === this.line.length) {
      if (endsQuote) this.phase = "word";
      this.pos++;
      return;
    }
    if (this.keep) this.word.push(this.line[this.pos]!);
    this.word.push(this.line[this.pos + 1]!);
    this.pos += 2;
  }

  /** One character of a word outside quotes (not a space). */
  inWord(): void {
    const ch = this.line[this.pos]!;
    if (ch === "'" || ch === '"') {
      this.quote = ch;
      this.blankOk = true;
      this.phase = "quote";
      if (this.keep) this.word.push(ch);
      this.pos++;
    } else if (ch === this.escapeToken) {
      this.escape(false);
    } else {
      this.word.push(ch);
      this.pos++;
    }
  }

  /** One character inside quotes. A kept escape works in double quotes only; a dropped one in both (as BuildKit's flag parser has it). */
  inQuote(): void {
    const ch = this.line[this.pos]!;
    if (ch === this.quote) {
      this.phase = "word";
      if (this.keep) this.word.push(ch);
      this.pos++;
    } else if (ch === this.escapeToken && (!this.keep || this.quote !== "'")) {
      this.escape(true);
    } else {
      this.word.push(ch);
      this.pos++;
    }
  }
}

/**
 * A line split into whitespace-separated words, quotes and escape characters kept in place (the
 * shell lexer resolves them later).
 */
export function parseWords(rest: string, escapeToken: string): string[] {
  const s = new WordScanner(rest, escapeToken, true);
  while (!s.atEnd) {
    const ch = rest[s.pos]!;
    if (s.phase === "spaces" && isSpace(ch)) s.pos++;
    else if (s.phase !== "quote" && isSpace(ch)) {
      s.endWord();
      s.phase = "spaces";
      s.pos++;
    } else if (s.phase === "quote") s.inQuote();
    else {
      s.phase = "word";
      s.inWord();
    }
  }
  if (s.phase !== "spaces") s.endWord();
  return s.words;
}

/** Leading `--flag[=value]` words (quotes and escapes resolved): the rest of the line, and the flags. */
export function extractBuilderFlags(line: string, escapeToken: string): [string, string[]] {
  const s = new WordScanner(line, escapeToken, false);
  while (!s.atEnd) {
    const ch = line[s.pos]!;
    if (s.phase === "spaces") {
      if (isSpace(ch)) {
        s.pos++;
        continue;
      }
      // Only a word that starts with -- is a flag.
      if (ch !== "-" || line[s.pos + 1] !== "-") return [line.slice(s.pos), s.words];
      s.phase = "word";
    }
    if (s.phase === "word" && isSpace(ch)) {
      s.phase = "spaces";
      // `--` alone ends the flags.
      if (s.endWord() === "--") return [line.slice(s.pos), s.words.slice(0, -1)];
      s.pos++;
    } else if (s.phase === "word") s.inWord();
    else s.inQuote();
  }
  if (s.phase !== "spaces" && s.endWord() === "--") s.words.pop();
  return ["", s.words];
}

/** A whole instruction line: its keyword as written, its flags, and the rest of it. */
export function splitCommand(line: string, escapeToken: string): [string, string[], string] {
  const trimmed = pyStrip(line);
  const match = WHITESPACE.exec(trimmed);
  if (!match) return [trimmed, [], ""];
  const command = trimmed.slice(0, match.index);
  const [rest, flags] = extractBuilderFlags(trimmed.slice(match.index + match[0].length), escapeToken);
  return [command, flags, pyStrip(rest)];
}
