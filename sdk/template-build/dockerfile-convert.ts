/**
 * One Dockerfile's conversion into the service's build steps, instruction by instruction, as e2b 2.63's
 * `_DockerfileConverter` (`template/dockerfile_parser.py`) makes them; ./dockerfile-steps.ts runs it.
 * Words are unquoted as the shell would (./shell-lex.ts), `$VAR` kept for the build's shell, except in
 * `--chmod` (resolved from the ARG and ENV values before it) and in FROM (from the ARGs before it).
 */
import { isAbsolute, normalize, sep } from "node:path";
import type { TemplateStep } from "../schemas/builds";
import { DockerfileSyntaxError } from "./dockerfile-syntax-error";
import { parseHeredoc } from "./dockerfile-heredoc";
import type { DockerfileInstruction } from "./dockerfile-syntax";
import { ADD_FLAGS, COPY_FLAGS, FROM_FLAGS, parseFlags, RUN_FLAGS, type FlagSpecs } from "./dockerfile-flags";
import { copyHeredocCommand, runWithHeredocs, shellJoin } from "./dockerfile-heredoc-commands";
import { ShellLex, ShellLexError } from "./shell-lex";

/** One thing the service cannot build, or (as a warning) one thing the conversion ignored. */
export interface DockerfileProblem {
  line: number;
  instruction: string;
  message: string;
}

/** Metadata-only instructions that mean nothing for a template: dropped without a word, as the SDK drops them. */
const SILENT = new Set(["EXPOSE", "VOLUME", "LABEL", "MAINTAINER"]);
/** Instructions the SDK skips with a warning: what each means for the build. */
const SKIPPED: Record<string, string> = {
  SHELL: "RUN commands run with `/bin/bash -l -c` whatever it names",
  HEALTHCHECK: "a sandbox has no health check",
  STOPSIGNAL: "a sandbox has no stop signal",
  ONBUILD: "a template's builds do not run it",
};

const CHMOD = /^[0-7]{3,4}$/;
const REMOTE_URL = /^[a-z][a-z0-9+.-]*:\/\/|^git@/i;

interface StartCommand {
  json: boolean;
  args: string[];
}

/** One Dockerfile's conversion, instruction by instruction (the SDK's `_DockerfileConverter`). */
export class Converter {
  readonly steps: TemplateStep[] = [];
  readonly lines: (number | undefined)[] = [];
  readonly problems: DockerfileProblem[] = [];
  readonly warnings: DockerfileProblem[] = [];
  userChanged = false;
  workdirChanged = false;
  private cmd: StartCommand | undefined;
  private entrypoint: StartCommand | undefined;
  private readonly lex: ShellLex;
  /** The ARG and ENV values so far, expanded: what `--chmod` is resolved from. */
  private readonly vars = new Map<string, string>();
  private readonly envLex: ShellLex;

  constructor(private readonly escapeToken: string) {
    this.lex = new ShellLex(escapeToken);
    this.envLex = new ShellLex(escapeToken, { env: this.vars, skipUnsetEnv: false });
  }

  push(type: string, args: string[], line: number | undefined): void {
    this.steps.push({ type, args });
    this.lines.push(line);
  }

  /** `message` as BuildKit words it, without the keyword it may start with (the line names it). */
  problem(ins: Pick<DockerfileInstruction, "startLine" | "name">, message: string): void {
    const own = message.startsWith(`${ins.name} `) ? message.slice(ins.name.length + 1) : message;
    this.problems.push({ line: ins.startLine, instruction: ins.name, message: own });
  }

  warn(ins: Pick<DockerfileInstruction, "startLine" | "name">, message: string): void {
    this.warnings.push({ line: ins.startLine, instruction: ins.name, message });
  }

  /** Quotes and escapes resolved, `$VAR` kept (or, with `lex`, resolved). */
  expand(ins: DockerfileInstruction, word: string, lex = this.lex): string {
    try {
      return lex.processWord(word);
    } catch (err) {
      if (err instanceof ShellLexError) throw new DockerfileSyntaxError(err.message, ins.startLine);
      throw err;
    }
  }

