/**
 * Dockerfile text → instructions, as BuildKit reads it (moby/buildkit `frontend/dockerfile/parser`), in
 * the form e2b's SDK uses (PyPI `e2b-dockerfile-utils` 0.1, `syntax.py`, which e2b 2.63 builds
 * templates with): parser directives (`# syntax=`, `# escape=`, `# check=`), comments, line
 * continuations (joined as written: the escape token dropped, the whitespace around it kept; comment
 * lines inside skipped, empty ones skipped with a warning), builder flags (./dockerfile-words.ts), the
 * arguments by keyword (./dockerfile-line-parsers.ts), and heredocs (./dockerfile-heredoc.ts). Where
 * the SDK stops at the first error, this reads on: every instruction it cannot read is one entry of
 * `errors`, with its line. Pure.
 */
import { ShellLexError } from "./shell-lex";
import { DockerfileSyntaxError } from "./dockerfile-syntax-error";
import { heredocsFromLine, type DockerfileHeredoc } from "./dockerfile-heredoc";
import { parseArguments } from "./dockerfile-line-parsers";
import { splitCommand, trimLeadingWhitespace } from "./dockerfile-words";

export { DockerfileSyntaxError } from "./dockerfile-syntax-error";
export { chompHeredocContent, parseHeredoc, type DockerfileHeredoc } from "./dockerfile-heredoc";
export { parseArguments, type ParsedArgs } from "./dockerfile-line-parsers";
export { parseWords, pyStrip } from "./dockerfile-words";

/** One instruction as BuildKit reads it. */
export interface DockerfileInstruction {
  /** Upper-cased keyword: `RUN`, `COPY`, … */
  name: string;
  /** The whole instruction line, continuations joined. */
  original: string;
  /** Builder flags as written, quotes removed: `--chown=user:group`. */
  flags: string[];
  /** The arguments, as the keyword's line parser reads them (./dockerfile-line-parsers.ts). */
  args: string[];
  /** The arguments were given in JSON (exec) form. */
  json: boolean;
  heredocs: DockerfileHeredoc[];
  /** 1-based. */
  startLine: number;
  endLine: number;
}

/** Something BuildKit reads but warns about. */
export interface DockerfileWarning {
  message: string;
  line: number;
  /** The keyword of the instruction it is about, upper-cased. */
  keyword: string;
}

/** A line BuildKit refuses to read, and why. */
export interface DockerfileSyntaxProblem {
  message: string;
  line: number;
  /** The keyword as written, when the problem is one instruction's. */
  keyword?: string;
}

export interface DockerfileAst {
  instructions: DockerfileInstruction[];
  /** `\`, or the token a `# escape=` directive chose. */
  escapeToken: string;
  warnings: DockerfileWarning[];
  /** Empty when the whole text reads. */
  errors: DockerfileSyntaxProblem[];
}

const DIRECTIVE = /^#\s*([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(.+?)\s*$/;
const VALID_DIRECTIVES = new Set(["syntax", "escape", "check"]);
const HEREDOC_INSTRUCTIONS = new Set(["ADD", "COPY", "RUN"]);

function trimNewline(line: string): string {
  return line.replace(/[\r\n]+$/, "");
}

function isComment(line: string): boolean {
  return trimLeadingWhitespace(line).startsWith("#");
}

/** The escape token is a continuation when it is the last non-blank character and not itself escaped. */
function continuationRegExp(token: string): RegExp {
  const t = token === "\\" ? "\\\\" : token;
  return new RegExp(`([^${t}])${t}[ \\t]*$|^${t}[ \\t]*$`);
}

class Directives {
  escapeToken = "\\";
  private continuation = continuationRegExp("\\");
  private done = false;
  private readonly seen = new Set<string>();

  /** Reads a parser directive, which only the first lines may be. */
  possibleParserDirective(line: string): void {
    if (this.done) return;
    const match = DIRECTIVE.exec(line);
    const key = match?.[1]?.toLowerCase();
    if (!match || key === undefined || !VALID_DIRECTIVES.has(key)) {
      this.done = true;
      return;
    }
    if (this.seen.has(key)) throw new DockerfileSyntaxError(`only one ${key} parser directive can be used`);
    this.seen.add(key);
    if (key !== "escape") return;
    const token = match[2]!;
    if (token !== "`" && token !== "\\") throw new DockerfileSyntaxError(`invalid escape token '${token}' does not match \` or \\`);
    this.escapeToken = token;
    this.continuation = continuationRegExp(token);
  }

