/**
 * examples/yaml-sandbox through the real engine: a Pulumi YAML program (no SDK: the YAML host reads
 * the types from the native plugin's schema) served by the native plugin. The YAML host is the one
 * scripts/build-pulumi-cli.sh builds from github.com/pulumi/pulumi-yaml. One stack, in order.
 *
 * Its sandbox has a secret env var (a secret config value) and a plain one (`DEBUG: "1"`): the logs
 * and the stored output hide the first and show the second, and with it every "1" of an ID or a
 * number, as the dynamic provider does (the schema marks no input secret, so YAML sends secret only
 * what the program marked: provider/plugin/adapter.ts).
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
/** The provisioning command that prints the plain env var and the secret one (examples/yaml-sandbox). */
const echoCommand = 'echo "run-$DEBUG-ok, token $API_TOKEN"';

/** The Sandbox as the state records it, secrets in plaintext (`stack export --show-secrets`). */
async function sandboxState(): Promise<{ inputs: Record<string, unknown>; outputs: Record<string, unknown> }> {
  const deployment = (JSON.parse(await s.exported({ showSecrets: true })) as { deployment: { resources: { type: string; inputs: unknown; outputs: unknown }[] } }).deployment;
  const box = deployment.resources.find((r) => r.type === "sandbox:index:Sandbox")!;
  return plaintext({ inputs: box.inputs, outputs: box.outputs }) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> };
}

/** A state value with each secret (`{ <sig>: ..., plaintext: <json> }` with --show-secrets) in place. */
function plaintext(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plaintext);
  if (value === null || typeof value !== "object") return value;
  const obj = value as Record<string, unknown>;
  if (typeof obj.plaintext === "string" && Object.keys(obj).length === 2) return plaintext(JSON.parse(obj.plaintext));
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, plaintext(v)]));
}

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
  expect(up.output).toContain("[Sandbox dev] provision 1/3: $ cat /data/README.txt\n");
  expect(up.output).toContain("[Sandbox dev] provision 2/3: exit code 0");
  // The third prints both env vars: the plain one as it is, the secret one hidden; the command and its exit code as they are.
  expect(up.output).toContain(`[Sandbox dev] provision 3/3: $ ${echoCommand}\n`);
  expect(up.output).toMatch(/\[Sandbox dev\] provision 3\/3: exit code 0 in \d+\.\d s\n/);
  const { outputs } = await sandboxState();
  expect((outputs.provisionResults as unknown[])[2]).toMatchObject({ command: echoCommand, exitCode: 0, stdoutTail: "run-1-ok, token [redacted]\n" });
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
  // The env vars and the provisioning are stored encrypted whole, the plain DEBUG with the secret token.
  const box = (JSON.parse(await s.exported()) as { deployment: { resources: { type: string; inputs: Record<string, unknown>; outputs: Record<string, unknown> }[] } })
    .deployment.resources.find((r) => r.type === "sandbox:index:Sandbox")!;
  for (const key of ["envVars", "provision"]) {
    expect(box.inputs[key], `inputs.${key}`).toMatchObject({ ciphertext: expect.any(String) });
    expect(box.outputs[key], `outputs.${key}`).toMatchObject({ ciphertext: expect.any(String) });
  }
  expect((await sandboxState()).inputs.envVars).toEqual({ API_TOKEN: token, DEBUG: "1" });
});

test("pausing the sandbox logs its ID as it is, with no part of it hidden", async () => {
  await s.ok("config", "set", "state", "paused");
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).toContain(`[Sandbox dev] pausing sandbox ${String(created.sandboxID)}\n`);
  expect(inventoryOfStack(s.emulator).sandboxes.map((x) => [x.sandboxID, x.state])).toEqual([[created.sandboxID, "paused"]]);
});

test("destroy removes the sandbox, the volume and the template", async () => {
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
});
