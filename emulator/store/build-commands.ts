/**
 * The commands a v2 build runs in a build sandbox (build-sandbox.ts), worded and logged as the
 * service's builder does:
 * - a RUN step (infra: packages/orchestrator/pkg/template/build/commands/run.go) runs as its own user
 *   (`runCmd(..., { user })`) or the build's USER, each output line logged as
 *   `[builder i/n] [stdout]: …`, and fails with "failed to run command '<cmd>': exit status N";
 * - finalize (phases/finalize/builder.go, ready.go) starts the start command in the background,
 *   logging `[start] [stdout]: …`, then runs the ready command every 2 s (output at debug level,
 *   `[ready] …`) until it succeeds ("Template is ready"), the start command fails, or the ready
 *   timeout passes ("ready command failed: ready command timed out after …").
 * A command's file changes become the template's tree, as the service keeps the sandbox's disk.
 */
import type { Account } from "../envd/accounts";
import type { Isolation } from "../envd/isolation/mode";
import type { LogLevel } from "./template-records";
import type { StepFailure } from "./build-steps";
import { BuildSandbox, type CommandContext } from "./build-sandbox";
import { accountsOfResult } from "./result-accounts";
import type { TemplateResult } from "./template-tree";

/** Where build sandboxes run, and the finalize phase's ready timeout. */
export interface BuildHost {
  isolation: Isolation & { mode: "namespaces" };
  sandboxesDir: string;
  /** How long the ready command may keep failing; the service allows 10 minutes. */
  readyTimeoutMs: number;
}

/** Adds one line to the build's log. */
export type BuildLog = (level: LogLevel, message: string) => void;

/** The service's ready timeout (ready.go, readyCommandTimeout). */
export const DEFAULT_READY_TIMEOUT_MS = 600_000;
/** Pause between two tries of the ready command (ready.go, readyCommandRetryInterval). */
const READY_RETRY_MS = 2000;

/** Runs a RUN step's command (`user` from its second argument, else the build's USER); its changes join `result`. */
export async function runCommandStep(host: BuildHost, result: TemplateResult, step: { cmd: string; user?: string; prefix: string }, log: BuildLog, signal: AbortSignal): Promise<StepFailure | undefined> {
  const name = step.user || result.user;
  const failed = (why: string): StepFailure => ({ message: `failed to run command '${step.cmd}': ${why}` });
  // envd's answer to a call as an unknown user, as the builder's command stream reports it.
  const user = (await accountsOfResult(result)).find((a) => a.name === name);
  if (!user) return failed(`command failed: unauthenticated: invalid username: '${name}'`);
  const sandbox = await BuildSandbox.open(host.isolation, host.sandboxesDir, result);
  const release = sandbox.closeOn(signal);
  try {
    const status = await sandbox.run(step.cmd, contextOf(result, user), (stream, line) => log("info", `[${step.prefix}] [${stream}]: ${line}`));
    if (status !== "") return failed(status);
    result.tree = await sandbox.harvest();
    return undefined;
  } finally {
    release();
    await sandbox.close();
  }
}

/**
 * A USER step's user, made when the build's sandbox has none of that name: `useradd --create-home
 * --shell /bin/bash <name>` as root, its output logged as a RUN's, its failure the builder's
 * "failed to create user: …" (infra: commands/user.go). Only on an image: the host's dirs hold root
 * and `user` alone.
 */
export async function ensureUser(host: BuildHost, result: TemplateResult, user: { name: string; prefix: string }, log: BuildLog, signal: AbortSignal): Promise<StepFailure | undefined> {
  if ((await accountsOfResult(result)).some((a) => a.name === user.name)) return undefined;
  const made = await runCommandStep(host, result, { cmd: `useradd --create-home --shell /bin/bash ${user.name}`, user: "root", prefix: user.prefix }, log, signal);
  return made ? { message: `failed to create user: ${made.message}` } : undefined;
}

