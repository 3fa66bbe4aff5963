/**
 * `sandbox:requestTimeoutMs`: the stack config key reaches the provider's client (a slow emulator
 * answers after the configured deadline, and the provider's call fails at it, naming the key), and a
 * value that is no whole number of milliseconds fails `check` by its key, before any call.
 */
import { afterEach, expect, test } from "vitest";
import { checked, checkReasons, emulatorForFile, rejection, runtime, stackConfig } from "./harness";

const emu = emulatorForFile();

/** The stack config of the file's emulator, plus `sandbox:requestTimeoutMs`. */
function configureTimeout(value: string): void {
  const base = stackConfig(emu());
  runtime.configure({ config: { get: (key) => (key === "sandbox:requestTimeoutMs" ? value : base.get(key)) } });
}

afterEach(() => emu().setFaults({}));

test("the configured deadline is the one each request gets; its message names the key", async () => {
  // Made with the default deadline: on a loaded machine a create may itself take longer than 150 ms.
  configureTimeout("");
  const { id, outs } = await runtime.create("Sandbox", await checked("Sandbox", { templateID: "base", timeoutSeconds: 600, __resource: "proj/dev/slow" }));
  configureTimeout("150");
  emu().setFaults({ latencyMs: 600 });
  const err = await rejection(runtime.read("Sandbox", id, outs));
  expect(err.message).toMatch(/^GET \/sandboxes\/\{id\} timed out after 150 ms without a complete response \(gave up after 2 attempts\)\. /);
  expect(err.message).toContain("`pulumi config set sandbox:requestTimeoutMs <ms>`");
  emu().setFaults({});
  configureTimeout("");
  await runtime.remove("Sandbox", id, outs);
});

test("a value that is not a positive whole number of milliseconds fails check, naming the key and the fix", async () => {
  for (const bad of ["2m", "0", "1.5"]) {
    configureTimeout(bad);
    const calls = emu().calls().length;
    expect(await checkReasons("Volume", {})).toEqual([
      `sandbox:requestTimeoutMs: must be a positive whole number of milliseconds, got ${JSON.stringify(bad)}: run ` +
        "`pulumi config set sandbox:requestTimeoutMs 120000` (say), or `pulumi config rm sandbox:requestTimeoutMs` for the default 60000.",
    ]);
    expect(emu().calls().length).toBe(calls);
  }
});
