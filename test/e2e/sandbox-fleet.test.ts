/**
 * SandboxFleet through the real engine (issue #42): one resource for many sandboxes, reshaped test by
 * test through the stack config `fleet` (its args as JSON, fixtures/sandbox-fleet). Each test reads the
 * emulator's call log and inventory to see that only the members that change are touched, and exactly
 * once; the last kills an `up` halfway through a fleet of 100 and runs it again. Tests share one stack
 * and run in order.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, startStack, type E2eStack } from "./harness";
import { backendDir, endPluginsOf, killableUp, until } from "./kill";
import { homeFile } from "./fixtures/fleet/state";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "sandbox-fleet");
const MARKER = "pulumi-sandbox.resource";
let s: E2eStack;
let stateDir = "";

beforeAll(async () => {
  // A create takes the service a little while, as the real one's does: a kill can land halfway through a fleet.
  s = await startStack(FIXTURE, "e2e-sandbox-fleet", { latency: { createMs: 40 } });
  stateDir = await backendDir(s);
}, 300_000);

afterAll(async () => {
  endPluginsOf(stateDir);
  await s?.close();
}, 300_000);

type Obj = Record<string, unknown>;
const shared = { templateID: "base", timeoutSeconds: 3600, envVars: { TEAM: "core" } };
const people = { ada: {}, grace: { envVars: { ROLE: "lead" } }, linus: {} };
const reshape = (fleet: Obj) => s.configure({ fleet: JSON.stringify(fleet) });
const ids = async () => (await s.outputs()).ids as Record<string, string>;
/** The fleet as the state records it (after a failed `up`, the stack's outputs are those of the run before). */
async function recorded(): Promise<{ ids: Record<string, string>; ready: number }> {
  const state = JSON.parse(await s.exported()) as { deployment: { resources: { type: string; outputs?: { sandboxes: Record<string, { sandboxID: string }>; ready: number } }[] } };
  const fleet = state.deployment.resources.find((r) => r.type === "pulumi-nodejs:dynamic/sandbox:SandboxFleet")!.outputs!;
  return { ids: Object.fromEntries(Object.entries(fleet.sandboxes).map(([k, m]) => [k, m.sandboxID])), ready: fleet.ready };
}
/** Platform calls that change something since `seq`: reads and in-sandbox calls left out. */
const writes = (seq: number) => s.emulator.calls(seq).filter((c) => c.area === "platform" && c.method !== "GET").map((c) => `${c.method} ${c.path.split("?")[0]}`);
const seqNow = () => s.emulator.calls().at(-1)?.seq ?? 0;
/** Each member sandbox the service holds, by its marker's member key and generation (`ada#0`). */
const markers = () => s.emulator.state.sandboxes().map((x) => x.metadata[MARKER]?.replace(/^.*\/members\//, "")).sort();

test("up makes one sandbox per member in one step, and a preview then finds nothing to do", async () => {
  await reshape({ sandbox: shared, members: people });
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/\+ 2 created/); // the stack and the fleet: one resource for three sandboxes
  expect(Object.keys(await ids()).sort()).toEqual(["ada", "grace", "linus"]);
  expect(markers()).toEqual(["ada#0", "grace#0", "linus#0"]);
  expect((await s.outputs()).ready).toBe(3);
  const preview = await s.pulumi("preview", "--expect-no-changes");
  expect(preview.code, preview.output).toBe(0);
});

test("one member changed: the preview names it, and up touches its sandbox alone", async () => {
  const before = await ids();
  await reshape({ sandbox: shared, members: { ...people, ada: { envVars: { EDITOR: "vim" } } } });
  const preview = JSON.parse((await s.ok("preview", "--json")).stdout) as { steps: { op: string; urn: string; detailedDiff: Obj | null; diffReasons?: string[] }[] };
  const step = preview.steps.find((st) => st.urn.endsWith("SandboxFleet::pool"))!;
  expect({ op: step.op, detailedDiff: step.detailedDiff, diffReasons: step.diffReasons }).toEqual({
    op: "update", detailedDiff: { 'members["ada"].envVars': { kind: "update", inputDiff: true } }, diffReasons: ["members"],
  });
  const seq = seqNow();
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toContain("[SandboxFleet pool] members: 0 to create, 0 to update in place, 1 to replace, 0 to delete, 2 unchanged");
  const after = await ids();
  // envVars are fixed at a sandbox's creation: ada's is replaced inside the fleet, the others are not called.
  expect(writes(seq)).toEqual(["POST /v2/sandboxes", `DELETE /sandboxes/${before.ada}`]);
  expect(after).toEqual({ ...before, ada: after.ada });
  expect(after.ada).not.toBe(before.ada);
  expect(markers()).toEqual(["ada#1", "grace#0", "linus#0"]);
});

test("a member added and one removed: one create, one delete", async () => {
  const before = await ids();
  await reshape({ sandbox: shared, members: { ada: { envVars: { EDITOR: "vim" } }, grace: people.grace, eve: {} } });
  const seq = seqNow();
  await s.ok("up", "--yes", "--skip-preview");
  const after = await ids();
  expect(writes(seq).sort()).toEqual(["POST /v2/sandboxes", `DELETE /sandboxes/${before.linus}`].sort());
  expect(after).toEqual({ ada: before.ada, grace: before.grace, eve: after.eve });
  expect(markers()).toEqual(["ada#1", "eve#0", "grace#0"]);
});

test("members keyed like an object's own properties are planned and made like any other; `toString` is refused by name", async () => {
  const now = { ada: { envVars: { EDITOR: "vim" } }, grace: people.grace, eve: {} };
  await reshape({ sandbox: shared, members: { ...now, constructor: {}, valueOf: {}, hasOwnProperty: {} } });
  const preview = JSON.parse((await s.ok("preview", "--json")).stdout) as { steps: { op: string; urn: string; detailedDiff: Obj | null }[] };
  const step = preview.steps.find((st) => st.urn.endsWith("SandboxFleet::pool"))!;
  const added = { kind: "add", inputDiff: true };
  expect({ op: step.op, detailedDiff: step.detailedDiff }).toEqual({
    op: "update", detailedDiff: { 'members["constructor"]': added, 'members["valueOf"]': added, 'members["hasOwnProperty"]': added },
  });
  const seq = seqNow();
  await s.ok("up", "--yes", "--skip-preview");
  expect(writes(seq)).toEqual(["POST /v2/sandboxes", "POST /v2/sandboxes", "POST /v2/sandboxes"]);
  expect(Object.keys(await ids()).sort()).toEqual(["ada", "constructor", "eve", "grace", "hasOwnProperty", "valueOf"]);
  expect((await s.outputs()).ready).toBe(6);
  // Pulumi's Node.js SDK cannot register a map keyed "toString": the class says so before it tries.
  await reshape({ sandbox: shared, members: { ...now, toString: {} } });
  const refused = await s.pulumi("preview");
  expect(refused.code).not.toBe(0);
  expect(refused.output).toContain('SandboxFleet "pool": members has a key "toString", which Pulumi\'s Node.js SDK cannot register');
  await reshape({ sandbox: shared, members: now });
  await s.ok("up", "--yes", "--skip-preview");
  expect(markers()).toEqual(["ada#1", "eve#0", "grace#0"]);
});

test("a member removed, then added again: the re-added one is a new create with an idempotency key of its own", async () => {
  const members = { ada: { envVars: { EDITOR: "vim" } }, grace: people.grace, eve: {} };
  const { eve: first } = await ids();
  await reshape({ sandbox: shared, members: { ada: members.ada, grace: members.grace } });
  await s.ok("up", "--yes", "--skip-preview");
  await reshape({ sandbox: shared, members });
  const seq = seqNow();
  await s.ok("up", "--yes", "--skip-preview");
  const sent = s.emulator.calls(seq).filter((c) => c.method === "POST" && c.path === "/v2/sandboxes");
  expect(sent).toHaveLength(1);
  const { eve: again } = await ids();
  expect(again).not.toBe(first);
  expect(s.emulator.state.sandboxes().find((x) => x.sandboxID === again)?.state).toBe("running");
  expect((await s.outputs()).ready).toBe(3);
});

test("a member's null drops a key of the fleet's envVars: previewed as its change, and its sandbox has no such variable", async () => {
  const members = { ada: { envVars: { EDITOR: "vim" } }, grace: { envVars: { ROLE: "lead", TEAM: null } }, eve: {} };
  await reshape({ sandbox: shared, members });
  const preview = JSON.parse((await s.ok("preview", "--json")).stdout) as { steps: { urn: string; detailedDiff: Obj | null }[] };
  expect(preview.steps.find((st) => st.urn.endsWith("SandboxFleet::pool"))!.detailedDiff).toEqual({ 'members["grace"].envVars': { kind: "update", inputDiff: true } });
  await s.ok("up", "--yes", "--skip-preview");
  type Exported = { deployment: { resources: { type: string; outputs?: { sandboxes: Record<string, { sandboxID: string; envdAccessToken?: { plaintext: string } }> } }[] } };
  const state = JSON.parse(await s.exported({ showSecrets: true })) as Exported;
  const grace = state.deployment.resources.find((r) => r.type.endsWith(":SandboxFleet"))!.outputs!.sandboxes.grace!;
  // `--show-secrets` keeps a secret's envelope, with its value JSON-encoded in `plaintext`.
  const token = JSON.parse(grace.envdAccessToken!.plaintext) as string;
  const envs = (await (await fetch(`${s.emulator.sandboxUrl}/envs`, { headers: { "E2b-Sandbox-Id": grace.sandboxID, "X-Access-Token": token } })).json()) as Obj;
  expect(envs).toMatchObject({ ROLE: "lead" });
  expect(envs).not.toHaveProperty("TEAM");
  const again = await s.pulumi("preview", "--expect-no-changes");
  expect(again.code, again.output).toBe(0);
});

test("count 3, then 5, then 2: members made and deleted by key, the rest untouched; under 700 bytes of state each", async () => {
  await reshape({ sandbox: shared, count: 3 });
  await s.ok("up", "--yes", "--skip-preview");
  expect(markers()).toEqual(["0#0", "1#0", "2#0"]);
  const three = await ids();
  const small = (await s.exported()).length;
  await reshape({ sandbox: shared, count: 5 });
  let seq = seqNow();
  await s.ok("up", "--yes", "--skip-preview");
  expect(writes(seq)).toEqual(["POST /v2/sandboxes", "POST /v2/sandboxes"]);
  const five = await ids();
  expect(five).toMatchObject(three);
  // What two more members add to the whole checkpoint (`pulumi stack export`, as the backend keeps it).
  const perMember = ((await s.exported()).length - small) / 2;
  console.info(`SandboxFleet state per member, no provisioning: ${perMember} bytes`);
  expect(perMember).toBeLessThan(700);
  await reshape({ sandbox: shared, count: 2 });
  seq = seqNow();
  await s.ok("up", "--yes", "--skip-preview");
  expect(writes(seq).sort()).toEqual([five["2"], five["3"], five["4"]].map((id) => `DELETE /sandboxes/${id}`).sort());
  expect(await ids()).toEqual({ 0: three["0"], 1: three["1"] });
});

test("a shared field changed reaches every member, in place, and the update says how many", async () => {
  const before = await ids();
  await reshape({ sandbox: { ...shared, timeoutSeconds: 7200 }, count: 2 });
  const seq = seqNow();
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toContain("members: 0 to create, 2 to update in place, 0 to replace, 0 to delete, 0 unchanged; sandbox.timeoutSeconds reaches 2 members");
  expect(writes(seq).sort()).toEqual([`POST /sandboxes/${before["0"]}/timeout`, `POST /sandboxes/${before["1"]}/timeout`].sort());
  expect(await ids()).toEqual(before);
});

test("five members failing among fifty: recorded, named in the error, and retried alone by the next up once fixed", async () => {
  const failing = ["m3", "m11", "m17", "m29", "m41"];
  const members = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`m${i}`, failing.includes(`m${i}`) ? { envVars: { FAIL: "1" } } : {}]));
  const provision = { commands: [{ command: 'echo run >> ~/runs; test -z "$FAIL" || test -f ~/fixed' }] };
  await reshape({ sandbox: { ...shared, provision }, members });
  const failed = await s.pulumi("up", "--yes", "--skip-preview");
  expect(failed.code).not.toBe(0);
  // The two members of `count` before are deleted, the fifty made: 52 members to work on.
  expect(failed.output).toContain("SandboxFleet: 5 of the 52 members to create, change or delete failed:");
  const named = [...failed.output.matchAll(/^\s*members\["(m\d+)"\]: Sandbox \S+: provisioning command 1 .* exited with code 1\.$/gm)].map((m) => m[1]);
  expect([...new Set(named)].sort()).toEqual([...failing].sort());
  const { ids: made, ready } = await recorded();
  expect(Object.keys(made)).toHaveLength(50);
  expect(ready).toBe(45);

  for (const key of failing) writeFileSync(homeFile(s.emulator, made[key]!, "fixed"), "");
  const seq = seqNow();
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toContain("members: 0 to create, 5 to update in place, 0 to replace, 0 to delete, 45 unchanged");
  expect(writes(seq)).toEqual([]);
  expect(await ids()).toEqual(made);
  expect((await s.outputs()).ready).toBe(50);
  const runs = Object.entries(made).filter(([, id]) => readFileSync(homeFile(s.emulator, id, "runs"), "utf8") === "run\nrun\n").map(([key]) => key);
  expect(runs.sort()).toEqual([...failing].sort());
});

