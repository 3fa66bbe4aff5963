/**
 * Just enough Dockerfile reading for the emulator's builds: instructions with their arguments,
 * line continuations and comments, and a plan of build steps with the failures the real builder
 * would report. Nothing is executed; a `RUN exit N` (N ≠ 0) or `RUN false` stands for a failing
 * command, so tests can make a build fail at a known step.
 */
// The sdk's splitter: the provider sends what it reads, so the emulator reads the same lines.
import { dockerfileLines } from "../sdk/template-build/dockerfile-lines";

/** One Dockerfile instruction. */
export interface Instruction {
  /** Upper-cased keyword: FROM, RUN, COPY, … */
  keyword: string;
  /** The rest of the instruction, continuations joined. */
  args: string;
  /** 1-based line where the instruction starts. */
  line: number;
}

/** One step of a planned build. `step` is `base` for FROM, then the 1-based index as a string. */
export interface PlannedStep {
  step: string;
  message: string;
  /** Set when this step fails the build. */
  failure?: { message: string; output: string };
}

/** The steps a build will go through, or why it fails before the first step. */
export type BuildPlan = { ok: true; baseImage: string; steps: PlannedStep[] } | { ok: false; message: string; step: string };

const KNOWN = new Set([
  "FROM", "RUN", "CMD", "LABEL", "MAINTAINER", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT",
  "VOLUME", "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL",
]);

/** Splits a Dockerfile into instructions; comments and blank lines are dropped. */
export function parseDockerfile(text: string): Instruction[] {
  return dockerfileLines(text).map(({ text: whole, line }) => toInstruction(whole, line));
}

function toInstruction(text: string, line: number): Instruction {
  const match = /^(\S+)\s*(.*)$/s.exec(text);
  return { keyword: (match?.[1] ?? "").toUpperCase(), args: (match?.[2] ?? "").trim(), line };
}

/** Plans a build: FROM first (the `base` step), then one step per instruction, failures marked. */
export function planEmulatedBuild(dockerfile: string): BuildPlan {
  const instructions = parseDockerfile(dockerfile);
  const first = instructions[0];
  if (!first || first.keyword !== "FROM" || first.args === "") {
    return { ok: false, message: "Dockerfile must start with a FROM instruction", step: "base" };
  }
  const rest = instructions.slice(1);
  const extraFrom = rest.findIndex((ins) => ins.keyword === "FROM");
  if (extraFrom >= 0) return { ok: false, message: "multi-stage Dockerfiles are not supported", step: String(extraFrom + 1) };
  const baseImage = first.args.split(/\s+/)[0] ?? first.args;
  const steps: PlannedStep[] = [{ step: "base", message: `FROM ${first.args}` }];
  rest.forEach((ins, i) => steps.push(planStep(ins, i + 1, rest.length)));
  return { ok: true, baseImage, steps };
}

function planStep(ins: Instruction, index: number, total: number): PlannedStep {
  const step: PlannedStep = { step: String(index), message: `[${index}/${total}] ${ins.keyword} ${ins.args}`.trimEnd() };
  if (!KNOWN.has(ins.keyword)) {
    step.failure = { message: `unknown instruction: ${ins.keyword} (line ${ins.line})`, output: "" };
  } else if (ins.keyword === "RUN") {
    const code = exitCodeOf(ins.args);
    if (code !== 0) {
      step.failure = {
        message: `failed to run command '${ins.args}': exit status ${code}`,
        output: `command '${ins.args}' exited with code ${code}`,
      };
    }
  }
  return step;
}

/** The exit code a RUN command stands for: `exit N` → N, `false` → 1, anything else → 0. */
export function exitCodeOf(command: string): number {
  const cmd = command.trim();
  if (cmd === "false") return 1;
  const match = /^exit\s+(\d+)$/.exec(cmd);
  return match ? Number(match[1]) % 256 : 0;
}
