/**
 * Shell-style word lexing of Dockerfile arguments, as BuildKit does it (moby/buildkit
 * `frontend/dockerfile/shell`), in the form e2b's SDK uses (PyPI `e2b-dockerfile-utils` 0.1,
 * `lexer.py`, which e2b 2.63 builds templates with): quotes and escapes resolved, `$VAR` and
 * `${VAR…}` references expanded from `env` or, without a value, kept as written (so the sandbox's
 * shell expands them at build time). Pure; a malformed word throws a ShellLexError.
 */

import { ShellLexError, type VariableSource } from "./shell-chars";
import { ShellWord } from "./shell-word";

export { isSpace, ShellLexError, type VariableSource } from "./shell-chars";

/** What a ShellLex does with a word. */
export interface ShellLexOptions {
  /** Keep quote characters in the output instead of removing them. */
  rawQuotes?: boolean;
  /** Keep escape characters in the output instead of removing them. */
  rawEscapes?: boolean;
  /** Variables to expand; none by default. */
  env?: VariableSource;
  /** Keep references to variables missing from `env` as written (default) instead of expanding them to "". */
  skipUnsetEnv?: boolean;
}

export class ShellLex {
  private readonly rawQuotes: boolean;
  private readonly rawEscapes: boolean;
  private readonly env: VariableSource;
  private readonly skipUnsetEnv: boolean;

  /** `escapeToken`: `\` or, after a `# escape=`` ` directive, a backtick. */
  constructor(private readonly escapeToken: string, options: ShellLexOptions = {}) {
    this.rawQuotes = options.rawQuotes ?? false;
    this.rawEscapes = options.rawEscapes ?? false;
    this.env = options.env ?? new Map();
    this.skipUnsetEnv = options.skipUnsetEnv ?? true;
  }

  /** One word: quotes and escapes removed, whitespace kept. */
  processWord(word: string): string {
    return this.process(word)[0];
  }

  /** A line split into words on unquoted whitespace. */
  processWords(word: string): string[] {
    return this.process(word)[1];
  }

  private process(word: string): [string, string[]] {
    const sw = new ShellWord([...word], this.escapeToken, this.rawQuotes, this.rawEscapes, this.env, this.skipUnsetEnv);
    try {
      return sw.processStopOn(undefined, this.rawEscapes);
    } catch (err) {
      if (err instanceof ShellLexError || err instanceof RangeError) throw new ShellLexError(`failed to process ${pyRepr(word)}: ${err.message}`);
      throw err;
    }
  }
}

/** How Python's `repr` shows a string, as the SDK's messages quote a word. */
function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}
