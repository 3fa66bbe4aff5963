/**
 * Dockerfile → the service's build steps, as the service's SDK converts one (docs/service.md#dockerfile-conversion), so
 * a Dockerfile builds through the current build system with nothing but an API key:
 * - FROM is the base image (one stage only); RUN, COPY/ADD, ENV/ARG, WORKDIR and USER become steps;
 *   CMD/ENTRYPOINT become the start command, with a 20 s wait as the ready command;
 * - the steps open with `USER root` and `WORKDIR /` (Docker's defaults) and, unless the Dockerfile
 *   set them, close with `USER user` and `WORKDIR /home/user` (the service's sandbox defaults).
 * What the service cannot build is refused up front, every problem naming its line and instruction,
 * instead of failing minutes into a build. Pure: reads no files (see files-hash.ts for the hashes).
 */
import { posix } from "node:path";
import { SandboxError } from "../errors";
import type { TemplateStep } from "../schemas/builds";
import { readInstructions, words, type DockerInstruction } from "./dockerfile-lines";

/** What a Dockerfile builds: the v2 start body without file hashes, and where each step came from. */
export interface DockerfileBuild {
  fromImage: string;
  steps: TemplateStep[];
  /** The Dockerfile line of each step (same index); undefined for the default USER/WORKDIR steps. */
  lines: (number | undefined)[];
  startCmd?: string;
  readyCmd?: string;
}

