/**
 * Runs one template build on a timer: `waiting` for the first fifth of the build delay, then
 * `building` with about one log entry per Dockerfile instruction spread over the rest, then
 * `ready` or `error` (with a reason naming the failing step, as the real builder reports it). A v2
 * build's RUN steps and start/ready commands run for real where sandboxes are isolated
 * (build-commands.ts), each action then lasting as long as its command.
 * As on the service, a good build's last log line ("Build finished, took 6s") comes before `ready`:
 * the builder logs it when it returns, and the API learns of the end on its next poll of the
 * builder, once a second (infra: api/internal/template-manager/template_status.go).
 */
import { createHash } from "node:crypto";
import { planEmulatedBuild, type PlannedStep } from "../dockerfile";
import { ensureUser, runCommandStep, runStartAndReady, type BuildHost } from "./build-commands";
import { fromImage } from "./build-image";
import type { ImageRoots } from "./image-roots";
import type { BuildHold } from "./build-hold";
import { applyStep, type StepFailure } from "./build-steps";
import type { BuildLogEntry, BuildRecord, LogLevel, V2BuildSpec } from "./template-records";
import { cloneResult, emptyResult, type TemplateResult } from "./template-tree";

/** What a v2 build needs besides its record: the uploaded archives and its base template's result. */
export interface V2Inputs {
  archive: (hash: string) => Buffer | undefined;
  /** The result of `fromTemplate`'s ready build; undefined when there is no such template. */
  base: TemplateResult | undefined;
  /** Receives the result of a build that ends ready. */
  done: (result: TemplateResult) => void;
  /** What a build from a template starts from (its base build), the first link of its layers' hash chain. */
  baseKey: string;
  /** Where FROM images are pulled and unpacked; undefined: on the host's system dirs (build-image.ts). */
  images?: ImageRoots | undefined;
  /**
   * The layers built before, kept across builds, by hash: a step whose hash is here is CACHED, and
   * what the build has after it (its files included, a RUN's changes too) is taken from the layer.
   */
  layers: Map<string, TemplateResult>;
  /** Where RUN steps and the start and ready commands run; undefined without isolation (see build-steps.ts). */
  host: BuildHost | undefined;
}

/** One action of a build: advances it by one step, and says whether the build is over. */
type Action = () => boolean | Promise<boolean>;

/** Stops a build that has not finished; it ends in `error` with the given reason. */
export type CancelBuild = (reason: string) => void;

/** Share of the build delay spent `waiting` before `building`. */
const WAITING_SHARE = 0.2;
/** Longest pause between the builder's last line and `ready`: the API polls the builder every second. */
const MAX_READY_LAG_MS = 1000;

/**
 * Starts the timer chain of `build` (which must be `waiting`). `delayMs` is the whole duration of a
 * successful build, plus `stepMs` for each step; `onDone` runs once, when the build reaches `ready` or `error`.
 * While `hold` is on, the build waits before its last action (./build-hold.ts).
 */
export function runBuild(build: BuildRecord, delayMs: number, onDone: (build: BuildRecord) => void, v2?: V2Inputs, stepMs = 0, hold?: BuildHold): CancelBuild {
  // Aborted when the build is cancelled: a command still running in a build sandbox is ended.
  const cancelled = new AbortController();
  const actions = build.spec && v2 ? v2Actions(build, build.spec, v2, cancelled.signal) : buildActions(build);
  // A v2 start hands the build to the builder and marks it building before its 202 goes out
  // (infra: packages/api/internal/template-manager/create_template.go, BuildStatusGroupInProgress).
  if (build.spec && v2) build.status = "building";
  const tick = (delayMs * (1 - WAITING_SHARE)) / actions.length + stepMs;
  let timer: NodeJS.Timeout | undefined;
  let index = 0;
  let finished = false;
  const finish = () => {
    finished = true;
    timer = undefined;
    onDone(build);
  };
  const next = async () => {
    timer = undefined;
    // Only a build that gets to its end (`ready`) waits: one refused at its start is not held.
    if (hold && index > 0 && index === actions.length - 1) {
      await hold.passed();
      // Cancelled while held: the build already ended in error.
      if (finished) return;
    }
    const done = await Promise.resolve(actions[index++]!()).catch((err: unknown) => {
      // A build sandbox that could not be made (its namespace setup failed): the build ends there.
      const message = `the emulator could not run the build: ${(err as Error).message}`;
      fail(build, { message, logEntries: [log(build, "error", message)] });
      return true;
    });
    // Cancelled while a command ran: the build already ended in error.
    if (finished) return;
    if (done || index >= actions.length) return finish();
    timer = setTimeout(() => void next(), index === actions.length - 1 ? Math.min(tick, MAX_READY_LAG_MS) : tick).unref();
  };
  timer = setTimeout(() => void next(), delayMs * WAITING_SHARE).unref();
  return (reason) => {
    if (finished) return;
    clearTimeout(timer);
    cancelled.abort();
    log(build, "error", reason);
    fail(build, { message: reason });
    finish();
  };
}

