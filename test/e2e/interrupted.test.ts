/**
 * `pulumi up` killed mid-flight, as a CI runner kills a job: SIGKILL to the CLI's whole process group,
 * (a) while a template builds and (b) while sandboxes run their provisioning. The engine is left with
 * pending creates and the file backend's lock. Pulumi 3.259 without a terminal: `pulumi cancel` removes
 * the lock; `up` then warns of the pending creates and goes on, but keeps them in the state, which only
 * `refresh --clear-pending-creates` clears. Whichever comes first, the stack must converge: what the
 * killed run made is adopted, never made twice.
 *
 * The engine starts its plugins (language host, dynamic-provider host) in process groups of their own,
 * so they outlive the kill and the provider host finishes its work (polls the build, runs the
 * commands) beside the next run. The tests let them, and end them by pid once the stack has converged.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startStack, type E2eStack } from "./harness";
import { printed } from "./kill";
import { duplicates, FLEET, homeFile, inventoryIDs, parseState } from "./fixtures/fleet/state";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { pulumiEnv } from "../../scripts/pulumi-run.mjs";

const STACK = "e2e-interrupted";
/** The harness's passphrase: the detached CLI must decrypt the same stack config. */
const PASSPHRASE = "e2e-passphrase";

let s: E2eStack;
let env: Record<string, string>;
let stateDir = "";

beforeAll(async () => {
  // Builds end only once released: the build is still running when the next `up` finds it, however
  // long the kill, `cancel` and the locked `up` before it take (15–30 s on a loaded 2-core machine).
  s = await startStack(FLEET, STACK, { holdBuilds: true });
  // The backend the harness made, so a CLI spawned here (detached, to be killed) uses the same state.
  const about = JSON.parse((await s.ok("about", "--output", "json")).stdout) as { backend: { url: string } };
  stateDir = new URL(about.backend.url).pathname;
  // Transpiled only: the fleet fixture is type-checked by `tsc -p tsconfig.json` (test/ is in it).
  env = pulumiEnv({ binDir: await ensurePulumi(), stateDir, extra: { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, PULUMI_NODEJS_TRANSPILE_ONLY: "true" } });
}, 300_000);

afterAll(async () => {
  endSurvivors();
  await s?.close();
});

/** `pulumi up` in a process group of its own, as a CI job runs it; resolves its exit once it ends. */
function detachedUp(): { pid: number; exited: Promise<void>; output: () => string } {
  const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", STACK], {
    cwd: FLEET, env, detached: true, stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return { pid: child.pid!, exited, output: () => output };
}

