/**
 * A class's registration formats no stack beyond the one Pulumi takes for the resource's source
 * position (provider/shallow-stacks.ts says why), restores the stack limit even when registration
 * throws, and keeps full stacks for PULUMI_DEBUG_PROMISE_LEAKS, the one reader of the others.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterEach, beforeAll, expect, test } from "vitest";
import { Sandbox } from "../../provider";

beforeAll(async () => {
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: () => ({}) }, "project", "stack", true);
});

const prepare = Error.prepareStackTrace;
afterEach(() => {
  Error.prepareStackTrace = prepare;
  delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
});

/** How many stacks with frames were formatted while `fn` ran. */
function stacksFormatted(fn: () => void): number {
  let count = 0;
  Error.prepareStackTrace = (error, frames) => {
    if (frames.length > 0) count++;
    return `${error}`;
  };
  try {
    fn();
  } finally {
    Error.prepareStackTrace = prepare;
  }
  return count;
}

test("registering a Sandbox formats one stack: its source position", () => {
  expect(stacksFormatted(() => new Sandbox("quiet", { templateID: "base", envVars: { A: "b" } }))).toBe(1);
  expect(Error.stackTraceLimit).toBe(10);
});

test("with PULUMI_DEBUG_PROMISE_LEAKS set, every promise keeps its stack", () => {
  process.env.PULUMI_DEBUG_PROMISE_LEAKS = "1";
  expect(stacksFormatted(() => new Sandbox("debugged", { templateID: "base" }))).toBeGreaterThan(50);
});

test("a registration that throws leaves the stack limit as it was, and its error points at the program's line", () => {
  const thrown = (() => {
    try {
      new Sandbox("", { templateID: "base" });
    } catch (err) {
      return err as Error;
    }
  })();
  expect(thrown?.message).toMatch(/Missing resource name/);
  expect(thrown?.stack).toMatch(/^Error: Missing resource name[^\n]*\n {4}at new Sandbox [^\n]*\n {4}at [^\n]*shallow-stacks\.test\.ts/);
  expect(Error.stackTraceLimit).toBe(10);
});
