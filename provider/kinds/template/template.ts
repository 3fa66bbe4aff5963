/**
 * Template create/read/update/delete. The map of calls and the replace rule are in ./spec.ts;
 * the steps `check` derives are in ./steps.ts; the calls of each build system are behind one
 * interface (./build-system.ts: ./template-v2.ts, ./template-v1.ts). Every
 * build is recorded as made from its inputs (./record.ts), so that what an interrupted run
 * left is adopted only when it was made from the inputs of the run that finds it (./adoption.ts).
 */
import { isSandboxError, redact, SandboxError } from "../../../sdk/errors";
import type { BuildLogEntry } from "../../../sdk/schemas/templates";
import { changedFields } from "../../diff";
import { templateSpec } from "./spec";
import { platform } from "../../runtime/context";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type StateOf } from "../../runtime/handlers";
import { resourceLogger, type Logger } from "../../runtime/log";
import { operationWait } from "../../runtime/operation";
import { PartialCreateError } from "../../runtime/partial";
import { derivedSecretKeys, hiddenValues } from "../../runtime/secrets";
import { sameValue } from "../../spec";
import { adoptable, existing, findByAlias, latest, newerInFlight } from "./adoption";
import { passedOverNote } from "../name-claims";
import { claimTemplate } from "./claim";
import { recordBuild } from "./record";
import type { BuildRef, BuildSystem } from "./build-system";
import { buildSystemFor } from "./build-systems";

/** The checked inputs, with what `check` derives (./derive.ts). */
type Inputs = InputsOf<"Template"> & { buildSteps?: string[] | undefined };
type State = StateOf<"Template">;

const logFor = (inputs: Inputs): Logger => resourceLogger("Template", inputs);

/** A build command's output line (`[builder 2/5] [stdout]: …`, `[start] [stderr]: …`): docs/service.md#build-commands. */
const COMMAND_OUTPUT = /^(\[(?:builder \d+\/\d+|start|ready)\] \[(?:stdout|stderr)\]: ).*$/s;

/**
 * One log entry as shown. Where the Dockerfile is secret, a command's output is shown as
 * `[redacted]`: a RUN may print a part of a secret line (`RUN echo $TOKEN`), which no redaction
 * of whole lines or values catches.
 */
/** The hash of a step's layer, which the builder prints after it (`[builder 3/5] RUN … [<sha256>]`). */
const LAYER_HASH = / \[[0-9a-f]{64}\]/g;

function describeEntry(e: BuildLogEntry, secretCommands: boolean): string {
  // A layer's hash covers the step's words: of a step holding a secret (whichever way it is hidden
  // after this), it would let a reader test guesses of a short secret offline. It tells a user nothing
  // the step's own line does not, so it is left out of every line.
  const plain = e.message.replace(LAYER_HASH, "");
  const message = secretCommands ? plain.replace(COMMAND_OUTPUT, "$1[redacted]") : plain;
  return `${e.step ? `step ${e.step}: ` : ""}${e.level === "info" ? "" : `${e.level}: `}${message}`;
}

/**
 * Waits for a build to be ready, showing its log lines as they come. A failed or timed-out build
 * throws a PartialCreateError carrying the template, so the engine records it and the next `up`
 * finishes the job (rebuilds a failed build, waits again for one still running).
 */
async function awaitBuild(ref: BuildRef, inputs: Inputs, system: BuildSystem, provider: unknown): Promise<void> {
  const log = logFor(inputs);
  log(`waiting for build ${ref.buildID} of template ${ref.templateID}`);
  const timeoutMs = inputs.buildTimeoutSeconds * 1000;
  const secretCommands = derivedSecretKeys("Template", inputs).length > 0;
  try {
    await operationWait(
      (signal) => platform().templates.waitForBuild(ref.templateID, ref.buildID, { timeoutMs, signal, onLog: (e) => log(describeEntry(e, secretCommands)) }),
      // `timeout`: recorded below as a partial create, as at buildTimeoutSeconds.
      (why, cause) => new SandboxError({
        code: "timeout",
        message: `Stopped waiting for build ${ref.buildID} of template ${ref.templateID}: ${why}. The build goes on, and the template is ` +
          "recorded: the next `pulumi up` waits for this same build.",
        cause,
      }),
    );
    log(`build ${ref.buildID} is ready`);
  } catch (err) {
    if (!isSandboxError(err) || (err.code !== "build_failed" && err.code !== "timeout")) throw err;
    // Stored: the service's last log lines, which may print what the Dockerfile holds.
    const buildError = err.code === "build_failed" ? redact(err.message, hiddenValues("Template", inputs)) : undefined;
    const outs = await describe(ref.templateID, inputs, buildError);
    // The sdk's timeout names the build and the time waited; the user also needs the setting that set
    // that deadline, and to know the build goes on. (A request's own timeout has no such reason.)
    const message = err.reason === "deadline"
      ? `${err.message} That is the deadline of buildTimeoutSeconds (${inputs.buildTimeoutSeconds}). The build goes on, and the ` +
        "template is recorded: the next `pulumi up` waits for this same build. Raise buildTimeoutSeconds for longer builds."
      : `${err.message}${failedStepOf(err, system)}`;
    throw new PartialCreateError(message, ref.templateID, outs, provider);
  }
}

