/**
 * `sandbox:maxRetries`: the stack config key sets how many times the provider's client tries a failed
 * call again (every attempt reaches the emulator, which logs it, faulted ones included); unset, it is 9
 * (10 attempts); a value that is no whole number from 0 to 50 fails `check` by its key, before any call.
 */
import { afterEach, expect, test } from "vitest";
import { PROVIDER_RETRY } from "../../provider/runtime/context";
import { checkReasons, emulatorForFile, rejection, runtime, stackConfig } from "./harness";

const emu = emulatorForFile();
// The pace of the retries only (every attempt still happens): ten attempts in milliseconds, not ~20 s.
Object.assign(PROVIDER_RETRY, { baseDelayMs: 5, maxDelayMs: 20 });

/** The stack config of the file's emulator, plus `sandbox:maxRetries`. */
function configureRetries(value: string): void {
  const base = stackConfig(emu());
  runtime.configure({ config: { get: (key) => (key === "sandbox:maxRetries" ? value : base.get(key)) } });
}

afterEach(() => {
  emu().setFaults({});
  configureRetries("");
});

/** The attempts a read of an unknown volume makes while every request is answered 503. */
async function attemptsOfFailedRead(): Promise<{ attempts: number; message: string }> {
  const before = emu().calls().length;
  emu().setFaults({ rate503: 1 });
  const err = await rejection(runtime.read("Volume", "vol-unknown", { volumeID: "vol-unknown", name: "nope" }));
  emu().setFaults({});
  return { attempts: emu().calls().slice(before).filter((c) => c.fault === "rate503").length, message: err.message };
}

test("each call is tried 1 + maxRetries times; unset, 10", async () => {
  configureRetries("2");
  const two = await attemptsOfFailedRead();
  expect(two.attempts).toBe(3);
  expect(two.message).toContain("(gave up after 3 attempts)");

  configureRetries("0");
  expect((await attemptsOfFailedRead()).attempts).toBe(1);

  configureRetries("");
  const unset = await attemptsOfFailedRead();
  expect(unset.attempts).toBe(10);
  expect(unset.message).toContain("(gave up after 10 attempts)");
});

test("a value that is not a whole number from 0 to 50 fails check, naming the key and the fix", async () => {
  for (const bad of ["-1", "51", "2.5", "many"]) {
    configureRetries(bad);
    const calls = emu().calls().length;
    expect(await checkReasons("Volume", {})).toEqual([
      `sandbox:maxRetries: must be a whole number from 0 to 50, got ${JSON.stringify(bad)}: run ` +
        "`pulumi config set sandbox:maxRetries 3` (say), or `pulumi config rm sandbox:maxRetries` for the default 9.",
    ]);
    expect(emu().calls().length).toBe(calls);
  }
});
