/**
 * A name used twice, through the real engine (issue "Identity that holds", items 1 and 2). A sandbox
 * renamed away with `aliases` keeps its key, so a new resource later declared under the old name finds
 * the renamed one's sandbox by the marker: it must leave it alone (a finished create claimed it) and
 * make its own. An auto-named Volume, Secret and Template under the old name get the next free name
 * (`<first name>-2`), which the preview already shows, and the renamed ones' objects stay theirs; so does
 * a Snapshot (its name is chosen at the create), and a TemplateTag asking for the renamed one's tag is
 * refused. A parent
 * replaced by `up --replace`, or gone and made again by `up --refresh`: its fork carries the parent's
 * marker and must never be taken for it, and the sandbox it replaces is not one to delete by hand.
 * Tests share one stack and run in order.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, startStack, type E2eStack } from "./harness";

let s: E2eStack;
const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "name-reuse");
let first: Record<string, unknown> = {};

beforeAll(async () => {
  s = await startStack(FIXTURE, "e2e-name-reuse");
}, 300_000);

afterAll(async () => {
  await s?.close();
}, 300_000);

const running = () => s.emulator.state.sandboxes().filter((x) => x.state === "running").map((x) => x.sandboxID).sort();
const metadataOf = (id: unknown) => s.emulator.state.sandboxes().find((x) => x.sandboxID === id)?.metadata ?? {};

test("up makes web, a parent and its fork", async () => {
  await s.ok("up", "--yes", "--skip-preview");
  first = await s.outputs();
  expect(running()).toEqual([first.webID, first.parentID, first.forkID].sort());
});

test("renamed with an alias: nothing to do, the same sandbox", async () => {
  await s.configure({ renamed: "true" });
  const preview = await s.pulumi("preview", "--expect-no-changes");
  expect(preview.code, preview.output).toBe(0);
  await s.ok("up", "--yes", "--skip-preview");
  const out = await s.outputs();
  for (const key of ["webID", "dataID", "tokenID", "imgID", "dataName", "tokenName", "imgName", "prodBuild", "snapID"]) expect(out[key], key).toBe(first[key]);
});

test("a new sandbox under the old name is made anew, and the renamed one's sandbox still runs", async () => {
  await s.configure({ reused: "true" });
  // A preview is a promise: the names it plans are the ones `up` makes.
  const preview = await s.ok("preview", "--diff");
  for (const key of ["data", "token", "img"]) expect(preview.output, key).toContain(`"${String(first[`${key}Name`])}-2"`);
  const up = await s.ok("up", "--yes", "--skip-preview");
  const out = await s.outputs();
  expect(out.webID).toBe(first.webID);
  expect(out.reusedID).not.toBe(first.webID);
  expect(running()).toEqual([first.webID, out.reusedID, first.parentID, first.forkID].sort());
  // One marker (the key of the URN `web`, which both had first), two resources: two nonces.
  const [blue, green] = [metadataOf(first.webID), metadataOf(out.reusedID)];
  expect(green["pulumi-sandbox.resource"]).toBe(blue["pulumi-sandbox.resource"]);
  expect(green["pulumi-sandbox.nonce"]).toMatch(/^[0-9a-f]{16}$/);
  expect(green["pulumi-sandbox.nonce"]).not.toBe(blue["pulumi-sandbox.nonce"]);
  // Said on the new resource's row, naming the sandbox it left alone.
  expect(up.output).toContain(`Sandbox web created (`);
  expect(up.output).toContain(`[Sandbox web] warning: sandbox ${String(first.webID)} carries this resource's marker, but a finished create made it for another resource`);
  // Each auto-named kind: a new object under the next name, the renamed one's kept, and said why.
  for (const [key, kind, what] of [["data", "Volume", "volume name"], ["token", "Secret", "secret name"], ["img", "Template", "alias"]] as const) {
    expect(out[`${key}ID`], key).toBe(first[`${key}ID`]);
    expect(out[`${key}ReusedID`], key).not.toBe(first[`${key}ID`]);
    expect(out[`${key}ReusedName`], key).toBe(`${String(first[`${key}Name`])}-2`);
    expect(up.output).toContain(`[${kind} ${key}] warning: ${what} "${String(first[`${key}Name`])}" is held by another resource's ${kind.toLowerCase()}`);
  }
  expect(s.emulator.state.volumes().map((v) => v.volumeID).sort()).toEqual([first.dataID, out.dataReusedID].sort());
  // A Snapshot of the same sandbox from the same inputs: the renamed one's name is claimed, so the new one takes its own.
  const snapAlias = String(first.snapID).slice(String(first.snapID).indexOf("/") + 1, String(first.snapID).lastIndexOf(":"));
  expect(out.snapID).toBe(first.snapID);
  expect(out.snapReusedID).toBe(String(first.snapID).replace(`${snapAlias}:`, `${snapAlias}-2:`));
  expect(up.output).toContain(`[Snapshot snap] warning: snapshot name "${snapAlias}" is held by another resource's snapshot`);
  const again = await s.pulumi("preview", "--expect-no-changes");
  expect(again.code, again.output).toBe(0);
});

test("a new TemplateTag under the old name asking for the renamed one's tag is refused: one tag is never two resources'", async () => {
  const tagsOf = async () => {
    const res = await fetch(`${s.emulator.apiUrl}/templates/${String(first.imgID)}/tags`, { headers: { "X-API-Key": s.emulator.apiKey } });
    return ((await res.json()) as { tag: string; buildID: string }[]).filter((t) => t.tag === "prod");
  };
  const before = await tagsOf();
  expect(before.map((t) => t.buildID)).toEqual([first.prodBuild]);
  await s.configure({ tagReused: "true" });
  const up = await s.pulumi("up", "--yes", "--skip-preview");
  expect(up.code, up.output).not.toBe(0);
  expect(up.output).toContain(`tag: "prod" of template ${String(first.imgName)} (build ${String(first.prodBuild)}) was set by another resource made under this one's first name, whose create finished`);
  // The renamed one's tag is as it was, and only it records the tag.
  expect(await tagsOf()).toEqual(before);
  await s.configure({ tagReused: "false" });
  const again = await s.pulumi("preview", "--expect-no-changes");
  expect(again.code, again.output).toBe(0);
});

test("replacing the new web: its old sandbox is the one it replaces (no warning), web-blue's still is not", async () => {
  const before = await s.outputs();
  await s.configure({ reusedColor: "teal" });
  const up = await s.ok("up", "--yes", "--skip-preview");
  const out = await s.outputs();
  expect(out.reusedID).not.toBe(before.reusedID);
  expect(out.webID).toBe(first.webID);
  expect(running()).toEqual([first.webID, out.reusedID, first.parentID, first.forkID].sort());
  expect(up.output).toContain(`[Sandbox web] sandbox ${String(before.reusedID)}, which this one replaces, is left for the engine to delete`);
  expect(up.output).toContain(`[Sandbox web] warning: sandbox ${String(first.webID)} carries this resource's marker`);
});

/** The URN the state records for the fixture's Sandbox `name`. */
async function sandboxUrn(name: string): Promise<string> {
  const state = JSON.parse(await s.exported()) as { deployment: { resources?: { urn: string; type: string }[] } };
  const found = state.deployment.resources?.find((r) => r.type === "pulumi-nodejs:dynamic/sandbox:Sandbox" && r.urn.endsWith(`::${name}`));
  if (!found) throw new Error(`no Sandbox ${name} in the state`);
  return found.urn;
}

