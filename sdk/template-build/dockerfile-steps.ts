/**
 * Dockerfile → the service's build steps, as e2b's SDK converts one (docs/service.md#dockerfile-conversion;
 * e2b 2.63, `template/dockerfile_parser.py`), so a Dockerfile builds through the current build system
 * with nothing but an API key, into the same steps (type and args) that SDK sends:
 * - the text is read as BuildKit reads it (./dockerfile-syntax.ts): heredocs, continuations, quotes;
 * - FROM is the base image (one stage only; `--platform` ignored); RUN, COPY/ADD, ENV/ARG, WORKDIR
 *   and USER become steps; a heredoc RUN runs its script, a heredoc COPY writes its file as root;
 *   CMD and ENTRYPOINT combine, as Docker combines them, into the start command, with a 20 s wait as
 *   the ready command;
 * - words are unquoted as the shell would, `$VAR` kept for the build's shell, except in `--chmod`,
 *   which is resolved from the ARG and ENV values before it, and in FROM, from the ARGs before it
 *   (BuildKit's rule, which the SDK does not follow: it would send `python:${TAG}` as written);
 * - the steps open with `USER root` and `WORKDIR /` (Docker's defaults) and, unless the Dockerfile
 *   set them, close with `USER user` and `WORKDIR /home/user` (the service's sandbox defaults);
 * - flags and instructions the service has no use for are ignored with a warning, as the SDK ignores
 *   them (`RUN --mount`, `COPY --link`, `FROM --platform`, HEALTHCHECK, SHELL, …); EXPOSE, VOLUME,
 *   LABEL and MAINTAINER silently.
 * What the service cannot build is refused up front, every problem naming its line and instruction,
 * instead of failing minutes into a build. The instructions' conversion is ./dockerfile-convert.ts.
 * Pure: reads no files (see files-hash.ts for the hashes).
 */
import { SandboxError } from "../errors";
import type { TemplateStep } from "../schemas/builds";
import { DockerfileSyntaxError, parseDockerfileAst, type DockerfileAst, type DockerfileInstruction } from "./dockerfile-syntax";
import { Converter, type DockerfileProblem } from "./dockerfile-convert";
import { ShellLex, ShellLexError } from "./shell-lex";

export type { DockerfileProblem } from "./dockerfile-convert";

/** What a Dockerfile builds: the v2 start body without file hashes, and where each step came from. */
export interface DockerfileBuild {
  fromImage: string;
  steps: TemplateStep[];
  /** The Dockerfile line of each step (same index); undefined for the default USER/WORKDIR steps. */
  lines: (number | undefined)[];
  startCmd?: string;
  readyCmd?: string;
  /** What the conversion ignored, by line (the SDK prints the same). */
  warnings: DockerfileProblem[];
}

/** Code `invalid_argument`: the Dockerfile uses what the service cannot build; `problems` lists each. */
export class DockerfileError extends SandboxError {
  constructor(readonly problems: DockerfileProblem[]) {
    const lines = problems.map((p) => `Dockerfile line ${p.line}: ${p.instruction}: ${p.message}`);
    super({ code: "invalid_argument", message: lines.join("\n") });
  }
}

/** The ready command the service's SDK gives a CMD/ENTRYPOINT: wait 20 seconds. */
export const DOCKERFILE_READY_CMD = "sleep 20";

/**
 * Converts a Dockerfile into the v2 build body (without `filesHash`; see withFilesHashes).
 *
 * @throws DockerfileError naming every line the service cannot build.
 */
export function dockerfileToSteps(dockerfile: string): DockerfileBuild {
  return astToSteps(parseDockerfileAst(dockerfile));
}

/**
 * Converts a read Dockerfile (./dockerfile-syntax.ts) into the v2 build body.
 *
 * @throws DockerfileError naming every line the service cannot build.
 */
export function astToSteps(ast: DockerfileAst): DockerfileBuild {
  const c = new Converter(ast.escapeToken);
  for (const e of ast.errors) {
    const unknown = e.message.startsWith("unknown instruction: ");
    const message = unknown ? "is not an instruction the service can build (unknown instruction)" : e.message;
    c.problem({ startLine: e.line, name: e.keyword?.toUpperCase() ?? "parser directive" }, message);
  }
  for (const w of ast.warnings) c.warnings.push({ line: w.line, instruction: w.keyword, message: w.message });
  const { instructions } = ast;
  const froms = instructions.filter((i) => i.name === "FROM");
  if (froms.length === 0) {
    c.problems.push({ line: instructions[0]?.startLine ?? ast.errors[0]?.line ?? 1, instruction: "FROM", message: "a FROM instruction is required" });
  }
  for (const extra of froms.slice(1)) c.problem(extra, "multi-stage Dockerfiles are not supported (one FROM only)");
  const first = froms[0];
  const attempt = (ins: DockerfileInstruction, convert: () => void) => {
    try {
      convert();
    } catch (err) {
      if (!(err instanceof DockerfileSyntaxError)) throw err;
      c.problem(ins, err.message);
    }
  };
  let fromImage = "";
  if (first) attempt(first, () => (fromImage = c.from(first, metaArgs(instructions, first, ast.escapeToken))));
  // The SDK starts every Dockerfile as root in /, and ends it as `user` in its home unless the file chose otherwise.
  c.push("USER", ["root"], undefined);
  c.push("WORKDIR", ["/"], undefined);
  for (const ins of instructions) {
    if (ins.name === "FROM") continue;
    if (first && ins.startLine < first.startLine && ins.name !== "ARG") {
      c.problem(ins, "must be preceded by a FROM instruction");
      continue;
    }
    attempt(ins, () => c.instruction(ins));
  }
  const startCmd = c.startCmd();
  if (c.problems.length > 0) throw new DockerfileError(c.problems.sort((a, b) => a.line - b.line));
  if (!c.userChanged) c.push("USER", ["user"], undefined);
  if (!c.workdirChanged) c.push("WORKDIR", ["/home/user"], undefined);
  return {
    fromImage,
    steps: c.steps,
    lines: c.lines,
    ...(startCmd !== undefined ? { startCmd, readyCmd: DOCKERFILE_READY_CMD } : {}),
    warnings: c.warnings.sort((a, b) => a.line - b.line),
  };
}

/**
 * The ARGs declared before the first FROM with a default value, expanded in order: what BuildKit
 * substitutes in FROM when no build argument is given (and the service takes none).
 */
function metaArgs(instructions: readonly DockerfileInstruction[], from: DockerfileInstruction, escapeToken: string): Map<string, string> {
  const values = new Map<string, string>();
  const lex = new ShellLex(escapeToken, { env: values, skipUnsetEnv: false });
  const unquote = new ShellLex(escapeToken);
  for (const ins of instructions) {
    if (ins.startLine >= from.startLine) break;
    if (ins.name !== "ARG") continue;
    for (const arg of ins.args) {
      const eq = arg.indexOf("=");
      try {
        const key = unquote.processWord(eq < 0 ? arg : arg.slice(0, eq));
        if (eq < 0) values.delete(key);
        else values.set(key, lex.processWord(arg.slice(eq + 1)));
      } catch (err) {
        if (!(err instanceof ShellLexError)) throw err;
      }
    }
  }
  return values;
}