/** Each action advances the build by one step and returns true when the build is over. */
function buildActions(build: BuildRecord): Action[] {
  const plan = planEmulatedBuild(build.dockerfile);
  const start = () => {
    build.status = "building";
    log(build, "info", `Building template ${build.templateID}, build ${build.buildID}`);
    if (plan.ok) return false;
    const entry = log(build, "error", plan.message, plan.step);
    fail(build, { message: plan.message, step: plan.step, logEntries: [entry] });
    return true;
  };
  if (!plan.ok) return [start];
  return [start, ...plan.steps.map((step) => () => runStep(build, step)), () => finalize(build), () => finished(build), () => succeed(build)];
}

/** A v2 build: the base, then each requested step applied to the result, then finalize. */
function v2Actions(build: BuildRecord, spec: V2BuildSpec, inputs: V2Inputs, signal: AbortSignal): Action[] {
  let result = emptyResult();
  const total = spec.steps.length;
  let hashes: string[] = [];
  const start = async () => {
    build.status = "building";
    log(build, "info", `Building template ${build.templateID}, build ${build.buildID}`);
    const base = await baseOf(build, spec, inputs, signal);
    if (!base) return true;
    result = base.result;
    hashes = layerHashes(base.key, spec.steps);
    return false;
  };
  const steps = spec.steps.map((step, i) => async () => {
    const index = String(i + 1);
    const hash = hashes[i]!;
    // A step whose layer was built before, and not forced, is taken from the cache and says so; the
    // line is the builder's `[CACHED ][builder i/n] TYPE args [layer hash]` (infra:
    // packages/orchestrator/pkg/template/build/phases/phase.go, layerInfo; steps/builder.go, Prefix, Layer).
    const layer = !spec.force && step.force !== true ? inputs.layers.get(hash) : undefined;
    const cached = layer !== undefined;
    const text = `${step.type.toUpperCase()} ${(step.args ?? []).join(" ")}`.trimEnd();
    log(build, "info", `${cached ? "CACHED " : ""}[builder ${index}/${total}] ${text} [${hash}]`, index);
    if (layer) {
      result = cloneResult(layer);
      return false;
    }
    const failure = await buildStep(build, result, step, { inputs, signal, prefix: `builder ${index}/${total}` });
    if (!failure) {
      inputs.layers.set(hash, cloneResult(result));
      return false;
    }
    const entries = [failure.output ?? "", failure.message].filter((m) => m !== "").map((m) => log(build, "error", m, index));
    fail(build, { message: failure.message, step: index, logEntries: entries });
    return true;
  });
  const done = () => {
    inputs.done(result);
    return succeed(build);
  };
  const final = async () => {
    if (!inputs.host) return finalize(build);
    log(build, "info", "Finalizing template", "finalize");
    const cmds = { ...(build.startCmd ? { start: build.startCmd } : {}), ...(build.readyCmd ? { ready: build.readyCmd } : {}) };
    const message = await runStartAndReady(inputs.host, result, cmds, (level, m) => log(build, level, m, "finalize"), signal);
    if (message === undefined) return false;
    fail(build, { message, step: "finalize", logEntries: [log(build, "error", message, "finalize")] });
    return true;
  };
  return [start, ...steps, final, () => finished(build), done];
}

/**
 * What a v2 build starts from: its base template's result, or an image (build-image.ts), with the
 * first link of its layers' hash chain; undefined when the build failed there.
 */
