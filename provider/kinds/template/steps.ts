/**
 * A Template's Dockerfile and build context → the build the service gets, at `check` time: the v2
 * start body (each COPY step with the hash of its files) and `buildSteps`, one readable line per
 * step. `buildSteps` is stored with the inputs, so an edited context file shows at preview as a
 * change of the COPY step that reads it, and an unchanged Dockerfile and context are no change.
 * Reads files, calls nothing.
 */
import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
// The modules themselves, not the sdk/template-build index: that also holds the build client, which `check`
// (this file's caller, at every preview) must not load.
import { readDockerignore } from "../../../sdk/template-build/context-files";
import { dockerfileToSteps, DockerfileError, type DockerfileBuild, type DockerfileProblem } from "../../../sdk/template-build/dockerfile-steps";
import { copyFiles, type CopyFiles } from "../../../sdk/template-build/copy-files";
import { isSandboxError } from "../../../sdk/errors";
import type { TemplateBuildStartV2, TemplateStep } from "../../../sdk/schemas/builds";

/** What `check` needs of a Template's inputs to plan its build. */
export interface StepInputs {
  dockerfile: string;
  context?: string | undefined;
  startCmd?: string | undefined;
  readyCmd?: string | undefined;
  force?: boolean | undefined;
}

/**
 * A planned build: the v2 start body, the lines `buildSteps` shows, the context it reads, and each
 * COPY step's files as they were hashed (what its upload sends, ./template-v2.ts).
 */
export interface PlannedBuild {
  body: TemplateBuildStartV2;
  lines: string[];
  /** Absolute; undefined when the template has no context. */
  contextDir: string | undefined;
  copies: CopyFiles[];
}

/** One thing that stops the plan: the input it is about and why. */
export interface PlanProblem {
  path: "dockerfile" | "context";
  reason: string;
}

/** Thrown by planBuild with every problem found. */
export class PlanError extends Error {
  constructor(readonly problems: PlanProblem[]) {
    super(problems.map((p) => `${p.path}: ${p.reason}`).join("\n"));
  }
}

/**
 * The context directory: relative to the working directory of the provider, which the engine starts in
 * the Pulumi project's directory (the program's too), so a relative path means the same for both.
 */
export function contextDirOf(context: string | undefined): string | undefined {
  if (context === undefined) return undefined;
  return isAbsolute(context) ? context : resolve(process.cwd(), context);
}

/**
 * Plans the build. `hashFiles` false (the v1 build system, which uploads nothing) lists COPY steps
 * without hashes and needs no context.
 *
 * @throws PlanError naming each Dockerfile line the service cannot build (or the context's problem).
 */
export function planBuild(inputs: StepInputs, hashFiles = true): PlannedBuild {
  let build: DockerfileBuild;
  try {
    build = dockerfileToSteps(inputs.dockerfile);
  } catch (err) {
    if (err instanceof DockerfileError) throw new PlanError(err.problems.map(dockerfileProblem));
    throw err;
  }
  const contextDir = hashFiles ? checkedContext(inputs.context) : undefined;
  const problems: PlanProblem[] = [];
  const ignore = contextDir ? readDockerignore(contextDir) : [];
  const copies: CopyFiles[] = [];
  const steps = build.steps.map((step, i): TemplateStep => {
    if (!hashFiles || step.type !== "COPY") return step;
    const [src = "", dest = ""] = step.args ?? [];
    const line = build.lines[i] ?? 0;
    if (contextDir === undefined) {
      problems.push(dockerfileProblem({ line, instruction: "COPY", message: `copies '${src}' from the build context: set the \`context\` input to the directory that holds it` }));
      return step;
    }
    try {
      const files = copyFiles(src, dest, contextDir, ignore);
      copies.push(files);
      return { ...step, filesHash: files.filesHash };
    } catch (err) {
      if (!isSandboxError(err) || err.code !== "invalid_argument") throw err;
      problems.push(dockerfileProblem({ line, instruction: "COPY", message: `'${src}' matches no file in the context ${contextDir}` }));
      return step;
    }
  });
  if (problems.length > 0) throw new PlanError(problems);
  const startCmd = inputs.startCmd ?? build.startCmd;
  const readyCmd = inputs.readyCmd ?? build.readyCmd;
  const body: TemplateBuildStartV2 = {
    fromImage: build.fromImage,
    steps,
    ...(inputs.force === true ? { force: true } : {}),
    ...(startCmd !== undefined ? { startCmd } : {}),
    ...(readyCmd !== undefined ? { readyCmd } : {}),
  };
  const lines = [`FROM ${build.fromImage}`, ...steps.map(describeStep), ...(build.startCmd !== undefined ? [`CMD ${build.startCmd}`] : [])];
  return { body, lines, contextDir, copies };
}

/** A step as `buildSteps` shows it: the instruction, and for COPY the hash of its files. */
export function describeStep(step: TemplateStep): string {
  const args = step.args ?? [];
  if (step.type !== "COPY") return `${step.type} ${step.type === "ENV" ? pairs(args) : args.join(" ")}`.trimEnd();
  const [src = "", dest = "", user = "", mode = ""] = args;
  const flags = `${user ? ` --chown=${user}` : ""}${mode ? ` --chmod=${mode}` : ""}`;
  return `COPY${flags} ${src} ${dest}${step.filesHash ? ` (files ${step.filesHash})` : ""}`;
}

function pairs(args: string[]): string {
  const out: string[] = [];
  for (let i = 0; i + 1 < args.length; i += 2) out.push(`${args[i]}=${args[i + 1]}`);
  return out.join(" ");
}

function dockerfileProblem(p: DockerfileProblem): PlanProblem {
  return { path: "dockerfile", reason: `line ${p.line}: ${p.instruction}: ${p.message}` };
}

function checkedContext(context: string | undefined): string | undefined {
  const dir = contextDirOf(context);
  if (dir === undefined) return undefined;
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new PlanError([{ path: "context", reason: `${dir} does not exist (a relative path is read from the Pulumi project's directory, ${process.cwd()})` }]);
  }
  if (!isDir) throw new PlanError([{ path: "context", reason: `${dir} is not a directory` }]);
  return dir;
}
