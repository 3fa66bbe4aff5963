/**
 * `pulumi up` killed (SIGKILL to its process group, as a CI runner kills a job), the program edited,
 * `up` again, through the real engine. What the killed run made was made from the old inputs: it must
 * not be adopted and recorded with the new ones. A sandbox made with the old envVars is deleted and a
 * new one made, and the resource's log says why; a template whose build was started from the old
 * Dockerfile gets a new build from the new one. (Unchanged re-runs adopt: interrupted.test.ts,
 * template-build.test.ts.)
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { inventoryOfStack, ROOT, startStack, type E2eStack } from "./harness";
import { backendDir, endPluginsOf, killableUp, until } from "./kill";

describe("a sandbox made by a killed up, then the program's envVars edited", () => {
  const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "any-resource");
  // The killed run's command waits, so that the kill comes while the create is still running; the
  // re-run's (GREETING is two) does not.
  const command = 'echo "$GREETING" >> ~/greetings; [ "$GREETING" = two ] || sleep 120';
  const args = (greeting: string) => JSON.stringify({ templateID: "base", timeoutSeconds: 600, envVars: { GREETING: greeting }, provision: { commands: [{ command }] } });
  const greetings = (rootDir: string) => join(rootDir, "home", "user", "greetings");
  let s: E2eStack;
  let stateDir = "";

  beforeAll(async () => {
    s = await startStack(FIXTURE, "e2e-edited-sandbox");
    await s.ok("config", "set", "kind", "Sandbox");
    stateDir = await backendDir(s);
  }, 120_000);

  afterAll(async () => {
    endPluginsOf(stateDir);
    await s?.close();
  });

  test("the next up deletes the stale sandbox and makes one with the new envVars, saying so on the resource", async () => {
    await s.ok("config", "set", "args", args("one"));
    const run = await killableUp(s, FIXTURE, stateDir);
    await until("the sandbox to run its provisioning", () => inventoryOfStack(s.emulator).sandboxes.some((x) => existsSync(greetings(x.rootDir))));
    const [stale] = inventoryOfStack(s.emulator).sandboxes;
    await run.kill();
    expect(readFileSync(greetings(stale!.rootDir), "utf8")).toBe("one\n");

    await s.ok("cancel", "--yes"); // the killed run left the stack locked
    await s.ok("config", "set", "args", args("two"));
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toContain(
      `sandbox ${stale!.sandboxID}, made by an interrupted run, was made from other inputs (envVars changed since): deleting it and creating a new one`,
    );
    expect(up.output).not.toContain("adopting sandbox");
    expect(up.output).toMatch(/\+ 1 created/);
    const sandboxes = inventoryOfStack(s.emulator).sandboxes;
    expect(sandboxes.map((x) => x.sandboxID)).not.toContain(stale!.sandboxID);
    expect(sandboxes).toHaveLength(1);
    expect(readFileSync(greetings(sandboxes[0]!.rootDir), "utf8")).toBe("two\n");

    // Pulumi 3.259 keeps the killed run's pending create until a refresh clears it; then nothing is left to change.
    await s.ok("refresh", "--clear-pending-creates", "--yes", "--skip-preview");
    expect(await s.outputs()).toEqual({ id: sandboxes[0]!.sandboxID });
    await s.ok("preview", "--expect-no-changes");
    endPluginsOf(stateDir);
  }, 300_000);
});

describe("a template build started by a killed up, then the Dockerfile edited", () => {
  const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "template-build");
  const dockerfile = (line: string) => `FROM e2bdev/base:latest\nRUN ${line}\n`;
  let s: E2eStack;
  let stateDir = "";

  beforeAll(async () => {
    // Builds end only once released: still running when the kill comes; released after it, so the
    // next up's build takes the harness's short build time.
    s = await startStack(FIXTURE, "e2e-edited-template", { holdBuilds: true });
    stateDir = await backendDir(s);
  }, 120_000);

  afterAll(async () => {
    endPluginsOf(stateDir);
    await s?.close();
  });

  /** The build's log, as the service reports it. */
  async function buildLog(templateID: string, buildID: string): Promise<string> {
    const res = await fetch(`${s.emulator.apiUrl}/templates/${templateID}/builds/${buildID}/status`, { headers: { "X-API-Key": s.emulator.apiKey } });
    return ((await res.json()) as { logEntries: { message: string }[] }).logEntries.map((e) => e.message).join("\n");
  }

  test("the next up builds the template again from the new Dockerfile, and says why", async () => {
    await s.ok("config", "set", "dockerfile", dockerfile("echo one"));
    const run = await killableUp(s, FIXTURE, stateDir);
    const builds = () => inventoryOfStack(s.emulator).templates.flatMap((t) => t.builds);
    await until("the template's build to be building", () => builds().some((b) => b.status === "building"));
    const [template] = inventoryOfStack(s.emulator).templates;
    const killed = template!.builds[0]!.buildID;
    await run.kill();
    s.emulator.releaseBuilds();

    await s.ok("cancel", "--yes");
    await s.ok("config", "set", "dockerfile", dockerfile("echo two"));
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toContain(`adopting template ${template!.templateID}`);
    expect(up.output).toContain(`build ${killed} of template ${template!.templateID} is not recorded as made from these inputs`);
    expect(up.output).toContain("building the template again");
    expect(up.output).not.toContain(`waiting for build ${killed}`);
    expect(up.output).toMatch(/\+ 1 created/);

    await s.ok("refresh", "--clear-pending-creates", "--yes", "--skip-preview");
    const out = await s.outputs();
    expect(out).toMatchObject({ templateID: template!.templateID, buildCount: 2 });
    expect(out.buildID).not.toBe(killed);
    expect(out.buildSteps).toContain("RUN echo two");
    const log = await buildLog(template!.templateID, out.buildID as string);
    expect(log).toContain("RUN echo two");
    expect(log).not.toContain("RUN echo one");
    expect(s.emulator.calls().filter((c) => c.method === "POST" && c.path === "/v3/templates")).toHaveLength(2);
    await s.ok("preview", "--expect-no-changes");
    endPluginsOf(stateDir);
  }, 300_000);
});