/** `\nStep 4 is: RUN exit 3`: the failed step as `buildSteps` shows it. */
function failedStepOf(err: unknown, system: BuildSystem): string {
  const step = (err as { build?: { reason?: { step?: string } } }).build?.reason?.step;
  const line = step === undefined ? undefined : system.stepLine(step);
  return line === undefined ? "" : `\nStep ${step} is: ${line}`;
}

/**
 * Outputs: the inputs as given, then what the service reports. `lastBuildError` describes the newest
 * build only while that build is failed: given by the caller that saw it fail, else kept from `inputs`
 * (stored outputs, on refresh); a newer build, or a success, drops it.
 */
async function describe(templateID: string, inputs: Inputs & Partial<Pick<State, "lastBuildError" | "latestBuildID">>, lastBuildError?: string): Promise<State> {
  const t = await platform().templates.get(templateID);
  const newest = latest(t);
  const ready = latest(t, "ready");
  const { lastBuildError: stored, ...given } = inputs;
  const buildError = newest?.status === "error" ? (lastBuildError ?? (newest.buildID === inputs.latestBuildID ? stored : undefined)) : undefined;
  return {
    ...given,
    templateID,
    alias: inputs.alias ?? t.aliases[0] ?? "",
    buildID: ready?.buildID ?? "",
    latestBuildID: newest?.buildID ?? "",
    buildStatus: newest?.status ?? "waiting",
    public: t.public,
    aliases: t.aliases,
    names: t.names,
    envdVersion: ready?.envdVersion ?? "",
    // Before a first ready build: what was asked for, else 0 like the other build facts ("" and 0).
    cpuCount: ready?.cpuCount ?? inputs.cpuCount ?? 0,
    memoryMB: ready?.memoryMB ?? inputs.memoryMB ?? 0,
    diskSizeMB: ready?.diskSizeMB ?? 0,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    buildCount: t.builds.length,
    spawnCount: t.spawnCount,
    ...(typeof buildError === "string" && buildError ? { lastBuildError: buildError } : {}),
  };
}

/**
 * How a rebuild's unknown outcome is settled. The sdk does not repeat a build POST when it got no
 * answer (the service may have started the build), so it is settled the way a create's is, by looking:
 * a build newer than the latest one before the call is the one the call started.
 */
async function startedSince(templateID: string): Promise<() => Promise<BuildRef | undefined>> {
  const newest = async () => latest(await platform().templates.get(templateID))?.buildID;
  const before = await newest();
  return async () => {
    const buildID = await newest();
    return buildID !== undefined && buildID !== before ? { templateID, buildID } : undefined;
  };
}

/**
 * A new build of an existing template, requested, recorded and started. It is planned first, so a
 * changed context stops it before the request. The build system requests it by the template's
 * alias (v2, which keeps the ID while the alias names this template) or by its ID (v1).
 */
async function rebuild(templateID: string, inputs: Inputs, system: BuildSystem): Promise<BuildRef> {
  system.plan();
  const ref = await system.again(templateID, await startedSince(templateID));
  if (ref.templateID !== templateID) {
    throw new Error(
      `The build request for alias "${inputs.alias}" went to template ${ref.templateID}, not ${templateID}: that alias no longer ` +
        "names this template (changed outside Pulumi?). Give the template its alias back, or run `pulumi refresh`.",
    );
  }
  await recordBuild(ref, inputs, logFor(inputs));
  await system.start(ref);
  return ref;
}

/**
 * Takes a build to its end: running ones are waited for, failed ones are rebuilt, ready ones are
 * kept, and a build still waiting (just requested, or requested by an interrupted run) is started first.
 */
async function settle(ref: BuildRef, inputs: Inputs, system: BuildSystem, provider: unknown): Promise<void> {
  if (ref.status === "ready") return;
  let build = ref;
  if (ref.status === "error") build = await rebuild(ref.templateID, inputs, system);
  else if (ref.status === undefined || ref.status === "waiting") await system.start(ref);
  await awaitBuild({ templateID: ref.templateID, buildID: build.buildID }, inputs, system, provider);
}

/** Moves the template's tags to its current build: `news` assigned, the ones dropped removed. */
async function moveTags(alias: string, olds: readonly string[], news: readonly string[]): Promise<void> {
  if (news.length > 0) await platform().builds.assignTags(alias, [...news]);
  const dropped = olds.filter((t) => !news.includes(t));
  if (dropped.length > 0) await ignoreNotFound(() => platform().builds.removeTags(alias, dropped));
}

/** The lines of `news` that differ from `olds` at the same place (none when either side has no steps). */
function changedSteps(olds: readonly string[] | undefined, news: readonly string[] | undefined): string[] {
  if (!olds || !news) return [];
  return news.filter((line, i) => olds[i] !== line);
}

