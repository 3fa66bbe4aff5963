/** Template create/read/update/delete. The map of calls and the replace rule are in ../specs/template.ts. */
import { isSandboxError } from "../../sdk/errors";
import type { BuildLogEntry, TemplateBuild, TemplateBuildRequest, TemplateWithBuilds } from "../../sdk/schemas/templates";
import { changedFields } from "../diff";
import { REBUILD_INPUTS, templateSpec } from "../specs/template";
import { credentials, platform } from "../runtime/context";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type SpecInputs, type StateOf } from "../runtime/handlers";
import { resourceLogger, type Logger } from "../runtime/log";
import { autoNamed, createOnce } from "../runtime/outcome";
import { PartialCreateError } from "../runtime/partial";
import { wireBody, type WireMap } from "../runtime/wire";

type Inputs = InputsOf<"Template">;
type State = StateOf<"Template">;

interface BuildRef {
  templateID: string;
  buildID: string;
  /** Status of that build when it was found; undefined for a build just started. */
  status?: string | undefined;
}

const logFor = (inputs: Inputs): Logger => resourceLogger("Template", inputs.__resource ?? "", credentials);

export const BUILD_REQUEST: WireMap<SpecInputs<"Template">, TemplateBuildRequest> = {
  dockerfile: (dockerfile) => ({ dockerfile }),
  alias: (alias) => ({ alias }),
  teamID: (teamID) => ({ teamID }),
  startCmd: (startCmd) => ({ startCmd }),
  readyCmd: (readyCmd) => ({ readyCmd }),
  cpuCount: (cpuCount) => ({ cpuCount }),
  memoryMB: (memoryMB) => ({ memoryMB }),
  public: "not sent: one PATCH once the build is ready (setPublic)",
  buildTimeoutSeconds: "not sent: the provider's own deadline for waiting",
};

function buildBody(inputs: Inputs): TemplateBuildRequest {
  return { ...wireBody(BUILD_REQUEST, inputs), dockerfile: inputs.dockerfile };
}

/** The newest build of a template, or the newest with a given status. */
const latest = (t: TemplateWithBuilds, status?: string): TemplateBuild | undefined =>
  t.builds.filter((b) => status === undefined || b.status === status).sort((a, b) => a.createdAt.localeCompare(b.createdAt)).at(-1);

/** A template with this alias, and its latest build: what an interrupted run (or a lost answer) made. */
async function findByAlias(alias: string): Promise<BuildRef | undefined> {
  const listed = (await platform().templates.list()).find((t) => t.aliases.includes(alias));
  if (!listed) return undefined;
  const build = latest(await platform().templates.get(listed.templateID));
  return build && { templateID: listed.templateID, buildID: build.buildID, status: build.status };
}

function describeEntry(e: BuildLogEntry): string {
  return `${e.step ? `step ${e.step}: ` : ""}${e.level === "info" ? "" : `${e.level}: `}${e.message}`;
}

/**
 * Waits for a build to be ready, showing its log lines as they come. A failed or timed-out build
 * throws a PartialCreateError carrying the template, so the engine records it and the next `up`
 * finishes the job (rebuilds a failed build, waits again for one still running).
 */
async function awaitBuild(ref: BuildRef, inputs: Inputs, provider: unknown): Promise<void> {
  const log = logFor(inputs);
  log(`waiting for build ${ref.buildID} of template ${ref.templateID}`);
  const timeoutMs = inputs.buildTimeoutSeconds * 1000;
  try {
    await platform().templates.waitForBuild(ref.templateID, ref.buildID, { timeoutMs, onLog: (e) => log(describeEntry(e)) });
    log(`build ${ref.buildID} is ready`);
  } catch (err) {
    if (!isSandboxError(err) || (err.code !== "build_failed" && err.code !== "timeout")) throw err;
    const outs = await describe(ref.templateID, inputs, err.code === "build_failed" ? err.message : undefined);
    // The sdk's timeout names the build and the time waited; the user also needs the setting that set
    // that deadline, and to know the build goes on. (A request's own timeout has no such reason.)
    const message = err.reason === "deadline"
      ? `${err.message} That is the deadline of buildTimeoutSeconds (${inputs.buildTimeoutSeconds}). The build goes on, and the ` +
        "template is recorded: the next `pulumi up` waits for this same build. Raise buildTimeoutSeconds for longer builds."
      : err.message;
    throw new PartialCreateError(message, ref.templateID, outs, provider);
  }
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
 * Starts a new build of a template. The sdk does not repeat this POST when it got no answer (the
 * service may have started the build), so an unknown outcome is settled the way a create's is, by
 * looking: a build newer than the latest one before the call is the one the call started.
 */
async function startRebuild(templateID: string, inputs: Inputs): Promise<BuildRef> {
  const newest = async () => latest(await platform().templates.get(templateID))?.buildID;
  const before = await newest();
  const started = async (): Promise<BuildRef | undefined> => {
    const buildID = await newest();
    return buildID !== undefined && buildID !== before ? { templateID, buildID } : undefined;
  };
  return createOnce(async () => ({ templateID, buildID: (await platform().templates.rebuild(templateID, buildBody(inputs))).buildID }), started);
}

/** Builds that are running are waited for, failed ones are rebuilt, ready ones are kept. */
async function settle(ref: BuildRef, inputs: Inputs, provider: unknown): Promise<void> {
  if (ref.status === "ready") return;
  const build = ref.status === "error" ? await startRebuild(ref.templateID, inputs) : ref;
  await awaitBuild({ templateID: ref.templateID, buildID: build.buildID }, inputs, provider);
}

export const templateHandlers: ResourceHandlers<"Template"> = {
  async create(inputs) {
    const alias = inputs.alias ?? ""; // `check` always sets it: the user's, or an auto-name
    const adopted = autoNamed(inputs, "alias") ? await findByAlias(alias) : undefined;
    if (adopted) logFor(inputs)(`adopting template ${adopted.templateID} (alias ${alias}) made by an interrupted run`);
    const ref: BuildRef = adopted ?? (await createOnce<BuildRef>(() => platform().templates.create(buildBody(inputs)), () => findByAlias(alias)));
    await settle(ref, inputs, inputs.__provider);
    if (inputs.public === true) await platform().templates.setPublic(ref.templateID, true);
    return { id: ref.templateID, outs: await describe(ref.templateID, inputs) };
  },

  async read(id, olds) {
    try {
      return { id, props: await describe(id, olds) };
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
  },

  async update(id, olds, news) {
    const changed = new Set(changedFields(templateSpec, olds, news));
    const rebuild = REBUILD_INPUTS.some((k) => changed.has(k)) || olds.buildStatus === "error";
    if (rebuild) {
      logFor(news)(`rebuilding template ${id} (${[...changed].filter((k) => k !== "public").join(", ") || "the last build failed"})`);
      await awaitBuild(await startRebuild(id, news), news, news.__provider);
    } else if (olds.buildStatus !== "ready" && typeof olds.latestBuildID === "string" && olds.latestBuildID) {
      await awaitBuild({ templateID: id, buildID: olds.latestBuildID }, news, news.__provider);
    }
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
