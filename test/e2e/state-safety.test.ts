/**
 * What users hit on day 100, through the real engine: a preview plans exactly what `up` then does;
 * renames (stack, resource with `aliases`) change nothing; same-named children of two components
 * own different volumes; each kind of replacement leaves nothing orphaned; a secret inside a
 * provisioning command reaches neither the log nor the state in plaintext. Tests share one stack and
 * run in order.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callsSince, inventoryOfStack, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

let s: E2eStack;
const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "state-safety");
/** The same program under another project name (gitignored; made and removed here). */
const MOVED = join(ROOT, "test", "e2e", "fixtures", "state-safety-moved.tmp");

beforeAll(async () => {
  s = await startStack(FIXTURE, "e2e-state");
}, 300_000);

afterAll(async () => {
  await s?.close();
  rmSync(MOVED, { recursive: true, force: true });
}, 300_000);

interface Step {
  op: string;
  urn: string;
}

/**
 * The plan of `pulumi preview --json`: the op of each resource it would change, by resource name
 * (the stack itself left out). Resources left alone ("same") are not listed by the CLI.
 */
async function plan(): Promise<Record<string, string>> {
  const res = await s.pulumi("preview", "--json");
  expect(res.code, res.output).toBe(0);
  const steps = (JSON.parse(res.stdout) as { steps?: Step[] }).steps ?? [];
  const ops: Record<string, string> = {};
  for (const step of steps) {
    if (step.urn.includes("pulumi:pulumi:Stack")) continue;
    ops[step.urn.slice(step.urn.lastIndexOf("::") + 2)] = step.op;
  }
  return ops;
}

const ids = async () => {
  const out = await s.outputs();
  return { templateID: out.templateID, volumeID: out.volumeID, sandboxID: out.sandboxID };
};

