/**
 * The steps of a v2 build, walked one by one (docs/service.md#build-steps): COPY/ADD place the uploaded
 * files in the template's tree, ENV/ARG (their values evaluated as the builder does: env-value.ts),
 * WORKDIR and USER set the sandbox defaults. RUN is run in a
 * build sandbox where sandboxes are isolated (build-commands.ts); here, where they are not, it is
 * only logged, and a command standing for a failure (`exit N`, `false`: see ../dockerfile.ts)
 * fails the build at that step. Any other type
 * fails as the service's builder does: "command type X is not implemented".
 */
import { exitCodeOf } from "../dockerfile";
import { evaluateEnvValue } from "./env-value";
import { readTar } from "./tar-read";
import { applyCopy, ensureDir, sandboxPath, type TemplateResult } from "./template-tree";

/** A step as the start request sent it. */
export interface BuildStep {
  type: string;
  args?: string[] | undefined;
  filesHash?: string | undefined;
}

/** Why a step failed: the message, and extra log lines (command output) before it. */
export interface StepFailure {
  message: string;
  output?: string;
}

/** Applies one step to `result`; returns the failure, if any. `archive` finds an uploaded archive. */
export function applyStep(result: TemplateResult, step: BuildStep, archive: (hash: string) => Buffer | undefined): StepFailure | undefined {
  const args = step.args ?? [];
  switch (step.type.toUpperCase()) {
    case "RUN": {
      const code = exitCodeOf(args[0] ?? "");
      if (code === 0) return undefined;
      return { message: `failed to run command '${args[0]}': exit status ${code}`, output: `command '${args[0]}' exited with code ${code}` };
    }
    case "COPY":
    case "ADD":
      return copy(result, args, step.filesHash, archive);
    case "ENV":
    case "ARG":
      return setEnv(result, step.type.toUpperCase(), args);
    case "WORKDIR": {
      if (!args[0]) return { message: "WORKDIR needs a path" };
      result.workdir = sandboxPath(args[0], result.workdir);
      ensureDir(result.tree, result.workdir, result.user);
      return undefined;
    }
    case "USER":
      if (!args[0]) return { message: "USER needs a user name" };
      result.user = args[0];
      return undefined;
    default:
      return { message: `command type ${step.type.toUpperCase()} is not implemented` };
  }
}

/** ENV and ARG: each value evaluated as the builder does (env-value.ts), all or none applied (env.go). */
function setEnv(result: TemplateResult, type: string, args: string[]): StepFailure | undefined {
  if (args.length === 0) return { message: `${type} does not support passing no arguments` };
  if (args.length % 2 !== 0) return { message: `${type} requires both a key and value arguments` };
  const env = { ...result.env };
  for (let i = 0; i < args.length; i += 2) {
    const evaluated = evaluateEnvValue(args[i]!, args[i + 1]!);
    if ("failure" in evaluated) return { message: evaluated.failure };
    env[args[i]!] = evaluated.value;
  }
  result.env = env;
  return undefined;
}

function copy(result: TemplateResult, args: string[], hash: string | undefined, archive: (hash: string) => Buffer | undefined): StepFailure | undefined {
  const [src = "", dest = "", owner = "", mode = ""] = args;
  if (!src || !dest) return { message: "COPY needs a source and a destination" };
  const data = hash ? archive(hash) : undefined;
  if (!data) return { message: `files of COPY ${src} ${dest} were not uploaded (filesHash ${hash ?? "missing"})` };
  let members;
  try {
    members = readTar(data);
  } catch (err) {
    return { message: `files of COPY ${src} ${dest} could not be read: ${(err as Error).message}` };
  }
  const placed = applyCopy(result.tree, members, {
    src, dest, owner: owner.split(":")[0] || result.user, mode: mode === "" ? undefined : parseInt(mode, 8), workdir: result.workdir,
  });
  return placed === 0 ? { message: `COPY ${src} ${dest}: '${src}' is not in the uploaded files` } : undefined;
}
