/**
 * No operation can hang: with the real CLI on the any-resource fixture, a template build that
 * outlasts `buildTimeoutSeconds` and a provisioning command that outlasts its `timeoutSeconds` each
 * fail `pulumi up` at their deadline with a message that names what timed out, the deadline and the
 * setting to change; and what the service already made is recorded, so a later `up` finishes the job
 * instead of starting it again.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Emulator, InventoryTemplate } from "../../emulator";
import { callsSince, inventoryOfStack, lastSeq, startStack, type E2eStack } from "./harness";
import { printed } from "./kill";

const FIXTURE = join(__dirname, "fixtures", "any-resource");

interface StateResource {
  type: string;
  id?: string;
  outputs?: Record<string, unknown>;
  initErrors?: string[];
}

/** The fixture's one resource as `pulumi stack export` shows it (undefined when not in state). */
async function recorded(s: E2eStack, kind: string): Promise<StateResource | undefined> {
  const state = JSON.parse(await s.exported()) as { deployment: { resources?: StateResource[] } };
  return state.deployment.resources?.find((r) => r.type === `pulumi-nodejs:dynamic/sandbox:${kind}`);
}

function onlyTemplate(emulator: Emulator): InventoryTemplate {
  const templates = inventoryOfStack(emulator).templates;
  expect(templates).toHaveLength(1);
  return templates[0]!;
}

