/**
 * A program that denies default providers and gives the classes an explicit pulumi-nodejs provider
 * (issue "Identity that holds", item 7): its resources are keyed with that provider's ID, as with the
 * default one, not by their URN alone, and nothing warns.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { ROOT, startStack, type E2eStack } from "./harness";

let s: E2eStack;
let emulator: Emulator;

beforeAll(async () => {
  // An explicit provider gets no stack config (its config is its own inputs): the credentials come
  // from the environment, as the provider's docs say for any provider without `sandbox:*` config.
  emulator = await createEmulator({ buildDelayMs: 300 });
  process.env.E2B_API_KEY = emulator.apiKey;
  process.env.E2B_API_URL = emulator.apiUrl;
  s = await startStack(join(ROOT, "test", "e2e", "fixtures", "explicit-provider"), "e2e-explicit-provider", {}, { emulator });
}, 300_000);

afterAll(async () => {
  await s?.close();
  await emulator?.close();
}, 300_000);

test("the explicit provider's ID keys the resource; a second up changes nothing; destroy leaves nothing", async () => {
  const up = await s.ok("up", "--yes", "--skip-preview");
  expect(up.output).not.toContain("the keys of new resources are their URN alone");
  const out = await s.outputs();
  expect(out.providerID).toMatch(/^[0-9a-f-]{36}$/);
  const state = JSON.parse(await s.exported()) as { deployment: { resources: { type: string; inputs?: Record<string, unknown> }[] } };
  const volume = state.deployment.resources.find((r) => r.type.endsWith("Volume"))!;
  expect(String(volume.inputs?.__resource)).toBe(`${String(out.providerID)}/urn:pulumi:e2e-explicit-provider::explicit-provider::pulumi-nodejs:dynamic/sandbox:Volume::data`);
  const preview = await s.pulumi("preview", "--expect-no-changes");
  expect(preview.code, preview.output).toBe(0);
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(s.emulator.state.volumes()).toEqual([]);
});