/** Polls the emulator's state (never a fixed sleep) until `ready` holds; fails naming `what`. */
async function until(what: string, ready: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Processes started by a CLI of this stack: they carry its backend directory in their environment. */
function survivors(): number[] {
  const mine: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").includes(`file://${stateDir}`)) mine.push(Number(pid));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return mine;
}

function endSurvivors(): void {
  if (!stateDir) return;
  for (const pid of survivors()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Kills the run's whole process group, waits for the CLI to end, and says what outlived it. */
async function killRun(run: ReturnType<typeof detachedUp>): Promise<number[]> {
  process.kill(-run.pid, "SIGKILL");
  await run.exited;
  return survivors();
}

async function expectConverged(counts: { templates: number; volumes: number; sandboxes: number }): Promise<void> {
  const state = parseState(await s.exported());
  expect(state.pending).toEqual([]);
  expect({ templates: state.templates, volumes: state.volumes, sandboxes: state.sandboxes }).toEqual(inventoryIDs(s.emulator));
  expect({ templates: state.templates.length, volumes: state.volumes.length, sandboxes: state.sandboxes.length }).toEqual(counts);
  expect(duplicates(s.emulator)).toEqual([]);
}

const stackTemplates = () => s.emulator.state.templates().filter((t) => !t.aliases.includes("base"));

test("(a) killed while a template builds: the next up waits for that same build, and there is one template with one build", async () => {
  await s.configure({ templates: "1", volumes: "0", sandboxes: "0" });
  const run = detachedUp();
  // The service marks a build building as it starts it, before its answer reaches the provider: the
  // kill must wait for the provider to say it waits for the build, or it can land before that line.
  await until("the provider to wait for the template's build", () =>
    stackTemplates().some((t) => t.builds.some((b) => b.status === "building")) && run.output().includes("waiting for build"));
  const [template] = stackTemplates();
  const buildID = template!.builds[0]!.buildID;
  const left = await killRun(run);
  console.info(`(a) killed during build ${buildID}; ${left.length} plugin process(es) outlived the CLI: ${left.join(", ")}`);
  expect(run.output()).toContain(`waiting for build ${buildID}`);

  const pending = parseState(await s.exported()).pending as { type: string; resource: { urn: string } }[];
  expect(pending.map((p) => [p.type, p.resource.urn.split("::").pop()])).toEqual([["creating", "tpl-0"]]);
  const locked = await s.pulumi("up", "--yes", "--skip-preview");
  expect(locked.code).not.toBe(0);
  expect(locked.output).toContain("the stack is currently locked");
  expect((await s.ok("cancel", "--yes")).output).toContain("has been canceled");

  const next = s.running("up", "--yes", "--skip-preview");
  await printed(next, `waiting for build ${buildID}`);
  s.emulator.releaseBuilds();
  const up = await next.result;
  expect(up.code, up.output).toBe(0);
  expect(up.output).toContain("interrupted while creating");
  expect(up.output).toContain(`adopting template ${template!.templateID}`);
  expect(up.output).toContain(`waiting for build ${buildID}`); // still running when found: waited for, not restarted
  expect(up.output).toMatch(/\+ 1 created/);
  // Pulumi 3.259 keeps the pending create in the state after such an up; only refresh clears it.
  expect(parseState(await s.exported()).pending).toHaveLength(1);
  await s.ok("refresh", "--clear-pending-creates", "--yes", "--skip-preview");
  await expectConverged({ templates: 1, volumes: 0, sandboxes: 0 });
  expect(stackTemplates()).toMatchObject([{ templateID: template!.templateID, builds: [{ buildID, status: "ready" }] }]);
  expect(s.emulator.calls().filter((c) => c.method === "POST" && c.path === "/v3/templates")).toHaveLength(1);
  expect((await s.outputs()).templateBuilds).toEqual([1]);
  endSurvivors();
}, 180_000);

test("(b) killed while sandboxes provision: refresh clears the pending creates and the next up adopts both sandboxes", async () => {
  // The template of (a) stays; a volume and two sandboxes from it are added, one mounting the volume.
  await s.configure({ volumes: "1", sandboxes: "2", provisionCommand: "date +%s%N >> ~/runs && sleep 5 && echo provisioned" });
  const postsBefore = s.emulator.calls().filter((c) => c.method === "POST" && c.path === "/v2/sandboxes").length;
  const run = detachedUp();
  const started = () => s.emulator.state.sandboxes().filter((x) => existsSync(homeFile(s.emulator, x.sandboxID, "runs")));
  await until("both sandboxes to be running their provisioning command", () => started().length === 2);
  const made = started().map((x) => x.sandboxID).sort();
  const left = await killRun(run);
  console.info(`(b) killed while provisioning ${made.join(", ")}; ${left.length} plugin process(es) outlived the CLI: ${left.join(", ")}`);

  const pending = parseState(await s.exported()).pending as { type: string; resource: { urn: string } }[];
  expect(pending.map((p) => p.resource.urn.split("::").pop()).sort()).toEqual(["box-0", "box-1"]);
  await s.ok("cancel", "--yes");
  const refresh = await s.ok("refresh", "--clear-pending-creates", "--yes", "--skip-preview");
  expect(refresh.code).toBe(0);
  expect(parseState(await s.exported()).pending).toEqual([]);

  const up = await s.ok("up", "--yes", "--skip-preview");
  for (const id of made) expect(up.output).toContain(`adopting sandbox ${id}`);
  expect(up.output).toMatch(/\+ 2 created/);
  await expectConverged({ templates: 1, volumes: 1, sandboxes: 2 });
  const out = await s.outputs();
  expect([...(out.sandboxIDs as string[])].sort()).toEqual(made);
  expect(out.provisioned).toEqual([true, true]);
  expect(s.emulator.calls().filter((c) => c.method === "POST" && c.path === "/v2/sandboxes").length - postsBefore).toBe(2);
  // The killed run started the command once in each sandbox; the next up found it running (or recorded
  // as done) under its tag and waited for it instead of running it again (provider/runtime/resume.ts).
  for (const id of made) expect(readFileSync(homeFile(s.emulator, id, "runs"), "utf8").trim().split("\n")).toHaveLength(1);
  expect(up.output).toMatch(/provision 1\/1: \$ .* (is still running from an interrupted run; waiting for it|succeeded in an earlier, interrupted run; not run again)/);
  endSurvivors();

  await s.ok("destroy", "--yes", "--skip-preview");
  expect(inventoryIDs(s.emulator)).toEqual({ templates: [], volumes: [], sandboxes: [] });
}, 180_000);