async function baseOf(build: BuildRecord, spec: V2BuildSpec, inputs: V2Inputs, signal: AbortSignal): Promise<{ result: TemplateResult; key: string } | undefined> {
  const failed = (message: string) => void fail(build, { message, step: "base", logEntries: [log(build, "error", message, "base")] });
  if (spec.fromTemplate !== undefined) {
    if (!inputs.base) return failed(`base template '${spec.fromTemplate}' not found`);
    log(build, "info", `FROM TEMPLATE ${spec.fromTemplate}`, "base");
    return { result: cloneResult(inputs.base), key: inputs.baseKey };
  }
  const reference = spec.fromImage ?? "e2bdev/base";
  log(build, "info", `FROM ${reference}`, "base");
  const result = emptyResult();
  const from = await fromImage(inputs.images, { reference, credentials: spec.fromImageRegistry }, result, (level, m) => log(build, level, m, "base"), signal);
  return "failure" in from ? failed(from.failure) : { result, key: from.key };
}

/** A step not taken from the cache: RUN executed in a build sandbox where sandboxes are isolated. */
async function buildStep(
  build: BuildRecord,
  result: TemplateResult,
  step: V2BuildSpec["steps"][number],
  { inputs, signal, prefix }: { inputs: V2Inputs; signal: AbortSignal; prefix: string },
): Promise<StepFailure | undefined> {
  const index = prefix.replace(/^builder (\d+)\/.*$/, "$1");
  const type = step.type.toUpperCase();
  // On an image, a USER step makes its user when the image lacks it, as the builder does.
  if (type === "USER" && inputs.host && result.image && step.args?.[0]) {
    const failure = await ensureUser(inputs.host, result, { name: step.args[0], prefix }, (level, m) => log(build, level, m, index), signal);
    if (failure) return failure;
  }
  if (type !== "RUN") return applyStep(result, step, inputs.archive);
  if (!inputs.host) {
    log(build, "debug", "RUN is logged, not executed: sandboxes are not isolated here (see the README's emulator section)", index);
    return applyStep(result, step, inputs.archive);
  }
  const [cmd = "", user] = step.args ?? [];
  return runCommandStep(inputs.host, result, { cmd, ...(user ? { user } : {}), prefix }, (level, m) => log(build, level, m, index), signal);
}

/**
 * Each step's layer hash: the hash of the layer below and of the step itself (type, arguments and
 * the hash of its files), so a step is cached only when it and everything before it are unchanged.
 */
function layerHashes(baseKey: string, steps: V2BuildSpec["steps"]): string[] {
  let below = createHash("sha256").update(baseKey).digest("hex");
  return steps.map((step) => {
    below = createHash("sha256").update(below).update(JSON.stringify([step.type.toUpperCase(), step.args ?? [], step.filesHash ?? ""])).digest("hex");
    return below;
  });
}

function runStep(build: BuildRecord, step: PlannedStep): boolean {
  log(build, "info", step.message, step.step);
  if (!step.failure) return false;
  const entries = [step.failure.output, step.failure.message].filter((m) => m !== "").map((m) => log(build, "error", m, step.step));
  fail(build, { message: step.failure.message, step: step.step, logEntries: entries });
  return true;
}

function finalize(build: BuildRecord): boolean {
  log(build, "info", "Finalizing template", "finalize");
  if (build.startCmd) log(build, "info", `Running start command: ${build.startCmd}`, "finalize");
  if (build.readyCmd) log(build, "info", `Waiting for ready command: ${build.readyCmd}`, "finalize");
  return false;
}

/** The builder's last line, worded as infra's orchestrator (template/build/builder.go) words it. */
function finished(build: BuildRecord): boolean {
  log(build, "info", `Build finished, took ${goSeconds(Date.now() - build.createdAt.getTime())}`);
  return false;
}

/** Whole seconds as Go's Duration prints them: `6s`, `1m5s`, `1h0m0s`. */
function goSeconds(ms: number): string {
  const total = Math.floor(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}

function succeed(build: BuildRecord): boolean {
  build.status = "ready";
  build.finishedAt = new Date();
  build.updatedAt = build.finishedAt;
  return true;
}

function fail(build: BuildRecord, reason: NonNullable<BuildRecord["reason"]>): void {
  build.status = "error";
  build.reason = reason;
  build.finishedAt = new Date();
  build.updatedAt = build.finishedAt;
}

function log(build: BuildRecord, level: LogLevel, message: string, step?: string): BuildLogEntry {
  const entry: BuildLogEntry = { timestamp: new Date().toISOString(), message, level };
  if (step !== undefined) entry.step = step;
  build.logEntries.push(entry);
  build.updatedAt = new Date();
  return entry;
}
