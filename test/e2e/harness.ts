/**
 * The e2e harness: the real Pulumi CLI (scripts/ensure-pulumi.mjs: it fails, never skips, when no CLI
 * can be had) running an example in place against an emulator started in this process, so tests can
 * read the emulator's inventory and call log. Every CLI output is kept for the secret scan.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmulator, type Emulator, type EmulatorOptions } from "../../emulator";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { initStack, pulumiEnv, runPulumi } from "../../scripts/pulumi-run.mjs";

export const ROOT = join(__dirname, "..", "..");

export interface CliResult {
  code: number;
  output: string;
  stdout: string;
}

export interface E2eStack {
  emulator: Emulator;
  stack: string;
  /** Runs `pulumi <args> --stack <stack>` in the example's folder. */
  pulumi(...args: string[]): Promise<CliResult>;
  /** Like `pulumi`, but fails the test with the CLI's output when the exit code is not 0. */
  ok(...args: string[]): Promise<CliResult>;
  outputs(): Promise<Record<string, unknown>>;
  exported(): Promise<string>;
  /** Everything the CLI printed so far, for the secret scan. */
  transcript(): string;
  close(): Promise<void>;
}

export async function startStack(example: string, stack: string, emulatorOptions: EmulatorOptions = {}): Promise<E2eStack> {
  const binDir: string = await ensurePulumi();
  const emulator = await createEmulator({ buildDelayMs: 300, ...emulatorOptions });
  const stateDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-e2e-"));
  const cwd = join(ROOT, "examples", example);
  const env = pulumiEnv({ binDir, stateDir, extra: { PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase" } });
  const printed: string[] = [];
  const pulumi = async (...args: string[]): Promise<CliResult> => {
    const res: CliResult = await runPulumi([...args, "--stack", stack], { cwd, env });
    printed.push(res.output);
    return res;
  };
  const ok = async (...args: string[]) => {
    const res = await pulumi(...args);
    if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${res.code}:\n${res.output}`);
    return res;
  };
  await initStack({ cwd, env, stack, service: emulator });
  return {
    emulator,
    stack,
    pulumi,
    ok,
    outputs: async () => JSON.parse((await ok("stack", "output", "--json")).stdout),
    exported: async () => (await ok("stack", "export")).stdout,
    transcript: () => printed.join("\n"),
    close: async () => {
      await pulumi("stack", "rm", "--yes", "--force");
      await emulator.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Calls the emulator received since `seq`, as `METHOD /path` lines (query strings dropped). */
export function callsSince(emulator: Emulator, seq: number): string[] {
  return emulator.calls(seq).map((c) => `${c.method} ${c.path.split("?")[0]}`);
}

export function lastSeq(emulator: Emulator): number {
  return emulator.calls().at(-1)?.seq ?? 0;
}

/** Resources the stack made: everything but the built-in `base` template. */
export function inventoryOfStack(emulator: Emulator) {
  const inv = emulator.state.inventory();
  return { sandboxes: inv.sandboxes, volumes: inv.volumes, templates: inv.templates.filter((t) => !t.aliases.includes("base")) };
}
