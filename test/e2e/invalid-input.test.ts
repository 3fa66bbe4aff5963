/** Bad input fails at `pulumi preview`, naming the field and the rule, before any call to the service. */
import { afterAll, beforeAll, expect, test } from "vitest";
import { startStack, type E2eStack } from "./harness";

let s: E2eStack;

beforeAll(async () => {
  s = await startStack("quickstart", "e2e-invalid");
}, 300_000);

afterAll(async () => {
  await s?.close();
});

test("a zero sandbox timeout fails preview with the field's name, and the service saw no call", async () => {
  await s.ok("config", "set", "sandboxTimeout", "0");
  const preview = await s.pulumi("preview");
  expect(preview.code).not.toBe(0);
  expect(preview.output).toContain("timeoutSeconds: must be greater than 0 (the service refuses 0)");
  expect(s.emulator.calls()).toEqual([]);
});

test("a missing credential fails preview and says where to set it", async () => {
  await s.ok("config", "set", "sandboxTimeout", "60");
  await s.ok("config", "rm", "sandbox:apiKey");
  const preview = await s.pulumi("preview");
  expect(preview.code).not.toBe(0);
  // Template and Volume are independent, so the engine checks them side by side and stops at
  // whichever fails first; the whole message is asserted for that one, its type named twice alike.
  const problem = /sandbox:(Template|Volume) resource '[\w-]+' has a problem: sandbox:apiKey: (\w+) needs an API key: run `pulumi config set --secret sandbox:apiKey <key>` or set E2B_API_KEY\./.exec(
    preview.output,
  );
  expect(problem, preview.output).not.toBeNull();
  expect(problem![2]).toBe(problem![1]);
  expect(s.emulator.calls()).toEqual([]);
});
