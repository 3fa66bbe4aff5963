/**
 * Runs a Sandbox's `provision` commands, in order, through the in-sandbox process service, streaming
 * their output to the log as it comes. The first non-zero exit or timeout stops the sequence. What is
 * kept for state is bounded (the last lines of each stream) and redacted of every secret in play.
 * A run picks up where an interrupted one stopped (./resume.ts).
 */
import { redact, SandboxError } from "../../sdk/errors";
import { FilesystemClient } from "../../sdk/in-sandbox/filesystem";
import { ProcessClient } from "../../sdk/in-sandbox/process";
import { SandboxRpc } from "../../sdk/transport/rpc";
import type { ProvisionInput, ProvisionResult } from "../kinds/sandbox/provision";
import { clientOptions } from "./context";
import { lineWriter, type Logger } from "./log";
import { operationWait } from "./operation";
import { commandTag, earlierRuns, type EarlierRuns, NO_EARLIER_RUNS, WRAPPER, wrapperEnv } from "./resume";

/** Bytes of each output stream kept in state per command: enough to diagnose, small for state. */
export const STATE_TAIL_BYTES = 4096;

export interface ProvisionOutcome {
  ok: boolean;
  results: ProvisionResult[];
  /** Why it stopped: the command, its exit code or timeout, and the last lines of its output. */
  failure?: string;
}

export interface SandboxTarget {
  sandboxID: string;
  envdAccessToken?: string | null | undefined;
}

export interface ProvisionOptions {
  /**
   * The sandbox was made by this very call (not adopted from an interrupted run, not an update), so
   * no earlier run can have left anything: the look for one (two in-sandbox calls) is skipped.
   */
  fresh?: boolean;
}

/** Which streams `logging` shows. */
const SHOWN: Record<ProvisionInput["logging"], { stdout: boolean; stderr: boolean }> = {
  both: { stdout: true, stderr: true },
  stdout: { stdout: true, stderr: false },
  stderr: { stdout: false, stderr: true },
  none: { stdout: false, stderr: false },
};

/**
 * `secrets`: every value to hide (credentials, tokens, and the values the program marked secret). A
 * command that holds one is shown and stored with it redacted; a command made whole from a secret
 * (`pulumi.interpolate` over one) is then nothing but `[redacted]`. `runKey` (the resource's key and
 * generation) names this run's commands, so that a run of the same provisioning resumes it.
 */
export async function runProvision(
  target: SandboxTarget,
  provision: ProvisionInput,
  runKey: string,
  log: Logger,
  secrets: string[],
  opts: ProvisionOptions = {},
): Promise<ProvisionOutcome> {
  // One connection to the sandbox for the look at earlier runs and every command: one transport,
  // its keep-alive socket reused from call to call.
  // It owns the streams' pool, so it is closed with the run rather than left to idle out; not awaited,
  // since closing waits for any stream still under way and the run's outcome must not.
  const rpc = new SandboxRpc({ ...target, options: clientOptions() });
  try {
    const client = new ProcessClient(rpc);
    const earlier = opts.fresh ? NO_EARLIER_RUNS : await earlierRuns(new FilesystemClient(rpc), client);
    const run: ProvisionRun = { client, earlier, log, runKey, provision, scrub: (text) => redact(text, secrets), shown: SHOWN[provision.logging ?? "both"] };
    const results: ProvisionResult[] = [];
    for (const i of provision.commands.keys()) {
      const step = await provisionCommand(run, i);
      results.push(step.result);
      if (step.failure !== undefined) return { ok: false, results, failure: step.failure };
    }
    return { ok: true, results };
  } finally {
    void rpc.close().catch(() => undefined);
  }
}

/** What every command of one run shares. */
interface ProvisionRun {
  client: ProcessClient;
  earlier: Readonly<EarlierRuns>;
  log: Logger;
  runKey: string;
  provision: ProvisionInput;
  /** Redacts every secret in play from a text shown or stored. */
  scrub: (text: string) => string;
  shown: { stdout: boolean; stderr: boolean };
}

/** One command's outcome: its result for state and, when it stops the sequence, why. */
interface CommandStep {
  result: ProvisionResult;
  failure?: string;
}

