/**
 * A Template's builds through the service's current build system (docs/service.md#build-sequence), API key
 * only: request a build by name (POST /v3/templates: the template that has the name gets a new
 * build, keeping its ID), upload the COPY archives the service lacks, start the build with its steps.
 * The build is the one `check` planned (./plans.ts): its steps, and the files each COPY step's hash
 * covers, which are read again only to upload the archives the service lacks.
 */
import { uploadMissing } from "../../../sdk/template-build";
import { changedEntry, describeChange } from "../../../sdk/template-build/copy-files";
import { isSandboxError } from "../../../sdk/errors";
import { platform } from "../../runtime/context";
import type { InputsOf } from "../../runtime/handlers";
import type { Logger } from "../../runtime/log";
import { createOnce, outcomeUnknown } from "../../runtime/outcome";
import { sameValue } from "../../spec";
import type { BuildRef, BuildSystem, FindBuild } from "./build-system";
import { checkedPlan } from "./plans";
import { REBUILD_INPUTS } from "./spec";
import { planBuild, type PlannedBuild } from "./steps";

type Inputs = InputsOf<"Template"> & { buildSteps?: string[] | undefined };

/** How many times a start whose answer was lost is sent again (the service refuses a second start). */
const START_ATTEMPTS = 5;

export function v2Build(inputs: Inputs, log: Logger): BuildSystem {
  let planned: PlannedBuild | undefined;
  const plan = () => (planned ??= plannedBuild(inputs));
  // A rebuild goes by name too: the template that has the alias gets the new build.
  const request = (find: FindBuild) => requestBuild(inputs, find);
  return {
    rebuildOn: REBUILD_INPUTS,
    plan,
    first: request,
    again: (_templateID, started) => request(started),
    start: (ref) => startBuild(ref, plan(), log),
    // The service counts the steps from 1 after FROM, as `buildSteps` does (its line 0 is FROM).
    stepLine: (step) => (/^\d+$/.test(step) ? inputs.buildSteps?.[Number(step)] : undefined),
  };
}

/**
 * Requests a new build of the template named by the alias. The sdk does not repeat this POST when
 * the answer was lost (the service may have registered the build): `find` then looks for it.
 */
function requestBuild(inputs: Inputs, find: FindBuild): Promise<BuildRef> {
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

const REFUSED = "No build was requested or started, and nothing was uploaded. Run `pulumi up` again to build the files as they are now.";

/**
 * The build `check` planned, called before a build's first call: a context whose files changed since
 * (told from their listing: a user who edits a file after the preview showed its hash expects that
 * edit neither built unseen nor silently dropped) stops the run before any build call, naming the
 * file (after a build request, the template would exist with a build that was never started).
 * Inputs this process did not check (no plan kept) are planned again and compared, step by step.
 */
function plannedBuild(inputs: Inputs): PlannedBuild {
  const checked = checkedPlan(inputs);
  if (checked !== undefined) {
    for (const files of checked.copies) {
      const changed = changedEntry(files);
      if (changed === undefined) continue;
      const step = checked.lines.find((line) => line.endsWith(`(files ${files.filesHash})`)) ?? `COPY ${files.src} ${files.dest}`;
      throw new Error(`context: its files changed after \`pulumi up\` checked them (${describeChange(changed, files.contextDir)}, read by step \`${step}\`). ${REFUSED}`);
    }
    return checked;
  }
  const plan = planBuild(inputs);
  const lines = inputs.buildSteps;
  if (lines !== undefined && !sameValue(plan.lines, lines)) {
    const at = plan.lines.findIndex((line, i) => line !== lines[i]);
    throw new Error(`context: its files changed after \`pulumi up\` checked them (step \`${lines[at] ?? ""}\` is now \`${plan.lines[at] ?? ""}\`). ${REFUSED}`);
  }
  return plan;
}

/**
 * Uploads the COPY archives the build lacks, then starts it with its steps (`plan`). A build found
 * already started (the answer to an earlier start was lost, or an interrupted run started it) is
 * left to run: the service cancels a build when a newer one of the template starts, so a second
 * build would only throw the first away.
 */
async function startBuild(ref: BuildRef, plan: PlannedBuild, log: Logger): Promise<void> {
  const steps = plan.body.steps ?? [];
  const copies = new Set(plan.copies.map((c) => c.filesHash)).size;
  const sent = await uploadMissing(platform().builds, ref.templateID, plan.copies);
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