/** Runs the start and ready commands at finalize; resolves with the build's failure message, if any. */
export async function runStartAndReady(host: BuildHost, result: TemplateResult, cmds: { start?: string; ready?: string }, log: BuildLog, signal: AbortSignal): Promise<string | undefined> {
  if (!cmds.start && !cmds.ready) return undefined;
  const user = (await accountsOfResult(result)).find((a) => a.name === result.user);
  if (!user) return `ready command failed: command failed: unauthenticated: invalid username: '${result.user}'`;
  const ctx = contextOf(result, user);
  const sandbox = await BuildSandbox.open(host.isolation, host.sandboxesDir, result);
  const release = sandbox.closeOn(signal);
  try {
    let startStatus: string | undefined;
    let startFailed: Promise<void> = new Promise(() => undefined);
    if (cmds.start) {
      log("info", `Running start command: ${cmds.start}`);
      const ended = sandbox.run(cmds.start, ctx, (stream, line) => log("info", `[start] [${stream}]: ${line}`)).then((s) => void (startStatus = s));
      startFailed = ended.then(() => (startStatus ? undefined : new Promise(() => undefined)));
    }
    // No ready command: the service waits 20 s after a start command, and not at all without one.
    const ready = cmds.ready || (cmds.start ? "sleep 20" : "sleep 0");
    const failure = await waitReady(sandbox, ready, { ctx, timeoutMs: host.readyTimeoutMs, startFailed }, log);
    if (failure) return failure;
    if (startStatus) return `start command failed: error running start command: ${startStatus}`;
    result.tree = await sandbox.harvest();
    return undefined;
  } finally {
    release();
    await sandbox.close();
  }
}

/** How the ready loop runs: the commands' context, its timeout, and what ends it early. */
interface ReadyWait {
  ctx: CommandContext;
  timeoutMs: number;
  /** Settles when the start command has failed. */
  startFailed: Promise<void>;
}

/**
 * The ready loop of ready.go; a failure message, or undefined once ready. A failed start command
 * cancels the wait, which the loop reads as ready; its failure is reported after (builder.go).
 */
async function waitReady(sandbox: BuildSandbox, ready: string, wait: ReadyWait, log: BuildLog): Promise<string | undefined> {
  log("info", `Waiting for template to be ready: ${ready}`);
  const began = Date.now();
  const timedOut = () => `ready command failed: ready command timed out after ${seconds(Date.now() - began)}`;
  // Once the wait is over (the start command failed, or the loop returned), a ready command still
  // running says nothing more: its sandbox is being torn down, and the service's build log ends with
  // the build's outcome, not with what a cancelled check printed on its way out.
  let over = false;
  const cancelled = wait.startFailed.then(() => ((over = true), "cancelled" as const));
  const output = (stream: string, line: string) => over || log("debug", `[ready] [${stream}]: ${line}`);
  try {
    return await readyLoop(sandbox, ready, wait, log, { began, timedOut, cancelled, output });
  } finally {
    over = true;
  }
}

interface LoopState {
  began: number;
  timedOut: () => string;
  cancelled: Promise<"cancelled">;
  output: (stream: string, line: string) => unknown;
}

async function readyLoop(sandbox: BuildSandbox, ready: string, wait: ReadyWait, log: BuildLog, loop: LoopState): Promise<string | undefined> {
  const { began, timedOut, cancelled, output } = loop;
  for (;;) {
    const left = wait.timeoutMs - (Date.now() - began);
    const status = await within(left, Promise.race([sandbox.run(ready, wait.ctx, (stream, line) => void output(stream, line)), cancelled]));
    if (status === "" || status === "cancelled") {
      log("info", "Template is ready");
      return undefined;
    }
    if (status === undefined) return timedOut();
    log("debug", `Template is not ready: ${status}`);
    const pause = Math.min(READY_RETRY_MS, wait.timeoutMs - (Date.now() - began));
    if (pause <= 0) return timedOut();
    if ((await within(pause, cancelled)) === "cancelled") {
      log("info", "Template is ready");
      return undefined;
    }
    if (Date.now() - began >= wait.timeoutMs) return timedOut();
  }
}

/** `work`'s value, or undefined when `ms` pass first (a command left running ends with the sandbox). */
function within<T>(ms: number, work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), Math.max(ms, 0))));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** A duration as Go prints one under a minute (`2.004s`), to the millisecond. */
function seconds(ms: number): string {
  return ms >= 60_000 ? `${Math.floor(ms / 60_000)}m${((ms % 60_000) / 1000).toString()}s` : `${ms / 1000}s`;
}

function contextOf(result: TemplateResult, user: Account): CommandContext {
  return { user, workdir: result.workdir, env: result.env };
}