  /** The image FROM names, ARGs declared before it substituted (BuildKit's rule). */
  from(ins: DockerfileInstruction, metaArgs: ReadonlyMap<string, string>): string {
    this.flags(ins, FROM_FLAGS);
    const { args } = ins;
    if (!(args.length === 1 || (args.length === 3 && args[1]!.toLowerCase() === "as"))) {
      throw new DockerfileSyntaxError("FROM requires either one or three arguments");
    }
    const unset = new Set<string>();
    const env = { get: (name: string) => (metaArgs.has(name) ? metaArgs.get(name) : void unset.add(name)) };
    const image = this.expand(ins, args[0]!, new ShellLex(this.escapeToken, { env, skipUnsetEnv: false }));
    if (image === "") throw new DockerfileSyntaxError(`names no image${unset.size > 0 ? ` ('${args[0]}' with ${[...unset].join(", ")} unset)` : ""}`);
    for (const name of unset) {
      this.warn(ins, `${name} has no value in '${args[0]}' (no ARG before FROM gives it a default, and the service takes no build arguments): the image is ${image}`);
    }
    return image;
  }

  instruction(ins: DockerfileInstruction): void {
    switch (ins.name) {
      case "RUN":
        return this.run(ins);
      case "COPY":
        return this.copy(ins, COPY_FLAGS);
      case "ADD":
        return this.copy(ins, ADD_FLAGS);
      case "WORKDIR":
        this.push("WORKDIR", [this.single(ins)], ins.startLine);
        this.workdirChanged = true;
        return;
      case "USER":
        this.push("USER", [this.single(ins)], ins.startLine);
        this.userChanged = true;
        return;
      case "ENV":
        return this.env(ins);
      case "ARG":
        return this.arg(ins);
      case "CMD":
        this.flags(ins, {});
        this.cmd = { json: ins.json, args: ins.args };
        return;
      case "ENTRYPOINT":
        this.flags(ins, {});
        this.entrypoint = { json: ins.json, args: ins.args };
        return;
      default:
        if (SILENT.has(ins.name)) return;
        this.warn(ins, `is ignored (${SKIPPED[ins.name] ?? "the service's builder does not support it"})`);
    }
  }

  private single(ins: DockerfileInstruction): string {
    this.flags(ins, {});
    if (ins.args.length !== 1) throw new DockerfileSyntaxError(`${ins.name} requires exactly one argument`);
    return this.expand(ins, ins.args[0]!);
  }

  /** The instruction's flags (./dockerfile-flags.ts), what the SDK ignores warned about. */
  private flags(ins: DockerfileInstruction, specs: FlagSpecs): Map<string, string> {
    return parseFlags(ins, specs, (message) => this.warn(ins, message));
  }

  private run(ins: DockerfileInstruction): void {
    this.flags(ins, RUN_FLAGS);
    const { args } = ins;
    if (args.length === 0) throw new DockerfileSyntaxError("RUN requires at least one argument");
    let command: string;
    if (ins.json) command = shellJoin(args);
    else if (ins.heredocs.length > 0) command = runWithHeredocs(args[0]!, ins.heredocs);
    else command = args[0]!;
    this.push("RUN", [command], ins.startLine);
  }

