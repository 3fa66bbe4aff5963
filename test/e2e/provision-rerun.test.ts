/**
 * Provisioning changed back to what it was, through the real engine: `provision` A, then B, then A
 * again. Each `up` finishes, so none is interrupted, and the third must run A's commands again (the
 * sandbox's file shows every run) and must not report them as "succeeded in an earlier, interrupted
 * run": a finished run is never resumed (provider/runtime/resume.ts runNumber).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { inventoryOfStack, startStack, type E2eStack } from "./harness";

const FIXTURE = join(__dirname, "fixtures", "any-resource");

let s: E2eStack;

beforeAll(async () => {
  s = await startStack(FIXTURE, "e2e-provision-rerun");
  await s.ok("config", "set", "kind", "Sandbox");
}, 120_000);

afterAll(async () => {
  await s?.close();
});

const provisionWith = (command: string) => JSON.stringify({ templateID: "base", timeoutSeconds: 600, provision: { commands: [{ command }] } });

test("provision A, then B, then A again: the third up runs A's commands, and speaks of no interrupted run", async () => {
  const [a, b] = ["echo A >> ~/runs", "echo B >> ~/runs"];
  const outputs: string[] = [];
  for (const command of [a, b, a]) {
    await s.ok("config", "set", "args", provisionWith(command));
    outputs.push((await s.ok("up", "--yes", "--skip-preview")).output);
  }
  const [sandbox, ...others] = inventoryOfStack(s.emulator).sandboxes;
  expect(others).toEqual([]); // updated in place each time
  expect(readFileSync(join(sandbox!.rootDir, "home", "user", "runs"), "utf8")).toBe("A\nB\nA\n");
  const third = outputs[2]!;
  expect(third).toMatch(/~ 1 updated/);
  expect(third).toContain(`provision 1/1: $ ${a}`);
  expect(third).toContain("provision 1/1: exit code 0");
  expect(third).not.toContain("interrupted");
}, 300_000);