  /** The line without its continuation token, and whether the instruction ends on it. */
  trimContinuation(line: string): [string, boolean] {
    if (this.continuation.test(line)) return [line.replace(this.continuation, "$1"), false];
    return [line, true];
  }
}

/** One pass over a Dockerfile's lines (with their newlines, as a `bufio.Scanner` that keeps them splits them). */
class Reader {
  readonly directives = new Directives();
  readonly ast: DockerfileAst;
  private readonly lines: string[];
  private index = 0;
  private currentLine = 0;

  constructor(text: string) {
    const content = text.startsWith("\ufeff") ? text.slice(1) : text;
    this.lines = content.match(/[^\n]*\n|[^\n]+$/g) ?? [];
    this.ast = { instructions: [], escapeToken: "\\", warnings: [], errors: [] };
  }

  read(): DockerfileAst {
    while (this.index < this.lines.length) this.instruction();
    this.ast.escapeToken = this.directives.escapeToken;
    return this.ast;
  }

  private next(): string {
    this.currentLine++;
    return this.lines[this.index++]!;
  }

  private processLine(raw: string, stripLeftWhitespace: boolean): string {
    let line = trimNewline(raw);
    if (stripLeftWhitespace) line = trimLeadingWhitespace(line);
    try {
      this.directives.possibleParserDirective(line);
    } catch (err) {
      if (!(err instanceof DockerfileSyntaxError)) throw err;
      this.ast.errors.push({ message: err.message, line: this.currentLine });
    }
    return isComment(line) ? "" : line;
  }

  /** The next instruction's whole line, continuations joined; undefined for a blank or comment line. */
  private logicalLine(): { line: string; startLine: number; emptyContinuation: boolean } | undefined {
    const first = this.next();
    const startLine = this.currentLine;
    let [line, end] = this.directives.trimContinuation(this.processLine(first, true));
    if (end && !line) return undefined;
    let emptyContinuation = false;
    while (!end && this.index < this.lines.length) {
      const raw = this.next();
      const continuation = this.processLine(raw, false);
      if (isComment(raw)) continue;
      if (!trimLeadingWhitespace(trimNewline(raw))) {
        emptyContinuation = true;
        continue;
      }
      let trimmed: string;
      [trimmed, end] = this.directives.trimContinuation(continuation);
      line += trimmed;
    }
    return { line, startLine, emptyContinuation };
  }

  private instruction(): void {
    const logical = this.logicalLine();
    if (!logical) return;
    const { line, startLine } = logical;
    const [command, flags, rest] = splitCommand(line, this.directives.escapeToken);
    const keyword = command.toUpperCase();
    if (logical.emptyContinuation) {
      // BuildKit's warning quotes the whole instruction (`Empty continuation line found in: …`); the line number says which.
      this.ast.warnings.push({ message: "has an empty continuation line, which is skipped (BuildKit warns that it will become an error)", line: this.currentLine, keyword });
    }
    const fail = (err: unknown) => {
      if (!(err instanceof DockerfileSyntaxError || err instanceof ShellLexError)) throw err;
      this.ast.errors.push({ message: err.message, line: startLine, keyword: command });
    };
    try {
      const parsed = parseArguments(keyword, rest, this.directives.escapeToken);
      if (!parsed) throw new DockerfileSyntaxError(`unknown instruction: ${command}`);
      const [args, json] = parsed;
      const instruction: DockerfileInstruction = { name: keyword, original: line, flags, args, json, heredocs: [], startLine, endLine: this.currentLine };
      if (HEREDOC_INSTRUCTIONS.has(keyword) && !json && line.includes("<<")) this.heredocs(instruction);
      this.ast.instructions.push(instruction);
    } catch (err) {
      fail(err);
    }
  }

  /** The bodies of the heredocs the instruction's line opens: the lines after it, each up to its terminator. */
  private heredocs(instruction: DockerfileInstruction): void {
    for (const heredoc of heredocsFromLine(instruction.original)) {
      const content: string[] = [];
      for (;;) {
        if (this.index >= this.lines.length) throw new DockerfileSyntaxError("unterminated heredoc");
        const line = this.next();
        const terminator = heredoc.chomp ? trimNewline(line).replace(/^\t+/, "") : trimNewline(line);
        if (terminator === heredoc.name) break;
        content.push(line);
      }
      instruction.heredocs.push({ ...heredoc, content: content.join("") });
    }
    instruction.endLine = this.currentLine;
  }
}

/** Reads a Dockerfile's text. */
export function parseDockerfileAst(text: string): DockerfileAst {
  return new Reader(text).read();
}
