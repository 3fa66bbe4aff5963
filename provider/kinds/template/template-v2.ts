/**
 * A Template's builds through the service's current build system (docs/service.md#build-sequence), API key
 * only: request a build by name (POST /v3/templates: the template that has the name gets a new
 * build, keeping its ID), upload the COPY archives the service lacks, start the build with its steps.
 * Waiting for it is the same as for v1 builds (./template.ts).
 */
import { uploadMissing } from "../../../sdk/template-build";
import { isSandboxError } from "../../../sdk/errors";
import { platform } from "../../runtime/context";
import type { InputsOf } from "../../runtime/handlers";
import type { Logger } from "../../runtime/log";
import { createOnce, outcomeUnknown } from "../../runtime/outcome";
import { sameValue } from "../../spec";
import { planBuild, type PlannedBuild } from "./steps";

type Inputs = InputsOf<"Template"> & { buildSteps?: string[] | undefined };

/** A build of a template, and its status when it was found (undefined for one just requested). */
export interface BuildRef {
  templateID: string;
  buildID: string;
  status?: string | undefined;
}

/** How many times a start whose answer was lost is sent again (the service refuses a second start). */
const START_ATTEMPTS = 5;

/**
 * Requests a new build of the template named by the alias. The sdk does not repeat this POST when
 * the answer was lost (the service may have registered the build): `find` then looks for it.
 */
export function requestBuild(inputs: Inputs, find: () => Promise<BuildRef | undefined>): Promise<BuildRef> {
  const body = {
    name: inputs.alias ?? "",
    ...(inputs.tags?.length ? { tags: ["default", ...inputs.tags] } : {}),
    ...(inputs.cpuCount !== undefined ? { cpuCount: inputs.cpuCount } : {}),
    ...(inputs.memoryMB !== undefined ? { memoryMB: inputs.memoryMB } : {}),
  };
  return createOnce(async () => {
    const accepted = await platform().builds.request(body);
    return { templateID: accepted.templateID, buildID: accepted.buildID };
  }, find);
}

/**
 * The build `check` planned, planned again from the files as they are now: each COPY step's files
 * read and hashed, the steps the same as `buildSteps`. Called before a build's first call, so a
 * context that changed or cannot be read stops the run before any build call (after a build request, the
 * template would exist with a build that was never started).
 */
export function plannedBuild(inputs: Inputs): PlannedBuild {
  const plan = planBuild(inputs);
  const checked = inputs.buildSteps;
  if (checked !== undefined && !sameValue(plan.lines, checked)) {
    const at = plan.lines.findIndex((line, i) => line !== checked[i]);
    throw new Error(
      `context: its files changed after \`pulumi up\` checked them (step \`${checked[at] ?? ""}\` is now \`${plan.lines[at] ?? ""}\`). ` +
        "No build was requested or started, and nothing was uploaded. Run `pulumi up` again to build the files as they are now.",
    );
  }
  return plan;
}

/**
 * Uploads the COPY archives the build lacks, then starts it with its steps (`plan`, from
 * plannedBuild). A build found already started (the answer to an earlier start was lost, or an
 * interrupted run started it) is left to run: the service cancels a build when a newer one of the
 * template starts, so a second build would only throw the first away.
 */
export async function startBuild(ref: BuildRef, plan: PlannedBuild, log: Logger): Promise<void> {
  const steps = plan.body.steps ?? [];
  const copies = new Set(steps.flatMap((s) => (s.filesHash ? [s.filesHash] : []))).size;
  const sent = await uploadMissing(platform().builds, ref.templateID, steps, plan.contextDir ?? process.cwd());
  if (copies > 0) {
    log(`uploaded the files of ${sent.uploaded.length} of ${copies} COPY step(s) (${sent.bytes} bytes); the service had the others`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await platform().builds.start(ref.templateID, ref.buildID, plan.body);
      log(`started build ${ref.buildID} of template ${ref.templateID} (${steps.length} steps)`);
      return;
    } catch (err) {
      if (isSandboxError(err) && err.reason === "build_not_waiting") {
        log(`build ${ref.buildID} was already started`);
        return;
      }
      if (!outcomeUnknown(err) || attempt >= START_ATTEMPTS) throw err;
    }
  }
}
