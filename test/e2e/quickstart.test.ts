/**
 * examples/quickstart through the real Pulumi engine against the emulator, in the order a user lives
 * it: up, up again, refresh, change things, lose a sandbox behind Pulumi's back, destroy. Tests in this
 * file share one stack and run in order.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callsSince, inventoryOfStack, lastSeq, startStack, type E2eStack } from "./harness";

let s: E2eStack;
const secretEnv = "e2e-secret-token-7c4d91b2";

beforeAll(async () => {
  s = await startStack("quickstart", "e2e-quickstart");
  s.secret(secretEnv, "quickstart's demoToken (the DEMO_TOKEN env var)");
  await s.ok("config", "set", "--secret", "demoToken", secretEnv);
}, 300_000);

afterAll(async () => {
  await s?.close();
});

describe("quickstart on the real engine", () => {
  test("up creates the template, the volume and a provisioned sandbox", async () => {
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+ 4 created/);
    expect(up.output).toContain("[Template quickstart] build");
    expect(up.output).toContain("[Sandbox quickstart] provision 2/2: exit code 0");
    const out = await s.outputs({ showSecrets: true });
    const inv = inventoryOfStack(s.emulator);
    expect(inv.templates.map((t) => t.templateID)).toEqual([out.templateID]);
    expect(inv.volumes.map((v) => v.name)).toEqual([out.volumeName]);
    expect(inv.sandboxes.map((x) => x.sandboxID)).toEqual([out.sandboxID]);
    // The marker holds the resource key: the ID of the stack's dynamic provider, then the URN (provider/resource-key.ts).
    const state = JSON.parse(await s.exported()) as { deployment: { resources: { type: string; id?: string }[] } };
    const provider = state.deployment.resources.find((r) => r.type === "pulumi:providers:pulumi-nodejs");
    expect(provider?.id).toMatch(/^[0-9a-f-]{36}$/);
    const urn = "urn:pulumi:e2e-quickstart::sandbox-quickstart::pulumi-nodejs:dynamic/sandbox:Sandbox::quickstart";
    expect(inv.sandboxes[0]?.metadata).toMatchObject({ purpose: "quickstart", "pulumi-sandbox.resource": `${provider?.id}/${urn}#0` });
    expect(out.provisioned).toBe(true);
    expect(out.provisionResults).toMatchObject([{ exitCode: 0, stdoutTail: "provisioned by pulumi\n" }, { exitCode: 0, stdoutTail: "last-provisioned\n" }]);
    // The steps wrote /home/user/... inside the sandbox: its own home and the mounted volume.
    expect(readFileSync(join(inv.sandboxes[0]!.rootDir, "home/user/provisioned.txt"), "utf8")).toBe("provisioned by pulumi\n");
    expect(existsSync(join(inv.volumes[0]!.hostDir, "last-provisioned"))).toBe(true);
    // The template's COPY put ./app (the build context's folder) into it: the sandbox starts with it.
    expect(readFileSync(join(inv.sandboxes[0]!.rootDir, "home/user/app/greeting.txt"), "utf8")).toBe("hello from the quickstart's build context\n");
  });

  test("a second up changes nothing and sends the service nothing", async () => {
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/4 unchanged/);
    expect(callsSince(s.emulator, since)).toEqual([]);
  });

  test("refresh finds no drift", async () => {
    await s.ok("refresh", "--yes", "--skip-preview");
    const preview = await s.pulumi("preview", "--expect-no-changes");
    expect(preview.code, preview.output).toBe(0);
  });

  test("flipping public is one PATCH: an in-place update with the same build", async () => {
    const before = await s.outputs();
    await s.ok("config", "set", "public", "true");
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/~ 1 updated/);
    const after = await s.outputs();
    expect(after).toMatchObject({ templatePublic: true, templateBuildID: before.templateBuildID, templateID: before.templateID });
    const calls = callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"));
    expect(calls).toEqual([`PATCH /v2/templates/${before.templateID}`]);
  });

  test("changing the Dockerfile rebuilds the template in place: same templateID, new build", async () => {
    const before = await s.outputs();
    await s.ok("config", "set", "toolchain", "v2");
    const since = lastSeq(s.emulator);
    await s.ok("up", "--yes", "--skip-preview");
    const after = await s.outputs();
    expect(after.templateID).toBe(before.templateID);
    expect(after.templateBuildID).not.toBe(before.templateBuildID);
    // The current build system: a build request under the same alias (same template), then its start.
    const posts = callsSince(s.emulator, since).filter((c) => c.startsWith("POST /v"));
    expect(posts).toEqual(["POST /v3/templates", `POST /v2/templates/${before.templateID}/builds/${after.templateBuildID}`]);
    expect(after.sandboxID).toBe(before.sandboxID);
  });

  test("changing provision re-runs it in the same sandbox", async () => {
    const before = await s.outputs();
    await s.ok("config", "set", "message", "second provisioning");
    await s.ok("up", "--yes", "--skip-preview");
    const after = await s.outputs({ showSecrets: true });
    expect(after.sandboxID).toBe(before.sandboxID);
    expect(after.provisionResults).toMatchObject([{ exitCode: 0, stdoutTail: "second provisioning\n" }, { exitCode: 0 }]);
  });

  test("a sandbox killed behind Pulumi's back is found gone by refresh and made again by up", async () => {
    const { sandboxID } = await s.outputs();
    const res = await fetch(`${s.emulator.apiUrl}/sandboxes/${sandboxID}`, { method: "DELETE", headers: { "X-API-Key": s.emulator.apiKey } });
    expect(res.status).toBe(204);
    const refresh = await s.ok("refresh", "--yes", "--skip-preview");
    expect(refresh.output).toMatch(/- 1 deleted/);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+ 1 created/);
    const after = await s.outputs();
    expect(after.sandboxID).not.toBe(sandboxID);
    expect(inventoryOfStack(s.emulator).sandboxes.map((x) => x.sandboxID)).toEqual([after.sandboxID]);
  });

  test("no credential or secret appears in plaintext in the state or in anything the CLI printed", async () => {
    const exported = await s.exported();
    const secrets = { apiKey: s.emulator.apiKey, accessToken: s.emulator.accessToken, envVar: secretEnv };
    for (const [name, value] of Object.entries(secrets)) {
      expect(exported.includes(value), `${name} in the exported state`).toBe(false);
      expect(s.transcript().includes(value), `${name} in the CLI output`).toBe(false);
    }
    expect(exported).toContain('"ciphertext"'); // the secrets are there, encrypted
  });

  test("destroy leaves the emulator with nothing of the stack", async () => {
    await s.ok("destroy", "--yes", "--skip-preview");
    expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
  });
});
