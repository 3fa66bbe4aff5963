/**
 * The shell commands e2b 2.63 makes of a Dockerfile's heredocs and exec forms
 * (`template/dockerfile_parser.py`): words quoted as Python's `shlex.quote` quotes them, a heredoc
 * RUN's script, and the script that writes a heredoc COPY's file, its body rewritten so the shell
 * expands it as Docker would. Pure.
 */
import { DockerfileSyntaxError } from "./dockerfile-syntax-error";
import { chompHeredocContent, parseHeredoc, type DockerfileHeredoc } from "./dockerfile-heredoc";
import { pyStrip } from "./dockerfile-words";

/** A word quoted for the shell as Python's `shlex.quote` quotes it. */
export function shellQuote(word: string): string {
  if (word === "") return "''";
  if (!/[^\w@%+=:,./-]/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

export function shellJoin(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}

const VARIABLE_NAME = /\p{Nd}+|[@*#?\-$!0]|[\p{L}\p{N}_]+/uy;

function shellLiteral(ch: string, stopChar?: string): string {
  return "\\`$".includes(ch) || ch === stopChar ? `\\${ch}` : ch;
}

/**
 * An expandable heredoc body rewritten so the shell applies Docker's rules: `$VAR` and `${VAR…}` are
 * substituted, a backslash escapes the next character, everything else (`$(...)` and backticks
 * included) is literal. Backslashes inside `#`, `%` and `/` patterns stay significant to the shell's
 * pattern matching, as they do for Docker.
 */
class HeredocBody {
  private pos = 0;

  constructor(private readonly content: string, private readonly line: number) {}

  private missing(stopChar: string): DockerfileSyntaxError {
    return new DockerfileSyntaxError(`syntax error: missing ${stopChar === "/" ? "'/' in ${}" : "'}'"}`, this.line);
  }

  private name(): string {
    VARIABLE_NAME.lastIndex = this.pos;
    const match = VARIABLE_NAME.exec(this.content);
    if (!match) return "";
    this.pos = VARIABLE_NAME.lastIndex;
    return match[0];
  }

  private variable(): string {
    const { content } = this;
    if (this.pos >= content.length || content[this.pos] !== "{") {
      const varName = this.name();
      return varName === "" ? "\\$" : `$${varName}`;
    }
    this.pos++;
    if (this.pos >= content.length) throw this.missing("}");
    if ("{}:".includes(content[this.pos]!)) throw new DockerfileSyntaxError("syntax error: bad substitution", this.line);
    const varName = this.name();
    if (this.pos >= content.length) throw this.missing("}");
    let modifier = content[this.pos++]!;
    if (modifier === "}") return `\${${varName}}`;
    if (modifier === "/") {
      if (content[this.pos] === "/") {
        modifier += "/";
        this.pos++;
      }
      const pattern = this.scan("/", true);
      return `\${${varName}${modifier}${pattern}/${this.scan("}", true)}}`;
    }
    if (modifier === ":") {
      if (this.pos >= content.length) throw this.missing("}");
      modifier += content[this.pos++]!;
    }
    const op = modifier.at(-1)!;
    const isPattern = op === "#" || op === "%";
    if (!"+-?#%".includes(op) || (modifier.length === 2 && isPattern)) {
      throw new DockerfileSyntaxError(`unsupported modifier (${modifier}) in substitution`, this.line);
    }
    return `\${${varName}${modifier}${this.scan("}", isPattern)}}`;
  }

  scan(stopChar: string | undefined, rawEscapes = false): string {
    const out: string[] = [];
    while (this.pos < this.content.length) {
      const ch = this.content[this.pos++]!;
      if (ch === stopChar) return out.join("");
      if (ch === "\\") {
        if (this.pos < this.content.length) {
          const after = this.content[this.pos++]!;
          out.push(rawEscapes ? `\\${after}` : shellLiteral(after, stopChar));
        }
      } else if (ch === "$") out.push(this.variable());
      else if (ch === "`") out.push("\\`");
      else out.push(ch);
    }
    if (stopChar !== undefined) throw this.missing(stopChar);
    return out.join("");
  }
}

/** A heredoc delimiter that does not occur in the content it wraps. */
function heredocTerminator(name: string, content: string): string {
  let terminator = `E2B_HEREDOC_${name.replace(/[^A-Za-z0-9_]/g, "_")}`;
  while (content.includes(terminator)) terminator += "_";
  return terminator;
}

function withTrailingNewline(content: string): string {
  return content === "" || content.endsWith("\n") ? content : `${content}\n`;
}

function heredocContent(heredoc: DockerfileHeredoc): string {
  return heredoc.chomp ? chompHeredocContent(heredoc.content) : heredoc.content;
}

/** A RUN with heredocs: the script itself for a lone `RUN <<EOF`, else the line with its heredocs put back for the shell. */
export function runWithHeredocs(line: string, heredocs: readonly DockerfileHeredoc[]): string {
  if (heredocs.length === 1 && parseHeredoc(pyStrip(line)) !== undefined) {
    const heredoc = heredocs[0]!;
    const content = heredocContent(heredoc);
    if (!content.startsWith("#!")) return content;
    // A shebang script: written to a temporary file and executed.
    const script = shellQuote(`/tmp/${heredoc.name}`);
    const terminator = heredocTerminator(heredoc.name, content);
    return `cat <<'${terminator}' >${script}\n${withTrailingNewline(content)}${terminator}\nchmod +x ${script} && ${script}\nE2B_EXIT=$?; rm -f ${script}; exit $E2B_EXIT`;
  }
  let full = line;
  for (const heredoc of heredocs) full += `\n${heredoc.content}${heredoc.name}`;
  return full;
}

/** The script of `COPY <<EOF /path`, which writes the heredoc's body to a file in the sandbox (run as root: COPY writes as the builder). */
export function copyHeredocCommand(heredoc: DockerfileHeredoc, dest: string, user: string | undefined, mode: number | undefined, line: number): string {
  let content = heredocContent(heredoc);
  if (heredoc.expand) content = new HeredocBody(content, line).scan(undefined);
  const plain = heredocTerminator(heredoc.name, content);
  const terminator = heredoc.expand ? plain : `'${plain}'`;
  const target = '"$E2B_HEREDOC_DEST"';
  // As in Docker, a destination that is a directory gets a file named after the heredoc.
  let command = dest.endsWith("/")
    ? `E2B_HEREDOC_DEST=${shellQuote(dest + heredoc.name)}\n`
    : `E2B_HEREDOC_DEST=${shellQuote(dest)}\nif [ -d ${target} ]; then E2B_HEREDOC_DEST=${target}/${shellQuote(heredoc.name)}; fi\n`;
  command += `mkdir -p "$(dirname ${target})" && cat <<${terminator} >${target}\n${withTrailingNewline(content)}${plain}`;
  if (user !== undefined) command += `\nchown ${shellQuote(user)} ${target}`;
  if (mode !== undefined) command += `\nchmod ${mode.toString(8)} ${target}`;
  return command;
}
