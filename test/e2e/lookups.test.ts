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

test("a program finds a template, sandboxes by metadata, a sandbox's snapshots, the volumes and a template's builds, and the stack holds no resource", async () => {
  const { templateID, buildID } = await call("/templates", { dockerfile: "FROM e2bdev/base:latest\n", alias: "found-by-lookup" }, { authorization: `Bearer ${s.emulator.accessToken}` });
  const key = { "x-api-key": s.emulator.apiKey };
  const ids = [
    (await call("/sandboxes", { templateID: "base", timeout: 120, metadata: { team: "lookups" } }, key)).sandboxID,
    (await call("/sandboxes", { templateID: "base", timeout: 120, metadata: { team: "lookups" } }, key)).sandboxID,
  ];
  await call("/sandboxes", { templateID: "base", timeout: 120, metadata: { team: "other" } }, key);
  await call(`/sandboxes/${ids[0]}/snapshots`, { name: "looked-up-snap" }, key);
  await call(`/sandboxes/${ids[1]}/snapshots`, { name: "not-this-one" }, key);
  for (const name of ["vol-b", "vol-a"]) await call("/volumes", { name }, key);
  await s.configure({ alias: "found-by-lookup", team: "lookups", snapshotsOf: String(ids[0]) });
  const up = await s.ok("up", "--yes");
  // Only the stack itself: lookups manage nothing.
  expect(up.output).toMatch(/\+ 1 created/);
  const out = await s.outputs();
  expect(out.template).toMatchObject({ templateID, aliases: ["found-by-lookup"] });
  expect(out.sandboxIDs).toEqual([...ids].sort());
  expect(out.snapshotNames).toEqual([expect.stringMatching(/looked-up-snap$/)]);
  expect(out.volumeNames).toEqual(["vol-a", "vol-b"]);
  expect(out.buildIDs).toEqual([buildID]);
});