/**
 * Runs command `i`, streaming its output to the log; one that an interrupted run left succeeded is
 * not run again, and one it left running is waited for instead of started.
 */
async function provisionCommand(run: ProvisionRun, i: number): Promise<CommandStep> {
  const cmd = run.provision.commands[i]!;
  const label = `provision ${i + 1}/${run.provision.commands.length}`;
  const command = run.scrub(cmd.command);
  const tag = commandTag(run.runKey, run.provision, i);
  if (run.earlier.succeeded.has(tag)) {
    run.log(`${label}: $ ${command} succeeded in an earlier, interrupted run; not run again`);
    return { result: { command, exitCode: 0, durationMs: 0, stdoutTail: "", stderrTail: "" } };
  }
  const attach = run.earlier.running.has(tag);
  run.log(attach ? `${label}: $ ${command} is still running from an interrupted run; waiting for it` : `${label}: $ ${command}`);
  // One line buffer per stream: a partial stdout line must not be glued to a stderr line.
  const stdout = lineWriter((line) => run.log(`${label} | ${run.scrub(line)}`));
  const stderr = lineWriter((line) => run.log(`${label} ! ${run.scrub(line)}`));
  const started = Date.now();
  let result: ProvisionResult;
  try {
    const r = await startOrAttach(run, cmd, tag, attach, { stdout: stdout.write, stderr: stderr.write });
    result = { command, exitCode: r.exitCode, durationMs: r.durationMs, stdoutTail: run.scrub(r.stdoutTail), stderrTail: run.scrub(r.stderrTail) };
  } catch (err) {
    stdout.flush();
    stderr.flush();
    const e = err as { code?: string; message?: string; stdoutTail?: string; stderrTail?: string };
    const failed = { command, exitCode: -1, durationMs: Date.now() - started, stdoutTail: run.scrub(e.stdoutTail ?? ""), stderrTail: run.scrub(e.stderrTail ?? "") };
    const why = e.code === "timeout" ? `timed out after ${cmd.timeoutSeconds} s (provision.commands[${i}].timeoutSeconds)` : `failed: ${run.scrub(e.message ?? String(err))}`;
    return { result: failed, failure: failureText(i, command, why, failed) };
  }
  stdout.flush();
  stderr.flush();
  run.log(`${label}: exit code ${result.exitCode} in ${(result.durationMs / 1000).toFixed(1)} s`);
  if (result.exitCode === 0) return { result };
  const why = result.exitCode === -1 ? "was killed by a signal" : `exited with code ${result.exitCode}`;
  return { result, failure: failureText(i, result.command, why, result) };
}

/**
 * Starts the command (through the wrapper that records it for a later run to resume), or attaches
 * to it when an interrupted run left it running, and waits for its end; only the streams `logging`
 * shows reach the log.
 */
function startOrAttach(
  run: ProvisionRun,
  cmd: ProvisionInput["commands"][number],
  tag: string,
  attach: boolean,
  write: { stdout: (text: string) => void; stderr: (text: string) => void },
) {
  const streams = { timeoutMs: cmd.timeoutSeconds * 1000, tailBytes: STATE_TAIL_BYTES, ...(run.shown.stdout ? { onStdout: write.stdout } : {}), ...(run.shown.stderr ? { onStderr: write.stderr } : {}) };
  return operationWait(
    (signal) => attach
      ? run.client.wait({ tag }, { ...streams, signal })
      : run.client.run(WRAPPER, { ...streams, signal, envs: { ...cmd.envs, ...wrapperEnv(cmd.command, tag) }, cwd: cmd.cwd, user: cmd.user, tag }),
    (why, cause) => new SandboxError({ code: "aborted", message: `stopped waiting for it: ${why}. The command goes on in the sandbox; the next \`pulumi up\` waits for it`, cause }),
  );
}

function failureText(index: number, command: string, why: string, result: ProvisionResult | undefined): string {
  const lastLines = (text: string) => text.trimEnd().split("\n").slice(-10).join("\n");
  const output = result ? [lastLines(result.stdoutTail), lastLines(result.stderrTail)].filter(Boolean).join("\n") : "";
  return `provisioning command ${index + 1} \`${command}\` ${why}${output ? `; last output:\n${output}` : "."}`;
}
