/** examples/team-environments through the real engine: one public template, a sandbox per member. */
import { afterAll, beforeAll, expect, test } from "vitest";
import { inventoryOfStack, startStack, type E2eStack } from "./harness";

let s: E2eStack;

beforeAll(async () => {
  s = await startStack("team-environments", "e2e-team");
  // The example's default sharedToken (no sharedToken config is set): the TEAM_TOKEN env var of every sandbox.
  s.secret("team-shared-token-8a7e3f", "team-environments' default sharedToken");
  await s.ok("config", "set", "--path", "members[0]", "ada");
  await s.ok("config", "set", "--path", "members[1]", "grace");
}, 300_000);

afterAll(async () => {
  await s?.close();
});

test("up makes a public template and one sandbox per member with their metadata", async () => {
  await s.ok("up", "--yes", "--skip-preview");
  const out = await s.outputs();
  const inv = inventoryOfStack(s.emulator);
  expect(inv.templates).toHaveLength(1);
  expect(inv.templates[0]).toMatchObject({ templateID: out.templateID, public: true });
  const owners = Object.fromEntries(inv.sandboxes.map((x) => [x.metadata.owner, x.sandboxID]));
  expect(owners).toEqual(out.environments);
  expect(inv.sandboxes.every((x) => x.metadata.team === "platform" && x.templateID === out.templateID)).toBe(true);
});

test("adding a member adds one sandbox and touches nothing else", async () => {
  await s.ok("config", "set", "--path", "members[2]", "linus");
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/\+ 1 created/);
  expect(up.output).toMatch(/4 unchanged/); // the stack, the template and the two sandboxes already there
  expect(inventoryOfStack(s.emulator).sandboxes).toHaveLength(3);
});

test("destroy removes every sandbox, then the template they used", async () => {
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
});