describe("state you can trust, on the real engine", () => {
  test("up makes everything; two components' children named alike own different volumes", async () => {
    await s.ok("up", "--yes", "--skip-preview");
    const out = await s.outputs();
    const [a, b] = out.teamVolumes as string[];
    expect(a).toMatch(/^shared-[0-9a-f]{8}$/);
    expect(b).toMatch(/^shared-[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    const inv = inventoryOfStack(s.emulator);
    expect(inv.volumes.map((v) => v.name).sort()).toEqual([a, b, out.volumeName].sort());
    expect(inv.sandboxes.map((x) => x.sandboxID)).toEqual([out.sandboxID]);
    expect(await plan()).toEqual({});
  });

  test("a secret inside a provisioning command is in neither the log nor the state", async () => {
    const token = (await s.peek("stack", "output", "volumeToken", "--show-secrets")).stdout.trim();
    s.secret(token, "the volume's token, embedded in a provisioning command");
    const up = await s.ok("up", "--yes", "--skip-preview", "--refresh");
    expect(up.output).not.toContain(token);
    const exported = await s.exported();
    expect(exported).not.toContain(token);
    expect(exported).not.toContain("token-checked"); // provisionResults is a secret output: encrypted
    // close() scans every CLI output, the export and the backend's files for the token too.
  });

  test("a public flip: preview plans a Template update and the Sandbox the same; up does that", async () => {
    const before = await ids();
    await s.ok("config", "set", "public", "true");
    expect(await plan()).toEqual({ tpl: "update" });
    await s.ok("up", "--yes", "--skip-preview");
    expect(await ids()).toEqual(before);
  });

  test("a Dockerfile change: a rebuild in place, and the Sandbox on it stays", async () => {
    const before = await ids();
    await s.ok("config", "set", "rev", "2");
    expect(await plan()).toEqual({ tpl: "update" });
    await s.ok("up", "--yes", "--skip-preview");
    expect(await ids()).toEqual(before);
  });

  test("an egress change: preview plans a Sandbox update; up makes it with one PUT, same sandbox", async () => {
    const before = await ids();
    await s.ok("config", "set", "denyOut", "192.168.0.0/16");
    expect(await plan()).toEqual({ box: "update" });
    const since = lastSeq(s.emulator);
    await s.ok("up", "--yes", "--skip-preview");
    expect(await ids()).toEqual(before);
    expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"))).toEqual([`PUT /sandboxes/${before.sandboxID}/network`]);
  });

  test("state paused, then running: each an in-place update of one call, the same sandbox", async () => {
    const before = await ids();
    for (const [state, call] of [["paused", "pause"], ["running", "connect"]] as const) {
      await s.ok("config", "set", "state", state);
      expect(await plan(), state).toEqual({ box: "update" });
      const since = lastSeq(s.emulator);
      await s.ok("up", "--yes", "--skip-preview");
      expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET")), state).toEqual([`POST /sandboxes/${before.sandboxID}/${call}`]);
      expect(s.emulator.state.sandboxes().map((x) => [x.sandboxID, x.state])).toEqual([[before.sandboxID, state]]);
    }
    await s.ok("config", "rm", "state");
    expect(await plan()).toEqual({});
  });

  test("a stack rename changes nothing", async () => {
    await s.renameStack("e2e-state-renamed");
    const preview = await s.pulumi("preview", "--expect-no-changes");
    expect(preview.code, preview.output).toBe(0);
  });

  test("a project rename changes nothing", async () => {
    rmSync(MOVED, { recursive: true, force: true });
    cpSync(FIXTURE, MOVED, { recursive: true, filter: (src) => !/Pulumi\.[^/]+\.yaml$/.test(src) });
    const project = readFileSync(join(FIXTURE, "Pulumi.yaml"), "utf8");
    expect(project).toMatch(/^name: state-safety$/m);
    writeFileSync(join(MOVED, "Pulumi.yaml"), project.replace(/^name: state-safety$/m, "name: state-safety-moved"));
    await s.ok("stack", "rename", `organization/state-safety-moved/${s.stack}`);
    s.moveTo(MOVED);
    // The program's own config keys are namespaced by the project: a user renaming it renames them too.
    const config = join(MOVED, `Pulumi.${s.stack}.yaml`);
    writeFileSync(config, readFileSync(config, "utf8").replace(/^(\s+)state-safety:/gm, "$1state-safety-moved:"));
    const preview = await s.pulumi("preview", "--expect-no-changes");
    expect(preview.code, preview.output).toBe(0);
  });

  test("a resource renamed with an alias changes nothing", async () => {
    await s.ok("config", "set", "renamed", "true");
    const preview = await s.pulumi("preview", "--expect-no-changes");
    expect(preview.code, preview.output).toBe(0);
    const before = await ids();
    await s.ok("up", "--yes", "--skip-preview");
    expect(await ids()).toEqual(before);
  });

  test("replacing the Sandbox (a new volume mount): the old one is gone, one new one runs", async () => {
    const before = await ids();
    await s.ok("config", "set", "moreMounts", "true");
    expect(await plan()).toEqual({ box: "replace" });
    const up = await s.ok("up", "--yes", "--skip-preview");
    const after = await ids();
    expect(after.sandboxID).not.toBe(before.sandboxID);
    // The stack was renamed before: the replacement is keyed by its URN now and meets nothing by a marker.
    expect(up.output).not.toContain("warning: sandbox");
    expect(inventoryOfStack(s.emulator).sandboxes.map((x) => x.sandboxID)).toEqual([after.sandboxID]);
  });

  test("replacing a Volume (a chosen name): the old one is gone, the new one is mounted", async () => {
    const before = await ids();
    await s.ok("config", "set", "volumeName", "chosen-data");
    expect(await plan()).toEqual({ "data-renamed": "replace", box: "replace" });
    await s.ok("up", "--yes", "--skip-preview");
    const after = await ids();
    expect(after.volumeID).not.toBe(before.volumeID);
    const names = inventoryOfStack(s.emulator).volumes.map((v) => v.name);
    expect(names).toContain("chosen-data");
    expect(names).toHaveLength(3);
  });

  test("replacing a Template with a chosen alias (a new team): deleted first, then made again", async () => {
    await s.ok("config", "set", "alias", "state-safety-tpl");
    await s.ok("up", "--yes", "--skip-preview");
    const before = await ids();
    await s.ok("config", "set", "teamID", "team-b");
    expect(await plan()).toEqual({ tpl: "replace", box: "replace" });
    // The new template takes the alias the old one holds: this up succeeds only if the old one goes first.
    await s.ok("up", "--yes", "--skip-preview");
    const after = await ids();
    expect(after.templateID).not.toBe(before.templateID);
    const inv = inventoryOfStack(s.emulator);
    expect(inv.templates.map((t) => t.templateID)).toEqual([after.templateID]);
    expect(inv.sandboxes.map((x) => x.sandboxID)).toEqual([after.sandboxID]);
    const preview = await s.pulumi("preview", "--expect-no-changes");
    expect(preview.code, preview.output).toBe(0);
  });

  test("destroy leaves nothing of the stack", async () => {
    await s.ok("destroy", "--yes");
    expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
  });
});
