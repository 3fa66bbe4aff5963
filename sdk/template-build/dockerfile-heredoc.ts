/**
 * Heredoc markers as BuildKit reads them (moby/buildkit `frontend/dockerfile/parser`; PyPI
 * `e2b-dockerfile-utils` 0.1, `syntax.py`): `<<EOF`, `<<-EOF` (leading tabs stripped), `<<'EOF'` or
 * `<<"EOF"` (the body not expanded), `3<<EOF`, `<< EOF`. Pure.
 */
import { ShellLex, ShellLexError } from "./shell-lex";
import { DockerfileSyntaxError } from "./dockerfile-syntax-error";

/** A here-document of a RUN, COPY or ADD. */
export interface DockerfileHeredoc {
  name: string;
  /** Its lines as written, each with its newline. */
  content: string;
  /** `<<-`: leading tabs are stripped from its lines. */
  chomp: boolean;
  /** An unquoted terminator: variables in it are expanded. */
  expand: boolean;
  fileDescriptor: number;
}

const ASCII_DIGITS = "0123456789";
const ASCII_SPACES = "\t\n\f\r ";

/** `[fd]<<[-]name` split into its parts. */
function matchHeredocMarker(word: string): [string, boolean, string] | undefined {
  let i = 0;
  while (i < word.length && ASCII_DIGITS.includes(word[i]!)) i++;
  if (!word.startsWith("<<", i)) return undefined;
  const fileDescriptor = word.slice(0, i);
  i += 2;
  const chomp = i < word.length && word[i] === "-";
  if (chomp) i++;
  while (i < word.length && ASCII_SPACES.includes(word[i]!)) i++;
  const rest = word.slice(i);
  if (rest.includes("<")) return undefined;
  return [fileDescriptor, chomp, rest];
}

/**
 * The heredoc a word opens, without its content; undefined for any other word.
 *
 * @throws ShellLexError for a terminator with an unclosed quote.
 */
export function parseHeredoc(word: string): DockerfileHeredoc | undefined {
  const match = matchHeredocMarker(word);
  if (!match) return undefined;
  const [fd, chomp, rest] = match;
  if (!rest) return undefined;
  // The terminator lexed with and without its quotes: when they differ, part of it was quoted and
  // the content is not expanded.
  const words = new ShellLex("\\").processWords(rest);
  if (words.length !== 1) return undefined;
  const wordsRaw = new ShellLex("\\", { rawQuotes: true }).processWords(rest);
  if (wordsRaw.length !== words.length) throw new DockerfileSyntaxError(`internal lexing of heredoc produced inconsistent results: ${rest}`);
  const quotes = (s: string) => [...s].filter((c) => c === "'" || c === '"').length;
  return { name: words[0]!, content: "", chomp, expand: quotes(words[0]!) === quotes(wordsRaw[0]!), fileDescriptor: fd ? Number(fd) : 0 };
}

/** The heredocs an instruction line opens, in order (none when the line does not lex). */
export function heredocsFromLine(line: string): DockerfileHeredoc[] {
  let words: string[];
  try {
    words = new ShellLex("\\", { rawQuotes: true, rawEscapes: true }).processWords(line);
  } catch (err) {
    if (err instanceof ShellLexError) return [];
    throw err;
  }
  return words.flatMap((word) => parseHeredoc(word) ?? []);
}

/** Leading tabs off every line (`<<-` heredocs). */
export function chompHeredocContent(content: string): string {
  return content.replace(/^\t+/gm, "");
}
