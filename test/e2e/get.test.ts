/**
 * `Sandbox.get` / `Volume.get` / `Template.get` through the real engine: a resource made outside Pulumi
 * is read into the program (read-only), and leaving the program does not delete it.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { inventoryOfStack, ROOT, startStack, type E2eStack } from "./harness";

let s: E2eStack;
const fixture = join(ROOT, "test", "e2e", "fixtures", "any-resource");

async function rest(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.emulator.apiUrl}${path}`, {
    method: "POST",
    headers: { "X-API-Key": s.emulator.apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  s = await startStack(fixture, "e2e-get");
}, 300_000);

afterAll(async () => {
  await s?.close();
});

test.each([
  ["Sandbox", () => rest("/sandboxes", { templateID: "base", timeout: 600, metadata: { owner: "ops" } }), "sandboxID"],
  ["Volume", () => rest("/volumes", { name: "made-by-hand" }), "volumeID"],
] as const)("%s.get reads a resource made outside Pulumi; up and destroy leave it alone", async (kind, make, idField) => {
  const made = await make();
  const id = String(made[idField]);
  await s.configure({ kind, getId: id });
  const up = await s.ok("up", "--yes", "--skip-preview");
  // The CLI shortens the type token as the line's width allows.
  expect(up.output).toMatch(new RegExp(`read pulumi-nodejs:dynamic(/sandbox)?:${kind} subject`));
  const out = (await s.outputs()) as { id: string; read: Record<string, unknown> };
  expect(out.id).toBe(id);
  if (kind === "Sandbox") expect(out.read).toMatchObject({ sandboxID: id, templateID: "rki5dems9wqfm4r03t7g", state: "running", metadata: { owner: "ops" } });
  else expect(out.read).toMatchObject({ volumeId: id, name: "made-by-hand" });
  await s.ok("destroy", "--yes", "--skip-preview");
  const inv = inventoryOfStack(s.emulator);
  expect(kind === "Sandbox" ? inv.sandboxes.map((x) => x.sandboxID) : inv.volumes.map((v) => v.volumeID)).toContain(id);
});