/** The fork's line on the row of its parent's new sandbox: a copy of the parent's marker, never the parent. */
const forkLine = (fork: unknown) => `[Sandbox parent] sandbox ${String(fork)} is a fork of a sandbox made under this resource's marker, which it carries as a copy: it is another resource's, and is left as it is`;

test("up --replace of the parent: the row says its old sandbox may be the one replaced (no delete advice), and never so of its fork", async () => {
  const before = await s.outputs();
  const up = await s.ok("up", "--replace", await sandboxUrn("parent"), "--yes", "--skip-preview");
  const out = await s.outputs();
  expect(out.parentID).not.toBe(before.parentID);
  // The fork follows its new parent (forkFrom changed: a replacement).
  expect(out.forkID).not.toBe(before.forkID);
  expect(running()).toEqual([out.webID, out.reusedID, out.parentID, out.forkID].sort());
  const row = up.output.split("\n").filter((l) => l.includes("[Sandbox parent]")).map((l) => l.trim());
  // Checked afresh, the create cannot tell the sandbox it replaces from another resource's: it says both, and advises no delete.
  expect(row).toContain(
    `[Sandbox parent] warning: sandbox ${String(before.parentID)} carries this resource's marker, but a finished create made it for another resource ` +
      "(one renamed away from this name with `aliases`, or moved to another stack with `pulumi state move`), or it is the one this create replaces " +
      "(`pulumi up --replace`, `pulumi state taint`), which the engine deletes once this one exists: it is left as it is and a new sandbox is made.",
  );
  expect(row).toContain(forkLine(before.forkID));
  expect(row.join("\n")).not.toMatch(/delete it|DELETE \/sandboxes/);
});

test("a parent gone from the service is made again by up --refresh; its fork is never taken for it", async () => {
  const before = await s.outputs();
  const res = await fetch(`${s.emulator.apiUrl}/sandboxes/${String(before.parentID)}`, { method: "DELETE", headers: { "X-API-Key": s.emulator.apiKey } });
  expect(res.status).toBe(204);
  const up = await s.ok("up", "--refresh", "--yes", "--skip-preview");
  const out = await s.outputs();
  expect(out.parentID).not.toBe(before.parentID);
  expect(out.parentID).not.toBe(before.forkID);
  // The fork followed its new parent (forkFrom changed: a replacement); the old fork is gone with it.
  expect(out.forkID).not.toBe(before.forkID);
  expect(running()).toEqual([out.webID, out.reusedID, out.parentID, out.forkID].sort());
  expect(up.output).toContain(forkLine(before.forkID));
  // A second `up --refresh` finds everything as recorded: no cycle.
  const second = await s.ok("up", "--refresh", "--yes", "--skip-preview");
  expect(second.output).not.toMatch(/created|replaced|deleted/);
  expect(await s.outputs()).toEqual(out);
});

test("destroy leaves nothing", async () => {
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(s.emulator.state.sandboxes()).toEqual([]);
  expect(s.emulator.state.volumes()).toEqual([]);
  expect(s.emulator.state.templates().filter((t) => String(t.aliases).startsWith("img"))).toEqual([]);
  const secrets = await fetch(`${s.emulator.apiUrl}/secrets`, { headers: { "X-API-Key": s.emulator.apiKey } });
  expect(await secrets.json()).toEqual([]);
});