async function until(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a template build that outlasts buildTimeoutSeconds", () => {
  let s: E2eStack;
  const dockerfile = "FROM e2bdev/base:latest\nRUN echo slow build\n";

  beforeAll(async () => {
    // Builds end only once released: a 2 s deadline always passes first, however slow the engine is to start.
    s = await startStack(FIXTURE, "timeouts-build", { holdBuilds: true });
    await s.ok("config", "set", "kind", "Template");
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  test("up fails at the deadline, naming the build, the deadline and buildTimeoutSeconds; the template is recorded", async () => {
    await s.ok("config", "set", "args", JSON.stringify({ dockerfile, buildTimeoutSeconds: 2 }));
    const up = await s.pulumi("up", "--yes", "--skip-preview");
    expect(up.code, up.output).not.toBe(0);
    const template = onlyTemplate(s.emulator);
    const [build] = template.builds;
    // Still running when `up` gave up: the deadline ended the wait, not the build.
    expect(template.builds).toHaveLength(1);
    expect(build!.status).not.toBe("ready");
    expect(up.output).toContain(`Timed out after 2 s waiting for template ${template.templateID} build ${build!.buildID} to finish`);
    expect(up.output).toContain("buildTimeoutSeconds (2)");
    const res = await recorded(s, "Template");
    expect(res?.id).toBe(template.templateID);
    expect(res?.outputs).toMatchObject({ latestBuildID: build!.buildID, buildCount: 1 });
    expect(res?.outputs?.buildStatus).not.toBe("ready");
    expect(res?.initErrors?.join("\n")).toContain("buildTimeoutSeconds (2)");
  }, 120_000);

  test("a later up, once that build is done, succeeds without starting a second build", async () => {
    const { templateID, builds } = onlyTemplate(s.emulator);
    s.emulator.releaseBuilds();
    await until("the build to finish", () => onlyTemplate(s.emulator).builds[0]?.status === "ready", 10_000);
    const since = lastSeq(s.emulator);
    await s.ok("up", "--yes", "--skip-preview");
    expect(callsSince(s.emulator, since).filter((c) => c.startsWith("POST"))).toEqual([]);
    expect(onlyTemplate(s.emulator).builds.map((b) => b.buildID)).toEqual([builds[0]!.buildID]);
    const res = await recorded(s, "Template");
    expect(res).toMatchObject({ id: templateID, outputs: { buildID: builds[0]!.buildID, buildStatus: "ready", buildCount: 1 } });
    expect(res?.initErrors ?? []).toEqual([]);
  }, 120_000);

  test("a rebuild that times out is waited for, not repeated, by the next up with a longer deadline", async () => {
    await s.ok("config", "set", "args", JSON.stringify({ dockerfile: `${dockerfile}RUN echo v2\n`, buildTimeoutSeconds: 2 }));
    s.emulator.holdBuilds();
    const failed = await s.pulumi("up", "--yes", "--skip-preview");
    expect(failed.code, failed.output).not.toBe(0);
    const rebuild = onlyTemplate(s.emulator).builds[1];
    expect(rebuild?.status).not.toBe("ready");
    expect(failed.output).toContain(`build ${rebuild!.buildID} to finish`);
    // buildTimeoutSeconds changes nothing remotely: this up only waits longer, for the same build.
    await s.ok("config", "set", "args", JSON.stringify({ dockerfile: `${dockerfile}RUN echo v2\n`, buildTimeoutSeconds: 120 }));
    const since = lastSeq(s.emulator);
    const next = s.running("up", "--yes", "--skip-preview");
    // Released once this up waits for it: the build it finds is still running.
    await printed(next, `waiting for build ${rebuild!.buildID}`);
    s.emulator.releaseBuilds();
    const up = await next.result;
    expect(up.code, up.output).toBe(0);
    expect(callsSince(s.emulator, since).filter((c) => c.startsWith("POST"))).toEqual([]);
    const template = onlyTemplate(s.emulator);
    expect(template.builds.map((b) => [b.buildID, b.status])).toEqual([[template.builds[0]!.buildID, "ready"], [rebuild!.buildID, "ready"]]);
    expect(await recorded(s, "Template")).toMatchObject({ outputs: { buildID: rebuild!.buildID, buildStatus: "ready", buildCount: 2 } });
  }, 120_000);
});

describe("a provisioning command that outlasts its timeoutSeconds", () => {
  let s: E2eStack;
  // Writes a file at once, and another 4 s later: the second must never appear, the process is killed at 1 s.
  const command = "echo started > ~/early; sleep 4; echo late > ~/late";
  const provision = (onFailure: "keep" | "delete") => ({
    // secure: the harness then scans for this sandbox's envdAccessToken too.
    templateID: "base", timeout: 600, secure: true, provision: { commands: [{ command, timeoutSeconds: 1 }], onFailure },
  });
  const message = `provisioning command 1 \`${command}\` timed out after 1 s (provision.commands[0].timeoutSeconds)`;

  beforeAll(async () => {
    s = await startStack(FIXTURE, "timeouts-provision");
    await s.ok("config", "set", "kind", "Sandbox");
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  test("up fails naming the command and timeoutSeconds, the command is killed at its deadline, the sandbox is kept", async () => {
    await s.ok("config", "set", "args", JSON.stringify(provision("keep")));
    const up = await s.pulumi("up", "--yes", "--skip-preview");
    expect(up.code, up.output).not.toBe(0);
    expect(up.output).toContain(message);
    expect(up.output).toContain("The sandbox is kept; the next `pulumi up` runs the provisioning again.");
    const sandboxes = inventoryOfStack(s.emulator).sandboxes;
    expect(sandboxes).toHaveLength(1);
    expect(s.secretLabels()).toContain(`the envdAccessToken of sandbox ${sandboxes[0]!.sandboxID}`);
    const res = await recorded(s, "Sandbox");
    expect(res?.id).toBe(sandboxes[0]!.sandboxID);
    // provisionResults is a secret output (it holds the commands' output): encrypted in state, so not read here.
    expect(res?.outputs).toMatchObject({ provisioned: false });
    const home = join(sandboxes[0]!.rootDir, "home", "user");
    await sleep(5_000); // past the moment the command would have written ~/late
    expect(existsSync(join(home, "early")), "the command ran").toBe(true);
    expect(existsSync(join(home, "late")), "the command outlived its deadline").toBe(false);
  }, 120_000);

  test('with onFailure "delete" the timed-out sandbox is killed and nothing is recorded', async () => {
    await s.ok("destroy", "--yes", "--skip-preview");
    await s.ok("config", "set", "args", JSON.stringify(provision("delete")));
    const up = await s.pulumi("up", "--yes", "--skip-preview");
    expect(up.code, up.output).not.toBe(0);
    expect(up.output).toContain(message);
    expect(up.output).toContain('The sandbox was deleted (provision.onFailure: "delete").');
    expect(inventoryOfStack(s.emulator).sandboxes).toEqual([]);
    expect(await recorded(s, "Sandbox")).toBeUndefined();
  }, 120_000);
});
