/**
 * examples/yaml-sandbox through the real engine: a Pulumi YAML program (no SDK: the YAML host reads
 * the types from the native plugin's schema) served by the native plugin. The YAML host is the one
 * scripts/build-pulumi-cli.sh builds from github.com/pulumi/pulumi-yaml. One stack, in order.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { callsSince, inventoryOfStack, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

const EXAMPLE = join(ROOT, "examples", "yaml-sandbox");

let s: E2eStack;
/** The outputs of the first `up`, which the update in place must leave as they are. */
let created: Record<string, unknown> = {};
const token = "yaml-api-token-3c9d51e7";

beforeAll(async () => {
  s = await startStack(EXAMPLE, "e2e-yaml-sandbox");
  s.secret(token, "yaml-sandbox's apiToken");
  await s.ok("config", "set", "--secret", "apiToken", token);
}, 300_000);

afterAll(async () => {
  await s?.close();
});

test("up builds the template, seeds the volume and provisions a sandbox mounting it, from YAML", async () => {
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toMatch(/\+ 4 created/); // the stack, the template, the volume, the sandbox
  const out = (created = await s.outputs());
  const inv = inventoryOfStack(s.emulator);
  expect(inv.templates.map((t) => t.templateID)).toEqual([out.templateID]);
  expect(inv.volumes.map((v) => v.name)).toEqual([out.volumeName]);
  expect(readFileSync(join(inv.volumes[0]!.hostDir, "README.txt"), "utf8")).toBe(readFileSync(join(EXAMPLE, "seed", "README.txt"), "utf8"));
  expect(inv.sandboxes.map((x) => [x.sandboxID, x.templateID, x.metadata.team])).toEqual([[out.sandboxID, out.templateID, "platform"]]);
  expect(out.provisioned).toBe(true);
  // The second command passes only with the secret env var set; the first reads the volume's seed.
  expect(up.output).toContain("[Sandbox dev] provision 2/2: exit code 0");
});

test("a preview of the unchanged program expects no changes", async () => {
  await s.ok("preview", "--expect-no-changes");
});

test("a longer timeout is one call in place: the same sandbox, nothing else touched", async () => {
  await s.ok("config", "set", "timeoutSeconds", "7200");
  const preview = await s.ok("preview", "--diff");
  expect(preview.output).toMatch(/~ 1 to update/);
  expect(preview.output).not.toMatch(/to replace|to create|to delete/);
  const since = lastSeq(s.emulator);
  await s.ok("up", "--yes", "--skip-preview");
  // Reads may follow (the outputs as the service now reports them); the one change is the timeout.
  expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET "))).toEqual([`POST /sandboxes/${String(created.sandboxID)}/timeout`]);
  expect(await s.outputs()).toEqual(created);
  // The service's deadline moved: two hours from the call, where the first up set one.
  const [box] = inventoryOfStack(s.emulator).sandboxes;
  expect(Date.parse(String(box?.endAt)) - Date.now()).toBeGreaterThan(3600_000);
  await s.ok("preview", "--expect-no-changes");
});

test("the state holds the secret config value only encrypted", async () => {
  expect(await s.exported()).not.toContain(token);
  // It is there, decrypted on request: the check above looks where the value is.
  expect(await s.exported({ showSecrets: true })).toContain(token);
});

test("destroy removes the sandbox, the volume and the template", async () => {
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
});
