/** examples/team-environments-fleet through the real engine: one template, and one sandbox per person as one SandboxFleet. */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { inventoryOfStack, startStack, type E2eStack } from "./harness";
import { homeFile } from "./fixtures/fleet/state";

let s: E2eStack;

beforeAll(async () => {
  s = await startStack("team-environments-fleet", "e2e-team-fleet");
  // The example's default sharedToken (no sharedToken config is set): the TEAM_TOKEN env var of every sandbox.
  s.secret("team-shared-token-8a7e3f", "team-environments-fleet's default sharedToken");
  await s.configure({ people: JSON.stringify({ ada: {}, grace: { envVars: { EDITOR: "emacs" } } }) });
}, 300_000);

afterAll(async () => {
  await s?.close();
});

/** Platform calls that change something since `seq`. */
const writes = (seq: number) => s.emulator.calls(seq).filter((c) => c.area === "platform" && c.method !== "GET").map((c) => `${c.method} ${c.path.split("?")[0]}`);

test("up makes the template and one provisioned sandbox per person, as one fleet", async () => {
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/\+ 3 created/); // the stack, the template, the fleet
  const out = await s.outputs();
  expect(out.ready).toBe(2);
  const ids = out.environmentIDs as Record<string, string>;
  const inv = inventoryOfStack(s.emulator);
  expect(Object.fromEntries(inv.sandboxes.map((x) => [x.metadata.owner, x.sandboxID]))).toEqual(ids);
  expect(inv.sandboxes.map((x) => [x.metadata.team, x.templateID])).toEqual([["platform", out.templateID], ["platform", out.templateID]]);
  expect(readFileSync(homeFile(s.emulator, ids.grace!, "WELCOME"), "utf8")).toBe("workspace of grace (platform)\n");
});

test("a person added: one sandbox made, and nobody else's touched", async () => {
  const before = (await s.outputs()).environmentIDs as Record<string, string>;
  await s.configure({ people: JSON.stringify({ ada: {}, grace: { envVars: { EDITOR: "emacs" } }, linus: {} }) });
  const seq = s.emulator.calls().at(-1)?.seq ?? 0;
  await s.ok("up", "--yes", "--skip-preview");
  const after = (await s.outputs()).environmentIDs as Record<string, string>;
  expect(writes(seq)).toEqual(["POST /v2/sandboxes"]);
  expect(after).toEqual({ ...before, linus: after.linus });
  expect(Object.keys(after).sort()).toEqual(["ada", "grace", "linus"]);
});

test("destroy removes every sandbox, then the template", async () => {
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
});
