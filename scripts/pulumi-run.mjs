// Runs the Pulumi CLI the way every part of this project does (npm start, the e2e suite, the
// benchmarks): the CLI from ensure-pulumi.mjs, the project's Node (24.21, from the npm `node` package) first on PATH (the language host runs `node`),
// a file backend, a passphrase, and nothing that reaches the network on its own.
import { spawn } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

/**
 * Environment for the CLI. `stateDir`: the file backend's directory. Credentials and endpoints go
 * through `extra` (E2B_* vars) or stack config, never through here.
 */
export function pulumiEnv({ binDir, stateDir, extra = {} }) {
  return {
    ...process.env,
    PATH: [binDir, join(root, "node_modules", ".bin"), process.env.PATH].join(":"),
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "local-emulator-stack",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
    ...extra,
  };
}

/**
 * Runs `pulumi <args>` in `cwd`; resolves with its exit code and output (never rejects on a non-zero
 * exit: callers assert on it). `onOutput` sees the output as it comes. With `timeoutMs`, a CLI still
 * running then is killed and the call rejects naming the command and its output so far.
 */
export function runPulumi(args, { cwd, env, onOutput, input, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn("pulumi", [...args, "--non-interactive"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`pulumi ${args.join(" ")} was still running after ${timeoutMs} ms; killed. Output so far:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.stdout.on("data", (d) => {
      stdout += d;
      onOutput?.(String(d));
    });
    child.stderr.on("data", (d) => {
      stderr += d;
      onOutput?.(String(d));
    });
    child.stdin.end(input ?? "");
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, output: stdout + stderr });
    });
  });
}

/**
 * Creates `stack` in `cwd` and points it at an emulator (or any service): endpoints as plain config,
 * the API key and access token as secret config (encrypted in the stack file, sent on stdin so they
 * never appear in a process list).
 */
export async function initStack({ cwd, env, stack, service }) {
  const steps = [
    [["stack", "init", stack]],
    [["config", "set", "sandbox:apiUrl", service.apiUrl]],
    [["config", "set", "sandbox:sandboxUrl", service.sandboxUrl]],
    [["config", "set", "--secret", "sandbox:apiKey"], service.apiKey],
    [["config", "set", "--secret", "sandbox:accessToken"], service.accessToken],
  ];
  for (const [args, input] of steps) {
    const res = await runPulumi([...args, ...(args[0] === "config" ? ["--stack", stack] : [])], { cwd, env, input });
    if (res.code !== 0) throw new Error(`pulumi ${args.slice(0, 3).join(" ")} failed (exit ${res.code}): ${res.output.trim()}`);
  }
}