/** One thing the service cannot build. */
export interface DockerfileProblem {
  line: number;
  instruction: string;
  message: string;
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
/** Instructions the service's SDK skips: they change nothing a sandbox sees. */
const IGNORED = new Set(["EXPOSE", "VOLUME", "LABEL", "MAINTAINER", "STOPSIGNAL", "HEALTHCHECK"]);
const COPY_FLAGS = new Set(["chown", "chmod", "link"]);

/** What converting one Dockerfile collects as it walks the instructions. */
interface Conversion {
  out: DockerfileBuild;
  first: DockerInstruction | undefined;
  problem: (ins: DockerInstruction, message: string) => void;
  push: (step: TemplateStep, line: number | undefined) => void;
  userSet: boolean;
  workdirSet: boolean;
}

/**
 * Converts a Dockerfile into the v2 build body (without `filesHash`; see withFilesHashes).
 *
 * @throws DockerfileError naming every line the service cannot build.
 */
export function dockerfileToSteps(dockerfile: string): DockerfileBuild {
  const instructions = readInstructions(dockerfile);
  const problems: DockerfileProblem[] = [];
  const problem = (ins: DockerInstruction, message: string) => problems.push({ line: ins.line, instruction: ins.keyword, message });
  const froms = instructions.filter((i) => i.keyword === "FROM");
  if (froms.length === 0) problems.push({ line: instructions[0]?.line ?? 1, instruction: "FROM", message: "a FROM instruction is required" });
  for (const extra of froms.slice(1)) problem(extra, "multi-stage Dockerfiles are not supported (one FROM only)");
  const out: DockerfileBuild = { fromImage: froms[0] ? words(froms[0].text)[0] ?? "" : "", steps: [], lines: [] };
  const push = (step: TemplateStep, line: number | undefined) => {
    out.steps.push(step);
    out.lines.push(line);
  };
  // The service's SDK starts every Dockerfile as root in /, and ends it as `user` in its home
  // unless the file chose otherwise.
  push({ type: "USER", args: ["root"] }, undefined);
  push({ type: "WORKDIR", args: ["/"] }, undefined);
  const conversion: Conversion = { out, first: froms[0], problem, push, userSet: false, workdirSet: false };
  for (const ins of instructions) convertInstruction(ins, conversion);
  if (problems.length > 0) throw new DockerfileError(problems.sort((a, b) => a.line - b.line));
  if (!conversion.userSet) push({ type: "USER", args: ["user"] }, undefined);
  if (!conversion.workdirSet) push({ type: "WORKDIR", args: ["/home/user"] }, undefined);
  return out;
}

/** One instruction: its steps pushed, or its problem noted. */
function convertInstruction(ins: DockerInstruction, c: Conversion): void {
  const { out, problem } = c;
  const one = (type: string, args: string[]) => c.push({ type, args }, ins.line);
  switch (ins.keyword) {
    case "FROM":
      if (c.first === ins && out.fromImage === "") problem(ins, "names no image");
      break;
    case "RUN":
      if (Object.keys(ins.flags).length > 0) problem(ins, `--${Object.keys(ins.flags)[0]} is not supported by the service's builder`);
      else if (commandOf(ins) === "") problem(ins, "has no command");
      else one("RUN", [commandOf(ins)]);
      break;
    case "COPY":
    case "ADD":
      for (const step of copySteps(ins, problem)) c.push(step, ins.line);
      break;
    case "ENV":
    case "ARG": {
      const pairs = envPairs(ins);
      if (pairs.length === 0) problem(ins, "sets nothing");
      else one("ENV", pairs);
      break;
    }
    case "WORKDIR":
      if (ins.text === "") problem(ins, "names no directory");
      else one("WORKDIR", [words(ins.text)[0] ?? ins.text]);
      c.workdirSet = true;
      break;
    case "USER":
      if (ins.text === "") problem(ins, "names no user");
      else one("USER", [words(ins.text)[0] ?? ins.text]);
      c.userSet = true;
      break;
    case "CMD":
    case "ENTRYPOINT":
      out.startCmd = commandOf(ins);
      out.readyCmd = DOCKERFILE_READY_CMD;
      break;
    default:
      if (!IGNORED.has(ins.keyword)) problem(ins, `is not an instruction the service can build (${known(ins.keyword)})`);
  }
}

function known(keyword: string): string {
  return ["SHELL", "ONBUILD"].includes(keyword) ? "supported are FROM, RUN, COPY, ADD, ENV, ARG, WORKDIR, USER, CMD, ENTRYPOINT" : "unknown instruction";
}

/** RUN/CMD/ENTRYPOINT: the JSON form joined with spaces, as the service's SDK does; else the text. */
function commandOf(ins: DockerInstruction): string {
  return ins.json ? ins.json.join(" ") : ins.text;
}

/** One COPY step per source: `[src, dest, user, mode]`. */
function copySteps(ins: DockerInstruction, problem: (ins: DockerInstruction, message: string) => void): TemplateStep[] {
  const bad = Object.keys(ins.flags).filter((f) => !COPY_FLAGS.has(f));
  if (bad.includes("from")) return problem(ins, "--from copies from another stage; multi-stage Dockerfiles are not supported"), [];
  if (bad.length > 0) return problem(ins, `--${bad[0]} is not supported by the service's builder`), [];
  const args = ins.json ?? words(ins.text);
  if (args.length < 2) return problem(ins, "needs at least one source and a destination"), [];
  const mode = ins.flags.chmod ?? "";
  if (mode !== "" && !/^[0-7]{3,4}$/.test(mode)) return problem(ins, `--chmod=${mode} is not an octal mode`), [];
  const dest = args.at(-1)!;
  const steps: TemplateStep[] = [];
  for (const src of args.slice(0, -1)) {
    if (ins.keyword === "ADD" && /^(https?|git|ssh):\/\/|^git@/.test(src)) {
      problem(ins, `a URL source (${src}) cannot be uploaded; fetch it in a RUN step instead`);
    } else if (outsideContext(src)) {
      problem(ins, `source '${src}' is outside the build context`);
    } else {
      steps.push({ type: "COPY", args: [src, dest, ins.flags.chown ?? "", mode === "" ? "" : mode.padStart(4, "0")] });
    }
  }
  return steps;
}

function outsideContext(src: string): boolean {
  if (src.startsWith("/") || /^[a-zA-Z]:[\\/]/.test(src)) return true;
  const normal = posix.normalize(src.replace(/\\/g, "/"));
  return normal === ".." || normal.startsWith("../");
}

/** ENV/ARG as flat `[k1, v1, …]`: `k=v` pairs, the legacy `ENV k v`, and a bare `ARG k` as "". */
function envPairs(ins: DockerInstruction): string[] {
  const items = words(ins.text);
  if (ins.keyword === "ENV" && items.length >= 2 && !items[0]!.includes("=")) {
    const value = ins.text.slice(ins.text.search(/\s/)).trim();
    return [items[0]!, words(value).join(" ")];
  }
  const out: string[] = [];
  for (const item of items) {
    const eq = item.indexOf("=");
    if (eq > 0) out.push(item.slice(0, eq), item.slice(eq + 1));
    else if (ins.keyword === "ARG") out.push(item, "");
  }
  return out;
}
