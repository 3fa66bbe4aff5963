/**
 * A Template's claim survives an API-key rotation (issue 47, "read in the code"): 0.3 keyed the
 * claim's mark by the API key, so after a rotation every template looked unclaimed, and a new resource
 * under a renamed one's first name adopted the renamed one's template. The mark is now a digest of the
 * template's ID alone (provider/kinds/template/claim.ts).
 */
import { expect, test } from "vitest";
import { capturedStderr, checked, configureFor, emulatorForFile, rest, runtime } from "./harness";

const emu = emulatorForFile();
const stderr = capturedStderr();
const key = { __resource: "proj/dev/urn:pulumi:dev::proj::sandbox:Template::rotated", dockerfile: "FROM ubuntu:22.04\nRUN mkdir -p /opt/tools\n" };

test("after the API key is rotated, a claimed template is still passed over, never adopted", async () => {
  const first = await checked("Template", key);
  const made = await runtime.create("Template", first);
  const oldKey = emu().apiKey;
  const newKey = emu().rotateApiKey();
  expect(newKey).not.toBe(oldKey);
  expect((await rest(emu(), "GET", "/templates")).status).toBe(200);
  expect((await fetch(`${emu().apiUrl}/templates`, { headers: { "X-API-Key": oldKey } })).status).toBe(401);
  configureFor(emu()); // the stack's config now holds the new key
  // A new resource under the renamed one's first name: same key, no state.
  const again = await checked("Template", key);
  expect(again.alias).toBe(`${String(first.alias)}-2`);
  stderr.clear();
  const second = await runtime.create("Template", again);
  expect(second.id).not.toBe(made.id);
  expect(stderr.text()).not.toContain("adopting");
  expect(stderr.text()).toContain(`warning: alias "${String(first.alias)}" is held by another resource's template`);
  expect(emu().state.templates().find((t) => t.aliases.includes(String(first.alias)))?.templateID).toBe(made.id);
  await runtime.remove("Template", second.id, second.outs);
  await runtime.remove("Template", made.id, made.outs);
});
