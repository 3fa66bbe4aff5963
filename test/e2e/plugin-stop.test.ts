/**
 * The engine's bounds on the native plugin's work (provider/plugin/operation.ts): a Template's
 * `customTimeouts.create` shorter than its build, and Ctrl-C (SIGINT to `pulumi up`) during the build.
 * Either stops the plugin's wait at once; the template the service made is recorded (with the reason),
 * and the next `up` waits for that same build: one build request (POST /v3/templates), one build.
 * A Sandbox's deadline stops the wait for a provisioning command the same way: the command runs on,
 * and the next `up` waits for it instead of running it again.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Emulator } from "../../emulator";
import { inventoryOfStack, ROOT, startStack, type E2eStack } from "./harness";
import { printed } from "./kill";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { pulumiEnv } from "../../scripts/pulumi-run.mjs";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "plugin-template");
/**
 * Builds end only once released (the emulator's holdBuilds): still running when stopped, whatever the
 * 2 s deadline and the engine's start-up take; the next `up` releases them once it waits for the build.
 */
const HELD = { holdBuilds: true };

type StateResource = { type: string; id?: string; initErrors?: string[]; outputs?: Record<string, unknown> };
async function recordedTemplate(s: E2eStack): Promise<StateResource | undefined> {
  const state = JSON.parse(await s.exported()) as { deployment: { resources?: StateResource[]; pending_operations?: unknown[] } };
  expect(state.deployment.pending_operations ?? []).toEqual([]);
  return state.deployment.resources?.find((r) => r.type === "sandbox:index:Template");
}

/** Build requests, of the default build system (v3) and of v1. */
const posts = (emulator: Emulator) => emulator.calls().filter((c) => c.method === "POST" && (c.path === "/v3/templates" || c.path === "/templates")).length;

async function until(what: string, done: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The next up finishes the recorded template by waiting for its one build: no second build. */
async function expectFinishedBySameBuild(s: E2eStack, buildID: string): Promise<void> {
  const next = s.running("up", "--yes", "--skip-preview");
  await printed(next, `waiting for build ${buildID}`);
  s.emulator.releaseBuilds();
  const up = await next.result;
  expect(up.code, up.output).toBe(0);
  expect(up.output).toContain(`waiting for build ${buildID}`);
  expect(up.output).toMatch(/~ 1 updated/);
  const [template] = inventoryOfStack(s.emulator).templates;
  expect(template?.builds.map((b) => [b.buildID, b.status])).toEqual([[buildID, "ready"]]);
  expect(posts(s.emulator)).toBe(1);
  const recorded = await recordedTemplate(s);
  expect(recorded?.initErrors ?? []).toEqual([]);
  expect(recorded?.outputs).toMatchObject({ buildID, buildStatus: "ready" });
  const preview = await s.pulumi("preview", "--expect-no-changes");
  expect(preview.code, preview.output).toBe(0);
}

describe("customTimeouts.create shorter than the build", () => {
  let s: E2eStack;
  beforeAll(async () => {
    s = await startStack(FIXTURE, "e2e-plugin-timeout", HELD);
  }, 300_000);
  afterAll(async () => {
    await s?.close();
  });

  test("up fails at the deadline naming customTimeouts.create; the template is recorded; the next up waits for the same build", async () => {
    await s.ok("config", "set", "createTimeout", "2s");
    const up = await s.pulumi("up", "--yes", "--skip-preview");
    expect(up.code).not.toBe(0);
    const [template] = inventoryOfStack(s.emulator).templates;
    const buildID = template!.builds[0]!.buildID;
    expect(template!.builds.map((b) => b.status)).not.toContain("ready");
    expect(up.output).toContain(
      `Stopped waiting for build ${buildID} of template ${template!.templateID}: the create of Template slow passed its timeout of 2 s (customTimeouts.create).`,
    );
    const recorded = await recordedTemplate(s);
    expect(recorded?.id).toBe(template!.templateID);
    expect(recorded?.initErrors?.join("\n")).toContain("customTimeouts.create");

    await s.ok("config", "rm", "createTimeout");
    await expectFinishedBySameBuild(s, buildID);
  }, 300_000);
});

describe("Ctrl-C during a template build", () => {
  let s: E2eStack;
  let env: Record<string, string>;
  beforeAll(async () => {
    s = await startStack(FIXTURE, "e2e-plugin-sigint", HELD);
    const about = JSON.parse((await s.ok("about", "--output", "json")).stdout) as { backend: { url: string } };
    env = pulumiEnv({ binDir: await ensurePulumi(), stateDir: new URL(about.backend.url).pathname, extra: { PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase" } });
  }, 300_000);
  afterAll(async () => {
    await s?.close();
  });

  test("SIGINT to pulumi up stops the wait; the template is recorded; the next up finishes it with no second build", async () => {
    const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", s.stack], { cwd: FIXTURE, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await until("the template's build to be building", () => inventoryOfStack(s.emulator).templates.some((t) => t.builds.some((b) => b.status === "building")));
    const [template] = inventoryOfStack(s.emulator).templates;
    const buildID = template!.builds[0]!.buildID;
    await until("the plugin to wait for the build", () => output.includes(`waiting for build ${buildID}`));
    child.kill("SIGINT");
    expect(await exited).not.toBe(0);
    // The engine's Cancel reached the plugin while the build still ran: the wait stopped, not the build.
    expect(output).toContain(`Stopped waiting for build ${buildID} of template ${template!.templateID}: the engine cancelled the operation`);
    expect(inventoryOfStack(s.emulator).templates[0]!.builds.map((b) => b.status)).not.toContain("ready");
    const recorded = await recordedTemplate(s);
    expect(recorded?.id).toBe(template!.templateID);
    expect(recorded?.outputs).toMatchObject({ latestBuildID: buildID });

    await expectFinishedBySameBuild(s, buildID);
  }, 300_000);
});

describe("customTimeouts.create shorter than a provisioning command", () => {
  let s: E2eStack;
  beforeAll(async () => {
    s = await startStack(FIXTURE, "e2e-plugin-provision-timeout");
    await s.ok("config", "set", "subject", "sandbox");
  }, 300_000);
  afterAll(async () => {
    await s?.close();
  });

  test("up fails at the deadline naming customTimeouts.create; the command goes on; the next up waits for it and runs it once", async () => {
    await s.ok("config", "set", "createTimeout", "4s");
    const up = await s.pulumi("up", "--yes", "--skip-preview");
    expect(up.code).not.toBe(0);
    expect(up.output).toContain("stopped waiting for it: the create of Sandbox slow passed its timeout of 4 s (customTimeouts.create)");
    const sandboxes = inventoryOfStack(s.emulator).sandboxes;
    expect(sandboxes).toHaveLength(1);

    await s.ok("config", "rm", "createTimeout");
    const again = await s.ok("up", "--yes", "--skip-preview");
    // On a loaded machine the command may end before this up reaches it: either way it is not run again.
    expect(again.output).toMatch(/is still running from an interrupted run; waiting for it|succeeded in an earlier, interrupted run; not run again/);
    expect(again.output).toContain("runs: 1");
    expect(inventoryOfStack(s.emulator).sandboxes.map((b) => b.sandboxID)).toEqual(sandboxes.map((b) => b.sandboxID));
    const preview = await s.pulumi("preview", "--expect-no-changes");
    expect(preview.code, preview.output).toBe(0);
  }, 300_000);
});
