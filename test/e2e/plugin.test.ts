/**
 * The native provider plugin (bin/pulumi-resource-sandbox) through the real engine against the
 * emulator: resources registered by type token (`sandbox:index:Volume`), served by the same runtime as
 * the dynamic provider, found by the engine through `plugins.providers` in the fixture's Pulumi.yaml.
 * Tests in this file share one stack and run in order.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PlatformClient } from "../../sdk/platform/client";
import { callsSince, inventoryOfStack, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

let s: E2eStack;
const token = "e2e-plugin-token-5b8e21f0";
/** The value a secret was made with outside Pulumi, and the one the program then declares for it. */
const outsideValue = "e2e-plugin-outside-value-3c94a1";
const programValue = "e2e-plugin-program-value-8e07d2";

beforeAll(async () => {
  // The CLI offers `--event-log` only with its debug commands on.
  process.env.PULUMI_DEBUG_COMMANDS = "true";
  s = await startStack(join(ROOT, "test", "e2e", "fixtures", "plugin"), "e2e-plugin");
  s.secret(token, "the fixture's token (envVars.TOKEN)");
  s.secret(outsideValue, "the imported secret's value, written outside Pulumi");
  s.secret(programValue, "the imported secret's value in the program (adoptSecretValue)");
  await s.ok("config", "set", "--secret", "token", token);
}, 300_000);

afterAll(async () => {
  await s?.close();
});