test("SIGKILL halfway through a fleet of 100: the re-run adopts what the killed run made, makes each member once, and destroy leaves nothing", async () => {
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(s.emulator.state.sandboxes()).toEqual([]);
  await reshape({ sandbox: shared, count: 100, maxParallel: 4 });
  const seq = seqNow();
  const run = await killableUp(s, FIXTURE, stateDir);
  await until("40 of the fleet's members to exist", () => s.emulator.state.sandboxes().length >= 40);
  await run.kill();
  // The killed run's provider outlives it, finishes the creates it had sent, and starts no further member.
  let last = { count: -1, since: Date.now() };
  await until("the killed run's provider to stop making members (no new one for a second)", () => {
    const count = s.emulator.state.sandboxes().length;
    if (count !== last.count) last = { count, since: Date.now() };
    return Date.now() - last.since >= 1000 && writes(seq).length === count;
  }, 60_000);
  const madeByKilled = s.emulator.state.sandboxes().map((x) => x.sandboxID).sort();
  console.info(`killed with ${madeByKilled.length} of 100 members made`);
  expect(madeByKilled.length).toBeLessThan(100);

  await s.ok("cancel", "--yes");
  await s.ok("refresh", "--clear-pending-creates", "--yes", "--skip-preview");
  const up = await s.ok("up", "--yes", "--skip-preview");
  const adopted = [...up.output.matchAll(/\[Sandbox pool\/members\/\d+\] adopting sandbox (\S+) made by an interrupted run/g)].map((m) => m[1]);
  expect([...new Set(adopted)].sort()).toEqual(madeByKilled);
  expect(writes(seq).filter((c) => c === "POST /v2/sandboxes")).toHaveLength(100);
  expect(markers()).toEqual(Array.from({ length: 100 }, (_, i) => `${i}#0`).sort());
  expect(Object.values(await ids()).sort()).toEqual(s.emulator.state.sandboxes().map((x) => x.sandboxID).sort());
  endPluginsOf(stateDir);

  await s.ok("destroy", "--yes", "--skip-preview");
  expect(s.emulator.state.sandboxes()).toEqual([]);
});

test("a fleet made paused (autoResume on) is paused when up ends, and stays paused: its claims are made before the pause", async () => {
  await reshape({ sandbox: { ...shared, state: "paused", autoResume: { enabled: true } }, count: 3 });
  await s.ok("up", "--yes", "--skip-preview");
  const made = s.emulator.state.sandboxes();
  expect(made.map((x) => x.state)).toEqual(["paused", "paused", "paused"]);
  expect((await s.outputs()).ready).toBe(3);
  const preview = await s.pulumi("preview", "--refresh", "--expect-no-changes");
  expect(preview.code, preview.output).toBe(0);
  expect(s.emulator.state.sandboxes().map((x) => x.state)).toEqual(["paused", "paused", "paused"]);
  await s.ok("destroy", "--yes", "--skip-preview");
});
