/**
 * pulumi-sandbox/lookups through the real engine: a program finds a template and sandboxes with the
 * stack's own credentials (sandbox:* config, set by the harness as any user would), and manages nothing.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, startStack, type E2eStack } from "./harness";

let s: E2eStack;

beforeAll(async () => {
  s = await startStack(join(ROOT, "test", "e2e", "fixtures", "lookups"), "e2e-lookups");
}, 300_000);

afterAll(async () => {
  await s?.close();
}, 300_000);

async function call(path: string, body: unknown, auth: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.emulator.apiUrl}${path}`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

test("a program finds a template, sandboxes by metadata, a sandbox's snapshots, the volumes, a template's builds, one sandbox and one volume (their tokens secret), an alias, the team's peak and sandboxes' metrics; the stack holds no resource", async () => {
  const { templateID, buildID } = await call("/templates", { dockerfile: "FROM e2bdev/base:latest\n", alias: "found-by-lookup" }, { authorization: `Bearer ${s.emulator.accessToken}` });
  const key = { "x-api-key": s.emulator.apiKey };
  const ids = [
    (await call("/sandboxes", { templateID: "base", timeout: 120, secure: true, metadata: { team: "lookups" } }, key)).sandboxID,
    (await call("/sandboxes", { templateID: "base", timeout: 120, metadata: { team: "lookups" } }, key)).sandboxID,
  ];
  await call("/sandboxes", { templateID: "base", timeout: 120, metadata: { team: "other" } }, key);
  await call(`/sandboxes/${ids[0]}/snapshots`, { name: "looked-up-snap" }, key);
  await call(`/sandboxes/${ids[1]}/snapshots`, { name: "not-this-one" }, key);
  const volumeIDs = [];
  for (const name of ["vol-b", "vol-a"]) volumeIDs.push((await call("/volumes", { name }, key)).volumeID);
  await s.configure({ alias: "found-by-lookup", team: "lookups", snapshotsOf: String(ids[0]), volumeID: String(volumeIDs[0]) });
  const up = await s.ok("up", "--yes");
  // Only the stack itself: lookups manage nothing.
  expect(up.output).toMatch(/\+ 1 created/);
  const out = await s.outputs();
  expect(out.template).toMatchObject({ templateID, aliases: ["found-by-lookup"] });
  expect(out.sandboxIDs).toEqual([...ids].sort());
  expect(out.snapshotNames).toEqual([expect.stringMatching(/looked-up-snap$/)]);
  expect(out.volumeNames).toEqual(["vol-a", "vol-b"]);
  expect(out.buildIDs).toEqual([buildID]);
  // getSandbox, getVolume, getTemplateAlias, getTeamMetricsMax and getSandboxesMetrics: the tokens secret
  // (close() scans the state and every output for the secure sandbox's token).
  expect(out.sandboxState).toEqual(["running", "lookups"]);
  expect([out.sandboxToken, out.volumeToken]).toEqual(["[secret]", "[secret]"]);
  expect(out.volumeName).toBe("vol-b");
  expect(out.aliasTemplateID).toBe(templateID);
  expect(out.peakSandboxes).toBeGreaterThanOrEqual(3);
  expect(out.measuredIDs).toEqual([...ids].sort());
  const token = String((await s.outputs({ showSecrets: true })).volumeToken);
  expect(token.length).toBeGreaterThan(16);
  s.secret(token, "the volume's content token (getVolume)");
});

test("a lookup given an ID the team has none of fails the preview, naming the lookup and the argument", async () => {
  await s.configure({ volumeID: "00000000-0000-4000-8000-000000000000" });
  const preview = await s.pulumi("preview");
  expect(preview.code).not.toBe(0);
  expect(preview.output).toContain('getVolume: volumeID "00000000-0000-4000-8000-000000000000": the API key\'s team has none');
});
