/**
 * The native plugin found in Pulumi's plugin cache, put there by scripts/install-plugin.mjs: a project
 * with no `plugins:` entry and nothing of the plugin on PATH creates and destroys a Volume. Runs with a
 * PULUMI_HOME of its own, so the user's plugin cache is never touched.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts
import { installPlugin } from "../../scripts/install-plugin.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { initStack, pulumiEnv, runPulumi } from "../../scripts/pulumi-run.mjs";
import { CLI_TIMEOUT_MS, inventoryOfStack, ROOT } from "./harness";

const cwd = join(ROOT, "test", "e2e", "fixtures", "plugin-cache");
const stack = "e2e-plugin-cache";
let home: string;
let emulator: Emulator;
let env: Record<string, string>;

const pulumi = async (...args: string[]) => {
  const res = await runPulumi([...args, "--stack", stack], { cwd, env, timeoutMs: CLI_TIMEOUT_MS });
  if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${res.code}:\n${res.output}`);
  return res as { output: string };
};

beforeAll(async () => {
  const binDir: string = await ensurePulumi();
  home = mkdtempSync(join(tmpdir(), "pulumi-sandbox-home-"));
  mkdirSync(join(home, "state"));
  emulator = await createEmulator({ buildDelayMs: 300 });
  env = pulumiEnv({ binDir, stateDir: join(home, "state"), extra: { PULUMI_HOME: home, PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase" } });
  await initStack({ cwd, env, stack, service: emulator });
}, 300_000);

afterAll(async () => {
  if (env) await runPulumi(["stack", "rm", "--yes", "--force", "--stack", stack], { cwd, env });
  await emulator?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

test("without the plugin in the cache the engine names what it looked for; installed, up and destroy work", async () => {
  const missing = await runPulumi(["preview", "--stack", stack], { cwd, env, timeoutMs: CLI_TIMEOUT_MS });
  expect(missing.code).not.toBe(0);
  expect(missing.output).toContain("no resource plugin 'pulumi-resource-sandbox' found in the workspace");

  const version = installPlugin({ env });
  expect(readdirSync(join(home, "plugins"))).toContain(`resource-sandbox-v${version}`);
  const up = await pulumi("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/\+ 2 created/);
  expect(up.output).not.toContain("from $PATH");
  expect(inventoryOfStack(emulator).volumes.map((v) => v.name)).toEqual(["from-the-cache"]);
  await pulumi("destroy", "--yes", "--skip-preview");
  expect(inventoryOfStack(emulator).volumes).toEqual([]);
});