/**
 * A create's failure once the template exists, as a partial create: the engine records the template,
 * so the next `pulumi up` finishes its build (the update below) and `destroy` deletes it. Left out
 * of the state, it would hold its alias, and the next create would refuse a chosen one. When the
 * service cannot describe it either, what the create knows is recorded: the update reads the rest.
 */
async function recorded(err: unknown, ref: BuildRef, inputs: Inputs): Promise<unknown> {
  if (err instanceof PartialCreateError) return err;
  const known = { ...inputs, templateID: ref.templateID, alias: inputs.alias ?? "", latestBuildID: ref.buildID, buildStatus: ref.status ?? "waiting" };
  const outs = await describe(ref.templateID, inputs).catch(() => known);
  const why = err instanceof Error ? err.message : String(err);
  return new PartialCreateError(
    `${why}\nTemplate ${ref.templateID} is recorded: the next \`pulumi up\` goes on with its build, and \`pulumi destroy\` deletes it.`,
    ref.templateID, outs, inputs.__provider,
  );
}

export const templateHandlers: ResourceHandlers<"Template"> = {
  async create(inputs: Inputs) {
    const system = buildSystemFor(inputs, logFor(inputs));
    // Before the first call: once a build is requested the template exists.
    system.plan();
    const passedOver = passedOverNote(templateSpec, inputs, "alias");
    if (passedOver) logFor(inputs)(passedOver);
    const found = await existing(inputs, logFor(inputs));
    const ref: BuildRef = found ?? (await system.first(() => findByAlias(inputs.alias ?? "")));
    try {
      if (!found) await recordBuild(ref, inputs, logFor(inputs));
      if (found && !(await adoptable(found, inputs, logFor(inputs)))) {
        await awaitBuild(await rebuild(found.templateID, inputs, system), inputs, system, inputs.__provider);
      } else {
        await settle(ref, inputs, system, inputs.__provider);
      }
      if (inputs.public === true) await platform().templates.setPublic(ref.templateID, true);
      const outs = await describe(ref.templateID, inputs);
      await claimTemplate(ref.templateID, logFor(inputs));
      return { id: ref.templateID, outs };
    } catch (err) {
      // Recorded part way (the engine keeps it): claimed as well.
      const partial = await recorded(err, ref, inputs);
      await claimTemplate(ref.templateID, logFor(inputs));
      throw partial;
    }
  },

  async read(id, olds) {
    try {
      return { id, props: await describe(id, olds) };
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
  },

  async update(id, olds, news: Inputs) {
    const log = logFor(news);
    const changed = new Set(changedFields(templateSpec, olds, news));
    const system = buildSystemFor(news, log);
    const rebuildOn = system.rebuildOn;
    const forced = news.force === true && olds.force !== true;
    const why = [...rebuildOn.filter((k) => changed.has(k)), ...(forced ? ["force"] : [])];
    const newer = why.length > 0 || olds.buildStatus === "error" ? await newerInFlight(id, olds.latestBuildID) : undefined;
    const inFlight = newer && (await adoptable(newer, news, log)) ? newer : undefined;
    if (inFlight) {
      // A second build would cancel this one (the service keeps the newest): wait for it instead.
      log(`adopting build ${inFlight.buildID} of template ${id}, started by an interrupted run`);
      await settle(inFlight, news, system, news.__provider);
    } else if (why.length > 0 || olds.buildStatus === "error") {
      log(`rebuilding template ${id} (${why.join(", ") || "the last build failed"})`);
      for (const step of changedSteps(olds.buildSteps, news.buildSteps)) log(`changed step: ${step}`);
      await awaitBuild(await rebuild(id, news, system), news, system, news.__provider);
    } else if (olds.buildStatus !== "ready" && typeof olds.latestBuildID === "string" && olds.latestBuildID) {
      const status = (await platform().templates.get(id)).builds.find((b) => b.buildID === olds.latestBuildID)?.status;
      await settle({ templateID: id, buildID: olds.latestBuildID, status }, news, system, news.__provider);
    } else if (changed.has("dockerfile") && !rebuildOn.includes("dockerfile")) {
      log("the Dockerfile's steps are unchanged (an edit of comments or spacing): nothing to rebuild");
    }
    // A build made here was built into the new tags; a tag dropped at the same time keeps naming the
    // build it was given to, so a TemplateTag can still roll back to it. Without a build, a dropped tag is removed.
    const built = inFlight !== undefined || why.length > 0 || olds.buildStatus === "error";
    if (!sameValue(olds.tags ?? [], news.tags ?? [])) await moveTags(news.alias ?? id, built ? [] : (olds.tags ?? []), news.tags ?? []);
    if (olds.public !== news.public) await platform().templates.setPublic(id, news.public === true);
    return { outs: await describe(id, news) };
  },

  async delete(id) {
    try {
      await ignoreNotFound(() => platform().templates.delete(id));
    } catch (err) {
      if (isSandboxError(err) && err.reason === "template_in_use") {
        throw new Error(`${err.service?.message ?? err.message}. Delete those sandboxes (or let them expire), then run \`pulumi destroy\` again.`);
      }
      throw err;
    }
  },
};
