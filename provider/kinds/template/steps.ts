/**
 * A Template's Dockerfile and build context → the build the service gets, at `check` time: the v2
 * start body (each COPY step with the hash of its files) and `buildSteps`, one readable line per
 * step. `buildSteps` is stored with the inputs, so an edited context file shows at preview as a
 * change of the COPY step that reads it, and an unchanged Dockerfile and context are no change.
 * The Dockerfile is read and converted as e2b's newest SDK reads and converts it (2.63: BuildKit's
 * syntax, `.dockerignore` rules for the files a COPY step hashes; sdk/template-build), so the same
 * Dockerfile and context make the same steps and hashes; what that conversion ignores comes back
 * as `warnings`. Reads files, calls nothing.
 */
import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
// The modules themselves, not the sdk/template-build index: that also holds the build client, which `check`
// (this file's caller, at every preview) must not load.
import { IgnorePatternError, readDockerignore } from "../../../sdk/template-build/context-files";
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
  /** What the conversion ignored (`Dockerfile line 3: RUN: --mount is ignored (…)`), for the resource's log. */
  warnings: string[];
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
  // Every step says whether it skips the build cache, as the SDK's steps do (a Dockerfile's never do).
  const steps = build.steps.map((converted, i): TemplateStep => {
    const step = { ...converted, force: false };
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
      if (err instanceof IgnorePatternError) {
        if (!problems.some((p) => p.path === "context")) problems.push({ path: "context", reason: `${contextDir}/.dockerignore: ${err.message}` });
        return step;
      }
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
    // Sent either way, as the SDK sends it.
    force: inputs.force === true,
    ...(startCmd !== undefined ? { startCmd } : {}),
    ...(readyCmd !== undefined ? { readyCmd } : {}),
  };
  const lines = [`FROM ${build.fromImage}`, ...steps.map(describeStep), ...(build.startCmd !== undefined ? [`CMD ${build.startCmd}`] : [])];
  const warnings = build.warnings.map((w) => `Dockerfile line ${w.line}: ${w.instruction ? `${w.instruction}: ` : ""}${w.message}`);
  return { body, lines, contextDir, copies, warnings };
}

/**
 * A step as `buildSteps` shows it: the instruction, for COPY the hash of its files, and for a RUN with
 * a user of its own (a heredoc COPY's, which writes as root) that user.
 */
export function describeStep(step: TemplateStep): string {
  const args = step.args ?? [];
  if (step.type === "RUN" && args.length > 1) return `RUN (as ${args[1]}) ${args[0] ?? ""}`.trimEnd();
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
