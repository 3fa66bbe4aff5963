/**
 * The Node SDK generated from schema.json (sdks/nodejs), compiled here as its package.json builds it,
 * driving the native plugin through the real engine against the emulator: generated SDK, schema and
 * plugin agree on type tokens, property names and secrets. Tests in this file share one stack and run
 * in order.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PlatformClient } from "../../sdk/platform/client";
import { callsSince, inventoryOfStack, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

let s: E2eStack;
let sdkDir: string;
const token = "e2e-plugin-sdk-token-90c3d7aa";

/** sdks/nodejs compiled with its own tsconfig; its package.json beside the output, as its utilities read it. */
function compileSdk(): string {
  const dir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-sdk-"));
  cpSync(join(ROOT, "sdks", "nodejs"), dir, { recursive: true });
  // @pulumi/pulumi from the repository: one copy of it in the program, so resources register once.
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  // A user's compiler, TypeScript 5 (the repository's own is 7, node_modules/@typescript/native).
  execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")], { stdio: "pipe" });
  copyFileSync(join(dir, "package.json"), join(dir, "bin", "package.json"));
  return dir;
}

beforeAll(async () => {
  sdkDir = compileSdk();
  s = await startStack(join(ROOT, "test", "e2e", "fixtures", "plugin-sdk"), "e2e-plugin-sdk");
  s.secret(token, "the fixture's token (envVars.TOKEN)");
  await s.ok("config", "set", "sdk", join(sdkDir, "bin"));
  await s.ok("config", "set", "--secret", "token", token);
}, 300_000);

afterAll(async () => {
  await s?.close();
  if (sdkDir) rmSync(sdkDir, { recursive: true, force: true });
});

describe("the generated Node SDK with the native plugin", () => {
  test("up creates the Volume and the Sandbox; the SDK's outputs carry the service's IDs, the token secret", async () => {
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+ 3 created/);
    const out = await s.outputs();
    const inv = inventoryOfStack(s.emulator);
    expect(inv.volumes.map((v) => [v.volumeID, v.name])).toEqual([[out.volumeID, "sdk-data"]]);
    expect(inv.sandboxes.map((x) => x.sandboxID)).toEqual([out.sandboxID]);
    expect(out.token).toBe("[secret]");
  });

  test("a second up changes nothing and sends the service nothing", async () => {
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/3 unchanged/);
    expect(callsSince(s.emulator, since)).toEqual([]);
  });

  test("the SDK's lookups (getTemplate, listSandboxes, getSandbox, getVolume, getTemplateAlias, getTeamMetricsMax, getSandboxesMetrics...) are invokes the plugin answers with the stack's credentials, tokens secret", async () => {
    // Made outside Pulumi: a team template and two sandboxes with the metadata looked for, one without.
    const client = new PlatformClient({ apiUrl: s.emulator.apiUrl, apiKey: s.emulator.apiKey, accessToken: s.emulator.accessToken });
    const { templateID } = await client.templates.create({ dockerfile: "FROM e2bdev/base:latest\n", alias: "sdk-found" });
    const made = await Promise.all([1, 2].map(() => client.sandboxes.create({ templateID: "base", timeout: 300, metadata: { team: "sdk-lookups" } })));
    const other = await client.sandboxes.create({ templateID: "base", timeout: 300, metadata: { team: "other" } });
    await s.configure({ lookupAlias: "sdk-found", lookupTeam: "sdk-lookups" });
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/3 unchanged/);
    const out = await s.outputs();
    expect(out.lookedUpTemplateID).toBe(templateID);
    expect(out.listedSandboxIDs).toEqual(made.map((m) => m.sandboxID).sort());
    expect(out.listedVolumeNames).toEqual(["sdk-data"]);
    expect(out.listedTemplateIDs).toEqual([templateID]);
    // The SDK's `…Output` form makes the whole result secret when a field of it is (the Sandbox is secure: its token is).
    expect([out.lookedUpSandboxState, out.lookedUpVolumeToken]).toEqual(["[secret]", "[secret]"]);
    expect(out.aliasTemplateID).toBe(templateID);
    expect(out.peakSandboxes).toBeGreaterThanOrEqual(4);
    expect(out.measuredIDs).toEqual([out.sandboxID]);
    const shown = await s.outputs({ showSecrets: true });
    expect(shown.lookedUpSandboxState).toBe("running");
    s.secret(String(shown.lookedUpVolumeToken), "the volume's content token (getVolume)");
    for (const m of [...made, other]) await client.sandboxes.kill(m.sandboxID);
    await client.templates.delete(templateID);
  });

  test("a lookup that finds nothing fails the preview, naming what was looked for", async () => {
    await s.ok("config", "set", "lookupAlias", "no-such-template");
    const preview = await s.pulumi("preview");
    expect(preview.code).not.toBe(0);
    expect(preview.output).toContain('getTemplate: no template with alias "no-such-template" belongs to this API key\'s team');
    await s.ok("config", "rm", "lookupAlias");
  });

  test("destroy empties the emulator", async () => {
    await s.ok("destroy", "--yes", "--skip-preview");
    expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
  });
});