/** The engine's event log of a command (`--event-log`): one JSON event a line. */
type EngineEvent = { diagnosticEvent?: { urn?: string; message: string; severity: string; ephemeral?: boolean } };
async function withEventLog(...args: string[]): Promise<{ output: string; events: EngineEvent[] }> {
  const dir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-events-"));
  try {
    const res = await s.ok(...args, "--event-log", join(dir, "events.jsonl"));
    const events = readFileSync(join(dir, "events.jsonl"), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as EngineEvent);
    return { output: res.output, events };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type StateResource = { type: string; urn: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> };
async function resources(): Promise<StateResource[]> {
  return (JSON.parse(await s.exported()) as { deployment: { resources: StateResource[] } }).deployment.resources;
}

describe("the native plugin on the real engine", () => {
  test("up creates a Volume and a provisioned Sandbox mounting it, through the plugin; progress on the Sandbox's row", async () => {
    const up = await withEventLog("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+ 3 created/);
    // Progress lines reach the engine's log against the URN: shown on the resource's own row.
    expect(up.output).toMatch(/sandbox:index:Sandbox box creating \([\d.]+s\) \[Sandbox box\] provision 1\/1 \| provisioned through the plugin/);
    expect(up.output).toContain("sandbox:index:Sandbox (box):\n    [Sandbox box] provision 1/1");
    // In the engine's events: the command's output is status (ephemeral: on the row, not in the
    // summary); the plugin's own step lines are kept. Both name the Sandbox's URN.
    const urn = "urn:pulumi:e2e-plugin::plugin::sandbox:index:Sandbox::box";
    const lines = up.events.flatMap((e) => (e.diagnosticEvent?.urn === urn ? [e.diagnosticEvent] : []));
    expect(lines).toContainEqual(expect.objectContaining({ message: expect.stringContaining("[Sandbox box] provision 1/1 | provisioned through the plugin"), ephemeral: true }));
    const started = lines.find((l) => l.message.includes("[Sandbox box] provision 1/1: $ echo provisioned through the plugin"));
    expect(started?.ephemeral ?? false).toBe(false);
    expect(up.output).not.toContain("    [Sandbox box] provision 1/1 | provisioned through the plugin");
    const out = await s.outputs();
    const inv = inventoryOfStack(s.emulator);
    expect(inv.volumes.map((v) => [v.volumeID, v.name])).toEqual([[out.volumeID, "plugin-data"]]);
    expect(inv.sandboxes.map((x) => x.sandboxID)).toEqual([out.sandboxID]);
    // The marker holds the resource key: the ID of the stack's provider (the engine sends it with Configure), then the URN.
    const provider = (await resources()).find((r) => r.type === "pulumi:providers:sandbox");
    expect(provider?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(inv.sandboxes[0]?.metadata).toMatchObject({ team: "plugin", "pulumi-sandbox.resource": `${provider?.id}/${urn}#0` });
    expect(out.envdVersion).toEqual(expect.any(String));
  });

  test("state names the plugin's provider and holds no __provider; secrets stay secret", async () => {
    const state = await resources();
    expect(state.map((r) => r.type)).toEqual(["pulumi:pulumi:Stack", "pulumi:providers:sandbox", "sandbox:index:Volume", "sandbox:index:Sandbox"]);
    for (const r of state) expect(Object.keys({ ...r.inputs, ...r.outputs })).not.toContain("__provider");
    const [volume, box] = [state[2]!, state[3]!];
    // Secret inputs and outputs arrive and leave wrapped: the program's envVars, the spec's token.
    expect(box.inputs?.envVars).toMatchObject({ ciphertext: expect.any(String) });
    expect(box.outputs?.envVars).toMatchObject({ ciphertext: expect.any(String) });
    expect(volume.outputs?.token).toMatchObject({ ciphertext: expect.any(String) });
    // The program's secrets, which logs hide (`__secrets`), are kept as the dynamic provider keeps them: encrypted.
    expect(box.inputs?.__secrets).toMatchObject({ ciphertext: expect.any(String) });
    expect(box.outputs?.__secrets).toMatchObject({ ciphertext: expect.any(String) });
  });

  test("a second up changes nothing and sends the service nothing", async () => {
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/3 unchanged/);
    expect(callsSince(s.emulator, since)).toEqual([]);
  });

  test("a new timeoutSeconds updates the sandbox in place", async () => {
    const before = await s.outputs();
    await s.ok("config", "set", "timeoutSeconds", "900");
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/~ 1 updated/);
    expect((await s.outputs()).sandboxID).toBe(before.sandboxID);
  });

  test("pulumi import reads a volume made outside Pulumi through the plugin; declaring it then changes nothing", async () => {
    const client = new PlatformClient({ apiUrl: s.emulator.apiUrl, apiKey: s.emulator.apiKey });
    const made = await client.volumes.create({ name: "outside" });
    const imported = await s.ok("import", "sandbox:index:Volume", "outside", made.volumeID, "--yes", "--protect=false", "--generate-code=false");
    expect(imported.output).toMatch(/= 1 imported/);
    const volume = (await resources()).find((r) => r.urn.endsWith("::outside"));
    expect(volume?.inputs).toEqual({ name: "outside" });
    expect(volume?.outputs).toMatchObject({ volumeID: made.volumeID, name: "outside", token: { ciphertext: expect.any(String) } });
    await s.ok("config", "set", "adopt", "outside");
    const preview = await s.pulumi("preview", "--expect-no-changes");
    expect(preview.code, preview.output).toBe(0);
  });

  test("pulumi import reads a sandbox made outside Pulumi; declaring it as it was made then changes nothing", async () => {
    const client = new PlatformClient({ apiUrl: s.emulator.apiUrl, apiKey: s.emulator.apiKey });
    const made = await client.sandboxes.create({ templateID: "base", timeout: 300, metadata: { team: "outside" } });
    const imported = await s.ok("import", "sandbox:index:Sandbox", "outside-box", made.sandboxID, "--yes", "--protect=false", "--generate-code=false");
    expect(imported.output).toMatch(/= 1 imported/);
    const box = (await resources()).find((r) => r.urn.endsWith("::outside-box"));
    // The template by the alias a program names it by; the life it was given; no `state` wish.
    expect(box?.inputs).toEqual({ templateID: "base", timeoutSeconds: 300, metadata: { team: "outside" } });
    await s.ok("config", "set", "adoptSandbox", "outside");
    const preview = await s.pulumi("preview", "--expect-no-changes", "--diff");
    expect(preview.code, preview.output).toBe(0);
  });

  test("pulumi import of a template records no Dockerfile; declaring it changes nothing, and a later Dockerfile change rebuilds it in place", async () => {
    const client = new PlatformClient({ apiUrl: s.emulator.apiUrl, apiKey: s.emulator.apiKey, accessToken: s.emulator.accessToken });
    const made = await client.templates.create({ dockerfile: "FROM e2bdev/base:latest\n", alias: "outside-tpl", cpuCount: 2, memoryMB: 512 });
    await client.templates.waitForBuild(made.templateID, made.buildID);
    const imported = await s.ok("import", "sandbox:index:Template", "outside-tpl", made.templateID, "--yes", "--protect=false", "--generate-code=false");
    expect(imported.output).toMatch(/= 1 imported/);
    const template = (await resources()).find((r) => r.urn.endsWith("::outside-tpl"));
    expect(template?.inputs).toEqual({ alias: "outside-tpl", cpuCount: 2, memoryMB: 512, public: false });
    await s.ok("config", "set", "adoptTemplate", "outside-tpl");
    const preview = await s.pulumi("preview", "--expect-no-changes", "--diff");
    expect(preview.code, preview.output).toBe(0);
    const since = lastSeq(s.emulator);
    expect((await s.ok("up", "--yes", "--skip-preview")).output).not.toMatch(/updated|replaced/);
    expect(callsSince(s.emulator, since)).toEqual([]);
    // The program's Dockerfile is now the recorded one: changing it rebuilds the same template.
    await s.ok("config", "set", "adoptDockerfile", "FROM e2bdev/base:latest\nRUN echo changed\n");
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/~ 1 updated/);
    expect(callsSince(s.emulator, since).filter((c) => c.startsWith(`POST /v2/templates/${made.templateID}/builds/`))).toHaveLength(1);
    expect(s.emulator.state.templates().find((t) => t.templateID === made.templateID)?.builds).toHaveLength(2);
  });

  test("pulumi import of a secret records no value; declaring it with one plans one update, which writes the program's value", async () => {
    const client = new PlatformClient({ apiUrl: s.emulator.apiUrl, apiKey: s.emulator.apiKey });
    const made = await client.secrets.create({ name: "outside-secret", value: outsideValue });
    const imported = await s.ok("import", "sandbox:index:Secret", "outside-secret", made.secretID, "--yes", "--protect=false", "--generate-code=false");
    expect(imported.output).toMatch(/= 1 imported/);
    const secret = (await resources()).find((r) => r.urn.endsWith("::outside-secret"));
    // The service never answers a value: the import records none, in the inputs or the outputs.
    expect(secret?.inputs).toEqual({ name: "outside-secret" });
    expect(secret?.outputs).toEqual({ __version: expect.any(String), name: "outside-secret", secretID: made.secretID, currentVersion: 1 });
    // What the service holds is unknown, so the program's value is planned as an update in place, hidden.
    await s.ok("config", "set-all", "--plaintext", "adoptSecret=outside-secret", "--secret", `adoptSecretValue=${programValue}`);
    const preview = await s.ok("preview", "--diff");
    expect(preview.output).toMatch(/~ sandbox:index:Secret: \(update\)\n\s+\[id=[^\n]*\n\s+\[urn=[^\n]*::outside-secret\]\n(?:\s+name\s*: [^\n]*\n)?\s+\+ value: \[secret\]/);
    expect(preview.output).toMatch(/1 to update/);
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/1 updated/);
    expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET "))).toEqual([`POST /secrets/${made.secretID}`]);
    expect((await client.secrets.get(made.secretID)).currentVersion).toBe(2);
    // State keeps the program's value, encrypted, in the inputs and the outputs; nothing is planned after.
    const adopted = (await resources()).find((r) => r.urn.endsWith("::outside-secret"));
    expect(adopted?.inputs?.value).toMatchObject({ ciphertext: expect.any(String) });
    expect(adopted?.outputs?.value).toMatchObject({ ciphertext: expect.any(String) });
    const again = await s.pulumi("preview", "--expect-no-changes");
    expect(again.code, again.output).toBe(0);
  });

  test("pulumi import of a snapshot made outside Pulumi; declaring it with the sandbox it was taken of changes nothing", async () => {
    const client = new PlatformClient({ apiUrl: s.emulator.apiUrl, apiKey: s.emulator.apiKey });
    const box = inventoryOfStack(s.emulator).sandboxes.find((x) => x.metadata.team === "plugin");
    const made = await client.snapshots.create(box!.sandboxID);
    const imported = await s.ok("import", "sandbox:index:Snapshot", "outside-snap", made.snapshotID, "--yes", "--protect=false", "--generate-code=false");
    expect(imported.output).toMatch(/= 1 imported/);
    const snapshot = (await resources()).find((r) => r.urn.endsWith("::outside-snap"));
    // The service's listing does not say which sandbox a snapshot was taken of: no sandboxID is recorded.
    expect(snapshot?.inputs ?? {}).toEqual({});
    expect(snapshot?.outputs).toEqual({ __version: expect.any(String), snapshotID: made.snapshotID, names: [] });
    await s.ok("config", "set", "adoptSnapshot", box!.sandboxID);
    const preview = await s.pulumi("preview", "--expect-no-changes", "--diff");
    expect(preview.code, preview.output).toBe(0);
  });

  test("pulumi import of a fleet names each member's sandbox; what they share becomes `sandbox`, and declaring it changes nothing", async () => {
    const client = new PlatformClient({ apiUrl: s.emulator.apiUrl, apiKey: s.emulator.apiKey });
    const a = await client.sandboxes.create({ templateID: "base", timeout: 300, metadata: { team: "fleet" } });
    const b = await client.sandboxes.create({ templateID: "base", timeout: 600, metadata: { team: "fleet" } });
    const bad = await s.pulumi("import", "sandbox:index:SandboxFleet", "outside-fleet", a.sandboxID, "--yes", "--protect=false", "--generate-code=false");
    expect(bad.code).not.toBe(0);
    expect(bad.output).toContain(`SandboxFleet: cannot import "${a.sandboxID}": "${a.sandboxID}" is not <key>=<sandboxID>. Import a fleet by`);
    const id = `a=${a.sandboxID},b=${b.sandboxID}`;
    const imported = await s.ok("import", "sandbox:index:SandboxFleet", "outside-fleet", id, "--yes", "--protect=false", "--generate-code=false");
    expect(imported.output).toMatch(/= 1 imported/);
    const fleet = (await resources()).find((r) => r.urn.endsWith("::outside-fleet"));
    expect(fleet?.inputs).toEqual({ sandbox: { templateID: "base", metadata: { team: "fleet" } }, members: { a: { timeoutSeconds: 300 }, b: { timeoutSeconds: 600 } } });
    const members = fleet?.outputs?.sandboxes as Record<string, { sandboxID: string; state: string }>;
    expect(Object.fromEntries(Object.entries(members).map(([k, m]) => [k, [m.sandboxID, m.state]]))).toEqual({ a: [a.sandboxID, "running"], b: [b.sandboxID, "running"] });
    await s.ok("config", "set", "adoptFleet", "fleet");
    const preview = await s.pulumi("preview", "--expect-no-changes", "--diff");
    expect(preview.code, preview.output).toBe(0);
  });

  test("refresh finds no drift", async () => {
    await s.ok("refresh", "--yes", "--skip-preview");
    const preview = await s.pulumi("preview", "--expect-no-changes");
    expect(preview.code, preview.output).toBe(0);
  });

  test("destroy empties the emulator", async () => {
    const down = await s.ok("destroy", "--yes", "--skip-preview");
    expect(down.output).toMatch(/- 9 deleted/);
    expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
    // The imported secret and snapshot went with the stack: the service lists neither.
    const client = new PlatformClient({ apiUrl: s.emulator.apiUrl, apiKey: s.emulator.apiKey });
    expect((await client.secrets.list()).secrets).toEqual([]);
    expect((await client.snapshots.list()).snapshots).toEqual([]);
  });
});
