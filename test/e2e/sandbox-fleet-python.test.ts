/**
 * The SandboxFleet of sandbox-fleet.test.ts in Python (fixtures/sandbox-fleet-python), through the native
 * plugin and the Python SDK generated from schema.json, with the virtualenv set up as
 * plugin-python.test.ts does: one up, one preview (of one member changed: the plugin's Diff names it to
 * the engine), one destroy.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, startStack, type E2eStack } from "./harness";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "sandbox-fleet-python");
let s: E2eStack;
let venv = "";

beforeAll(async () => {
  venv = mkdtempSync(join(tmpdir(), "pulumi-sandbox-venv-"));
  execFileSync("python3", ["-m", "venv", join(venv, "env")], { stdio: "pipe" });
  // The SDK installed from a copy: setuptools builds in the source tree, which would leave files in sdks/.
  cpSync(join(ROOT, "sdks", "python"), join(venv, "sdk"), { recursive: true });
  const requirements = readFileSync(join(FIXTURE, "requirements.txt"), "utf8").replace("../../../../sdks/python", join(venv, "sdk"));
  expect(requirements).toContain(join(venv, "sdk"));
  writeFileSync(join(venv, "requirements.txt"), requirements);
  execFileSync(join(venv, "env", "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", "-r", join(venv, "requirements.txt")], { stdio: "pipe" });
  process.env.PATH = [join(venv, "env", "bin"), process.env.PATH].join(delimiter);
  s = await startStack(FIXTURE, "e2e-sandbox-fleet-python");
}, 600_000);

afterAll(async () => {
  await s?.close();
  if (venv) rmSync(venv, { recursive: true, force: true });
});

const markers = () => s.emulator.state.sandboxes().map((x) => x.metadata["pulumi-sandbox.resource"]?.replace(/^.*::/, "")).sort();

test("up makes one sandbox per person as one resource, from Python", async () => {
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/\+ 2 created/); // the stack and the fleet
  const out = await s.outputs();
  expect(Object.keys(out.ids as object).sort()).toEqual(["ada", "grace", "linus"]);
  expect(out.ready).toBe(3);
  // Keyed by the plugin's URN (its type token) and the member: the marker of each member's sandbox.
  expect(markers()).toEqual(["pool/members/ada#0", "pool/members/grace#0", "pool/members/linus#0"]);
  expect(s.emulator.state.sandboxes().every((x) => x.metadata["pulumi-sandbox.resource"]!.includes("::sandbox:index:SandboxFleet::pool/members/"))).toBe(true);
});

test("preview of one member changed: the plugin's Diff names that member to the engine", async () => {
  await s.configure({ editor: "vim" });
  const preview = JSON.parse((await s.ok("preview", "--json")).stdout) as { steps: { op: string; urn: string; detailedDiff: unknown; diffReasons?: string[] }[] };
  const step = preview.steps.find((st) => st.urn.endsWith("sandbox:index:SandboxFleet::pool"))!;
  expect({ op: step.op, detailedDiff: step.detailedDiff, diffReasons: step.diffReasons }).toEqual({
    op: "update", detailedDiff: { 'members["ada"].envVars': { kind: "update", inputDiff: true } }, diffReasons: ["members"],
  });
});

test("destroy deletes every member", async () => {
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(s.emulator.state.sandboxes()).toEqual([]);
});
