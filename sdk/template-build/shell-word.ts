/**
 * One run of the Dockerfile shell lexer over a word (./shell-lex.ts has the options): BuildKit's
 * `shellWord` (moby/buildkit `frontend/dockerfile/shell/lex.go`; PyPI `e2b-dockerfile-utils` 0.1,
 * `lexer.py`): quotes, escapes, `$VAR` and `${VAR…}` with their modifiers, and `<<` kept whole with
 * the blanks after it (a heredoc's marker).
 */
import { isDigit, isLetter, isSpace, ShellLexError, SPECIAL_PARAMS, type VariableSource } from "./shell-chars";
import { shellPatternToRegExp, trimPrefix, trimSuffix } from "./shell-pattern";

class Words {
  private readonly words: string[] = [];
  private buf: string[] = [];
  private inWord = false;

  addChar(ch: string): void {
    if (isSpace(ch) && this.inWord) {
      if (this.buf.length > 0) {
        this.words.push(this.buf.join(""));
        this.buf = [];
        this.inWord = false;
      }
    } else if (!isSpace(ch)) this.addRawChar(ch);
  }

  addRawChar(ch: string): void {
    this.buf.push(ch);
    this.inWord = true;
  }

  addString(text: string): void {
    for (const ch of text) this.addChar(ch);
  }

  addRawString(text: string): void {
    this.buf.push(text);
    this.inWord = true;
  }

  getWords(): string[] {
    if (this.buf.length > 0) {
      this.words.push(this.buf.join(""));
      this.buf = [];
      this.inWord = false;
    }
    return this.words;
  }
}

export class ShellWord {
  private pos = 0;

  constructor(
    private readonly chars: string[],
    private readonly escapeToken: string,
    private readonly rawQuotes: boolean,
    private rawEscapes: boolean,
    private readonly env: VariableSource,
    private readonly skipUnsetEnv: boolean,
  ) {}

  private peek(): string | undefined {
    return this.chars[this.pos];
  }

  private next(): string | undefined {
    return this.pos < this.chars.length ? this.chars[this.pos++] : undefined;
  }

  processStopOn(stopChar: string | undefined, rawEscapes: boolean): [string, string[]] {
    const result: string[] = [];
    const words = new Words();
    const previous = this.rawEscapes;
    this.rawEscapes = rawEscapes;
    try {
      for (;;) {
        let ch = this.peek();
        if (ch === undefined) break;
        if (stopChar !== undefined && ch === stopChar) {
          this.next();
          return [result.join(""), words.getWords()];
        }
        const special = this.specialHandler(ch);
        if (special) {
          const tmp = special();
          result.push(tmp);
          if (ch === "$") words.addString(tmp);
          else words.addRawString(tmp);
          continue;
        }
        ch = this.next()!;
        if (ch === this.escapeToken) {
          if (this.rawEscapes) {
            words.addRawChar(ch);
            result.push(ch);
          }
          // The escape token escapes the next character, except at the end.
          const after = this.next();
          if (after === undefined) break;
          ch = after;
          words.addRawChar(ch);
        } else {
          words.addChar(ch);
        }
        result.push(ch);
      }
    } finally {
      this.rawEscapes = previous;
    }
    if (stopChar !== undefined) throw new ShellLexError(`unexpected end of statement while looking for matching ${stopChar}`);
    return [result.join(""), words.getWords()];
  }

  private specialHandler(ch: string): (() => string) | undefined {
    if (ch === "$") return () => this.processDollar();
    if (ch === "<") return () => this.processPossibleHeredoc();
    if (ch === "'") return () => this.processSingleQuote();
    if (ch === '"') return () => this.processDoubleQuote();
    return undefined;
  }

  /** Everything up to the next `'` as it is; a single quote cannot be escaped inside single quotes. */
  private processSingleQuote(): string {
    const result: string[] = [];
    const opening = this.next()!;
    if (this.rawQuotes) result.push(opening);
    for (;;) {
      const ch = this.next();
      if (ch === undefined) throw new ShellLexError("unexpected end of statement while looking for matching single-quote");
      if (ch === "'") {
        if (this.rawQuotes) result.push(ch);
        return result.join("");
      }
      result.push(ch);
    }
  }

  /** Everything up to the next `"` as it is, `$` expanded; the escape token escapes only `"`, `$` and itself. */
  private processDoubleQuote(): string {
    const result: string[] = [];
    const opening = this.next()!;
    if (this.rawQuotes) result.push(opening);
    for (;;) {
      const peeked = this.peek();
      if (peeked === undefined) throw new ShellLexError("unexpected end of statement while looking for matching double-quote");
      if (peeked === '"') {
        const ch = this.next()!;
        if (this.rawQuotes) result.push(ch);
        return result.join("");
      }
      if (peeked === "$") {
        result.push(this.processDollar());
        continue;
      }
      let ch = this.next()!;
      if (ch === this.escapeToken) {
        if (this.rawEscapes) result.push(ch);
        const after = this.peek();
        // An escape token at the end of the word is dropped.
        if (after === undefined) continue;
        if (after === '"' || after === "$" || after === this.escapeToken) ch = this.next()!;
      }
      result.push(ch);
    }
  }

