/**
 * `pulumi up` killed as a CI runner kills a job: started in a process group of its own against the
 * harness's stack, then SIGKILLed as a group. The engine starts its plugins in groups of their own, so
 * the provider host of the killed run outlives it; `endPluginsOf` ends them, by pid, once a test is
 * done (they carry the stack's backend directory in their environment, which is how they are found).
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { E2eStack, RunningCli } from "./harness";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { pulumiEnv } from "../../scripts/pulumi-run.mjs";

export interface KillableUp {
  /** Kills the run's whole process group and resolves once the CLI has ended. */
  kill(): Promise<void>;
  /** What the CLI printed so far. */
  output(): string;
}

/** The stack's file backend directory, where the harness keeps its state. */
export async function backendDir(s: E2eStack): Promise<string> {
  const about = JSON.parse((await s.ok("about", "--output", "json")).stdout) as { backend: { url: string } };
  return new URL(about.backend.url).pathname;
}

/** `pulumi up` on the stack, in `cwd` (the harness's project), in a process group of its own. */
export async function killableUp(s: E2eStack, cwd: string, stateDir: string): Promise<KillableUp> {
  // The harness's passphrase: this CLI must decrypt the same stack config.
  const env = pulumiEnv({ binDir: await ensurePulumi(), stateDir, extra: { PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase" } });
  const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", s.stack], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return {
    kill: async () => {
      process.kill(-child.pid!, "SIGKILL");
      await exited;
    },
    output: () => output,
  };
}

/** Polls (never a fixed sleep) until `ready` holds; fails naming `what`. */
export async function until(what: string, ready: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until a running CLI prints `text`, or ends without it (its result then shows why). */
export function printed(run: RunningCli, text: string, timeoutMs?: number): Promise<void> {
  return until(`the CLI to print ${JSON.stringify(text)}`, () => run.ended() || run.output().includes(text), timeoutMs);
}

/** Ends, by pid, the processes a CLI of this backend started (the plugins that outlived a kill). */
export function endPluginsOf(stateDir: string): void {
  if (!stateDir) return;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").includes(`file://${stateDir}`)) process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
}