  private copy(ins: DockerfileInstruction, specs: FlagSpecs): void {
    const flags = this.flags(ins, specs);
    if (ins.args.length < 2) throw new DockerfileSyntaxError(`${ins.name} requires at least two arguments`);
    const chown = flags.get("chown");
    const user = chown === undefined ? undefined : this.expand(ins, chown);
    let mode: number | undefined;
    const chmodFlag = flags.get("chmod");
    if (chmodFlag !== undefined) {
      const chmod = this.expand(ins, chmodFlag);
      const resolved = this.expand(ins, chmodFlag, this.envLex);
      if (!CHMOD.test(resolved)) {
        const detail = resolved === chmod ? "" : ` (resolves to "${resolved}")`;
        throw new DockerfileSyntaxError(`invalid chmod value "${chmod}"${detail}, expected an octal mode such as 0755`);
      }
      mode = parseInt(resolved, 8);
    }
    // Heredoc markers are recognised on the raw words: a quoted "<<EOF" is a file name.
    const rawDest = ins.args.at(-1)!;
    if (parseHeredoc(rawDest) !== undefined) throw new DockerfileSyntaxError(`${ins.name} cannot accept a heredoc as a destination`);
    const dest = this.expand(ins, rawDest);
    const heredocs = new Map(ins.heredocs.map((h) => [h.name, h]));
    for (const rawSrc of ins.args.slice(0, -1)) {
      const marker = parseHeredoc(rawSrc);
      if (marker !== undefined) {
        const heredoc = heredocs.get(marker.name);
        if (heredoc === undefined) throw new DockerfileSyntaxError(`missing heredoc content for ${marker.name}`);
        this.push("RUN", [copyHeredocCommand(heredoc, dest, user, mode, ins.startLine), "root"], ins.startLine);
        continue;
      }
      const src = this.expand(ins, rawSrc);
      if (ins.name === "ADD" && REMOTE_URL.test(src)) this.problem(ins, `a URL source (${src}) cannot be uploaded; fetch it in a RUN step instead`);
      else if (outsideContext(src)) this.problem(ins, `source '${src}' is outside the build context`);
      else this.push("COPY", [src, dest, user ?? "", mode === undefined ? "" : mode.toString(8).padStart(4, "0")], ins.startLine);
    }
  }

  private env(ins: DockerfileInstruction): void {
    this.flags(ins, {});
    const { args } = ins;
    if (args.length === 0) throw new DockerfileSyntaxError("ENV requires at least one argument");
    const envs = new Map<string, string>();
    for (let i = 0; i < args.length - 2; i += 3) {
      const key = this.expand(ins, args[i]!);
      if (key === "") throw new DockerfileSyntaxError("ENV names can not be blank");
      envs.set(key, this.expand(ins, args[i + 1]!));
      this.vars.set(key, this.expand(ins, args[i + 1]!, this.envLex));
    }
    this.setEnvs(envs, ins.startLine);
  }

  private arg(ins: DockerfileInstruction): void {
    this.flags(ins, {});
    if (ins.args.length === 0) throw new DockerfileSyntaxError("ARG requires at least one argument");
    const envs = new Map<string, string>();
    for (const arg of ins.args) {
      const eq = arg.indexOf("=");
      const key = this.expand(ins, eq < 0 ? arg : arg.slice(0, eq));
      if (key === "") throw new DockerfileSyntaxError("ARG names can not be blank");
      envs.set(key, eq < 0 ? "" : this.expand(ins, arg.slice(eq + 1)));
      this.vars.set(key, eq < 0 ? "" : this.expand(ins, arg.slice(eq + 1), this.envLex));
    }
    this.setEnvs(envs, ins.startLine);
  }

  private setEnvs(envs: ReadonlyMap<string, string>, line: number): void {
    if (envs.size > 0) this.push("ENV", [...envs].flat(), line);
  }

  /**
   * ENTRYPOINT and CMD combined as Docker combines them: an exec-form ENTRYPOINT gets CMD appended as
   * arguments (a shell-form CMD as `/bin/sh -c <cmd>`), a shell-form ENTRYPOINT ignores CMD, and
   * without an ENTRYPOINT the CMD is the command.
   */
  startCmd(): string | undefined {
    const { cmd, entrypoint } = this;
    let command: string | undefined;
    if (entrypoint !== undefined) {
      if (entrypoint.json) {
        const words = [...entrypoint.args];
        if (cmd !== undefined) {
          if (cmd.json) words.push(...cmd.args);
          else if (cmd.args.length > 0) words.push("/bin/sh", "-c", cmd.args[0]!);
        }
        command = words.length > 0 ? shellJoin(words) : undefined;
      } else {
        command = entrypoint.args[0];
      }
    } else if (cmd !== undefined) {
      command = cmd.json ? (cmd.args.length > 0 ? shellJoin(cmd.args) : undefined) : cmd.args[0];
    }
    return command !== undefined && command.trim() !== "" ? command : undefined;
  }
}

/** What the SDK refuses as a COPY source (`validate_relative_path`): an absolute path, or one that climbs out of the context. */
function outsideContext(src: string): boolean {
  if (isAbsolute(src)) return true;
  const normal = normalize(src);
  return normal === ".." || normal.startsWith(`..${sep}`);
}