  private processDollar(): string {
    this.next(); // '$'
    if (this.peek() !== "{") {
      const name = this.processName();
      if (name === "") return "$";
      const value = this.env.get(name);
      if (value === undefined && this.skipUnsetEnv) return `$${name}`;
      return value ?? "";
    }
    this.next(); // '{'
    const first = this.peek();
    if (first === undefined) throw new ShellLexError("syntax error: missing '}'");
    if (first === "{" || first === "}" || first === ":") throw new ShellLexError("syntax error: bad substitution");
    const name = this.processName();
    let ch = this.next();
    if (ch === undefined) throw new ShellLexError("syntax error: missing '}'");
    let chs = ch;
    const value = this.env.get(name);
    if (ch === "}") {
      if (value === undefined && this.skipUnsetEnv) return `\${${name}}`;
      return value ?? "";
    }
    let nullIsUnset = false;
    if (ch === ":") {
      nullIsUnset = true;
      const modifier = this.next();
      if (modifier === undefined) throw new ShellLexError("syntax error: missing '}'");
      ch = modifier;
      chs += ch;
    }
    if (!nullIsUnset) {
      if (ch === "/") return this.processDollarReplace(name);
      if (!"+-?#%".includes(ch)) throw new ShellLexError(`unsupported modifier (${chs}) in substitution`);
    }
    const rawEscapes = ch === "#" || ch === "%";
    if (nullIsUnset && rawEscapes) throw new ShellLexError(`unsupported modifier (${chs}) in substitution`);
    const word = this.processStopOnOrMissingBrace("}", rawEscapes);
    if (value === undefined && this.skipUnsetEnv) return `\${${name}${chs}${word}}`;
    const unset = value === undefined || (nullIsUnset && value === "");
    switch (ch) {
      case "-":
        return unset ? word : (value ?? "");
      case "+":
        return unset ? "" : word;
      case "?":
        if (value === undefined) throw new ShellLexError(`${name}: ${word || "is not allowed to be unset"}`);
        if (unset) throw new ShellLexError(`${name}: ${word || "is not allowed to be empty"}`);
        return value;
      case "#":
      case "%": {
        // `#`/`%` remove the shortest match, `##`/`%%` the longest.
        const greedy = word.startsWith(ch);
        const pattern = greedy ? word.slice(1) : word;
        return ch === "%" ? trimSuffix(pattern, value ?? "", greedy) : trimPrefix(pattern, value ?? "", greedy);
      }
      default:
        throw new ShellLexError(`unsupported modifier (${chs}) in substitution`);
    }
  }

  private processDollarReplace(name: string): string {
    let op = "/";
    if (this.peek() === "/") {
      this.next();
      op = "//";
    }
    let pattern: string;
    try {
      pattern = this.processStopOn("/", true)[0];
    } catch (err) {
      if (err instanceof ShellLexError && this.peek() === undefined) throw new ShellLexError("syntax error: missing '/' in ${}");
      throw err;
    }
    const replacement = this.processStopOnOrMissingBrace("}", true);
    const value = this.env.get(name);
    if (value === undefined && this.skipUnsetEnv) return `\${${name}${op}${pattern}/${replacement}}`;
    const re = shellPatternToRegExp(pattern, true, false, op === "//");
    return (value ?? "").replace(re, () => replacement);
  }

  private processStopOnOrMissingBrace(stopChar: string, rawEscapes: boolean): string {
    try {
      return this.processStopOn(stopChar, rawEscapes)[0];
    } catch (err) {
      if (err instanceof ShellLexError && this.peek() === undefined) throw new ShellLexError("syntax error: missing '}'");
      throw err;
    }
  }

  /** A name: letters, digits and `_`; a leading run of digits or one special parameter is a name of its own. */
  private processName(): string {
    const name: string[] = [];
    for (;;) {
      const ch = this.peek();
      if (ch === undefined) break;
      if (name.length === 0 && isDigit(ch)) {
        const digits: string[] = [];
        for (let d = this.peek(); d !== undefined && isDigit(d); d = this.peek()) {
          digits.push(d);
          this.next();
        }
        return digits.join("");
      }
      if (name.length === 0 && SPECIAL_PARAMS.includes(ch)) {
        this.next();
        return ch;
      }
      if (!isLetter(ch) && !isDigit(ch) && ch !== "_") break;
      name.push(ch);
      this.next();
    }
    return name.join("");
  }

  private processPossibleHeredoc(): string {
    this.next(); // '<'
    if (this.peek() !== "<") return "<";
    this.next();
    // A heredoc may have whitespace between `<<` and its terminator word.
    const space: string[] = [];
    for (let ch = this.peek(); ch === "\t" || ch === "\r" || ch === " "; ch = this.peek()) {
      space.push(ch);
      this.next();
    }
    return `<<${space.join("")}`;
  }
}
