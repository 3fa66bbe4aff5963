/**
 * provider/runtime/operation.ts: a wait gets its operation's signal (none outside one), a failure the
 * operation caused is worded by the caller with the operation's reason, any other failure passes
 * through, and what is logged inside a wait is status.
 */
import { expect, test } from "vitest";
import { isStatusLine, operationWait, runAsOperation } from "../../provider/runtime/operation";
import { urnForLine } from "../../provider/runtime/engine-log";
import { resourceLogger, setLogSink } from "../../provider/runtime/log";

const stopped = (why: string) => new Error(`stopped: ${why}`);

test("outside an operation a wait has no signal, its failure passes through, and only its lines are status", async () => {
  expect(isStatusLine()).toBe(false);
  const seen: unknown[] = [];
  await operationWait(async (signal) => void seen.push(signal, isStatusLine()), stopped);
  expect(seen).toEqual([undefined, true]);
  await expect(operationWait(() => Promise.reject(new Error("build failed")), stopped)).rejects.toThrow(/^build failed$/);
});

test("a stopped operation's wait fails with the caller's error naming why; one started after the stop sees the signal aborted", async () => {
  const controller = new AbortController();
  const op = { signal: controller.signal, why: () => "the deadline passed" };
  const waiting = runAsOperation(op, () =>
    operationWait((signal) => new Promise((_, reject) => signal!.addEventListener("abort", () => reject(signal!.reason))), stopped),
  );
  controller.abort(new Error("aborted"));
  await expect(waiting).rejects.toThrow(/^stopped: the deadline passed$/);
  const later = runAsOperation(op, () => operationWait(async (signal) => signal?.aborted, stopped));
  await expect(later).resolves.toBe(true);
});

test("in an operation that was not stopped, a wait's own failure passes through", async () => {
  const op = { signal: new AbortController().signal, why: () => "" };
  await expect(runAsOperation(op, () => operationWait(() => Promise.reject(new Error("timed out")), stopped))).rejects.toThrow(/^timed out$/);
});

test("a renamed resource's lines go to the URN the engine sends now, named by it, not to its key's first URN", () => {
  const key = "0b6f-instance/urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Sandbox::web";
  const now = "urn:pulumi:prod::proj::pulumi-nodejs:dynamic:Sandbox::web-blue";
  expect(urnForLine(key)).toBe("urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Sandbox::web");
  const lines: [string, string][] = [];
  setLogSink((line, k) => lines.push([line, k]));
  try {
    const op = { signal: new AbortController().signal, why: () => "", urn: now };
    expect(runAsOperation(op, () => urnForLine(key))).toBe(now);
    runAsOperation(op, () => resourceLogger("Sandbox", { __resource: key })("adopting sandbox i1"));
    resourceLogger("Sandbox", { __resource: key })("outside");
  } finally {
    setLogSink((line) => process.stderr.write(`${line}\n`));
  }
  expect(lines).toEqual([["[Sandbox web-blue] adopting sandbox i1", key], ["[Sandbox web] outside", key]]);
});
