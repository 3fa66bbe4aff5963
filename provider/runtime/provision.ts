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
import { commandTag, earlierRuns, NO_EARLIER_RUNS, WRAPPER, wrapperEnv } from "./resume";

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
  const rpc = new SandboxRpc({ ...target, options: clientOptions() });
  const client = new ProcessClient(rpc);
  const earlier = opts.fresh ? NO_EARLIER_RUNS : await earlierRuns(new FilesystemClient(rpc), client);
  const scrub = (text: string) => redact(text, secrets);
  const shown = SHOWN[provision.logging ?? "both"];
  const results: ProvisionResult[] = [];
  const total = provision.commands.length;
  for (const [i, cmd] of provision.commands.entries()) {
    const label = `provision ${i + 1}/${total}`;
    const command = scrub(cmd.command);
    const tag = commandTag(runKey, provision, i);
    if (earlier.succeeded.has(tag)) {
      log(`${label}: $ ${command} succeeded in an earlier, interrupted run; not run again`);
      results.push({ command, exitCode: 0, durationMs: 0, stdoutTail: "", stderrTail: "" });
      continue;
    }
    const attach = earlier.running.has(tag);
    log(attach ? `${label}: $ ${command} is still running from an interrupted run; waiting for it` : `${label}: $ ${command}`);
    // One line buffer per stream: a partial stdout line must not be glued to a stderr line.
    const stdout = lineWriter((line) => log(`${label} | ${scrub(line)}`));
    const stderr = lineWriter((line) => log(`${label} ! ${scrub(line)}`));
    const flush = () => {
      stdout.flush();
      stderr.flush();
    };
    const started = Date.now();
    let result: ProvisionResult;
    try {
      const streams = { timeoutMs: cmd.timeoutSeconds * 1000, tailBytes: STATE_TAIL_BYTES, ...(shown.stdout ? { onStdout: stdout.write } : {}), ...(shown.stderr ? { onStderr: stderr.write } : {}) };
      const r = await operationWait(
        (signal) => attach
          ? client.wait({ tag }, { ...streams, signal })
          : client.run(WRAPPER, { ...streams, signal, envs: { ...cmd.envs, ...wrapperEnv(cmd.command, tag) }, cwd: cmd.cwd, user: cmd.user, tag }),
        (why, cause) => new SandboxError({ code: "aborted", message: `stopped waiting for it: ${why}. The command goes on in the sandbox; the next \`pulumi up\` waits for it`, cause }),
      );
      result = { command, exitCode: r.exitCode, durationMs: r.durationMs, stdoutTail: scrub(r.stdoutTail), stderrTail: scrub(r.stderrTail) };
    } catch (err) {
      flush();
      const e = err as { code?: string; message?: string; stdoutTail?: string; stderrTail?: string };
      results.push({ command, exitCode: -1, durationMs: Date.now() - started, stdoutTail: scrub(e.stdoutTail ?? ""), stderrTail: scrub(e.stderrTail ?? "") });
      const why = e.code === "timeout" ? `timed out after ${cmd.timeoutSeconds} s (provision.commands[${i}].timeoutSeconds)` : `failed: ${scrub(e.message ?? String(err))}`;
      return { ok: false, results, failure: failureText(i, command, why, results.at(-1)) };
    }
    flush();
    results.push(result);
    log(`${label}: exit code ${result.exitCode} in ${(result.durationMs / 1000).toFixed(1)} s`);
    if (result.exitCode !== 0) {
      const why = result.exitCode === -1 ? "was killed by a signal" : `exited with code ${result.exitCode}`;
      return { ok: false, results, failure: failureText(i, result.command, why, result) };
    }
  }
  return { ok: true, results };
}

function failureText(index: number, command: string, why: string, result: ProvisionResult | undefined): string {
  const lastLines = (text: string) => text.trimEnd().split("\n").slice(-10).join("\n");
  const output = result ? [lastLines(result.stdoutTail), lastLines(result.stderrTail)].filter(Boolean).join("\n") : "";
  return `provisioning command ${index + 1} \`${command}\` ${why}${output ? `; last output:\n${output}` : "."}`;
}
