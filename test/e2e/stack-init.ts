/**
 * Creates a stack of the harness and points it at its emulator as scripts/pulumi-run.mjs's
 * `initStack` does, in four CLI runs instead of five: the two endpoints (plain config) in one
 * `config set-all`. The API key and access token are still set one run each, on stdin, so they never
 * appear in a process list. Every CLI start counts: the suite makes a stack some fifty times.
 */
import type { Emulator } from "../../emulator";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { runPulumi } from "../../scripts/pulumi-run.mjs";

interface Run {
  code: number;
  output: string;
}

export async function initE2eStack(cwd: string, env: Record<string, string>, stack: string, service: Emulator): Promise<void> {
  const steps: [string[], string?][] = [
    [["stack", "init", stack]],
    [["config", "set-all", "--plaintext", `sandbox:apiUrl=${service.apiUrl}`, "--plaintext", `sandbox:sandboxUrl=${service.sandboxUrl}`, "--stack", stack]],
    [["config", "set", "--secret", "sandbox:apiKey", "--stack", stack], service.apiKey],
    [["config", "set", "--secret", "sandbox:accessToken", "--stack", stack], service.accessToken],
  ];
  for (const [args, input] of steps) {
    const res = (await runPulumi(args, { cwd, env, input })) as Run;
    if (res.code !== 0) throw new Error(`pulumi ${args.slice(0, 3).join(" ")} failed (exit ${res.code}): ${res.output.trim()}`);
  }
}
