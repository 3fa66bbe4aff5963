/**
 * Claims read the same after the stack's API key is rotated (issue 47, "read in the code"): a
 * Template's and a TemplateTag's claims were HMACs keyed by the API key, so after a rotation every
 * claimed template and tag looked like a killed run's, and a new resource under a renamed one's old
 * name took its template. Now the claims are plain digests of identity parts: the new Template gets
 * `<name>-2`, which the preview shows, and the new TemplateTag is refused the renamed one's tag.
 * Tests share one stack and run in order.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, startStack, type E2eStack } from "./harness";

let s: E2eStack;
let first: Record<string, unknown> = {};

beforeAll(async () => {
  s = await startStack(join(ROOT, "test", "e2e", "fixtures", "key-rotation"), "e2e-key-rotation");
}, 300_000);

afterAll(async () => {
  await s?.close();
}, 300_000);

test("up, then the API key rotated and both renamed with aliases: nothing to do", async () => {
  await s.ok("up", "--yes", "--skip-preview");
  first = await s.outputs();
  const rotated = s.secret(s.emulator.rotateApiKey(), "the rotated API key");
  await s.ok("config", "set", "--secret", "sandbox:apiKey", rotated);
  await s.configure({ renamed: "true" });
  const preview = await s.pulumi("preview", "--expect-no-changes");
  expect(preview.code, preview.output).toBe(0);
  // The engine takes the old names back only once state records the renames.
  await s.ok("up", "--yes", "--skip-preview");
});

test("a new Template under the old name takes the next name: the renamed one's claim still reads as a claim", async () => {
  await s.configure({ reused: "true" });
  const name = String(first.imgName);
  expect((await s.ok("preview", "--diff")).output).toContain(`"${name}-2"`);
  const up = await s.ok("up", "--yes", "--skip-preview");
  const out = await s.outputs();
  expect([out.imgID, out.reusedName]).toEqual([first.imgID, `${name}-2`]);
  expect(out.reusedID).not.toBe(first.imgID);
  expect(up.output).toContain(`[Template img] warning: alias "${name}" is held by another resource's template`);
});

test("a new TemplateTag asking for the renamed one's tag is refused, never taken", async () => {
  await s.configure({ tagReused: "true" });
  const up = await s.pulumi("up", "--yes", "--skip-preview");
  expect(up.code, up.output).not.toBe(0);
  // Its mark and claim are plain identity digests: under another key the tag still reads as the renamed
  // resource's (keyed by the API key, the mark named nobody: "set by another stack or by hand").
  expect(up.output).toContain(`tag: "prod" of template ${String(first.imgName)} (build `);
  expect(up.output).toContain("was set by another resource made under this one's first name, whose create finished");
  expect(up.output).not.toContain("by another stack or by hand");
  await s.configure({ tagReused: "false" });
  await s.ok("destroy", "--yes", "--skip-preview");
});
