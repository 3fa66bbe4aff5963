/**
 * What provisioning costs in calls to the sandbox, read from the emulator's call log (it records the
 * in-sandbox API too): one Start per command, in order, plus the look at
 * earlier runs (ListDir of the records, process List) unless the sandbox was made by the same call.
 */
import { describe, expect, test } from "vitest";
import { platform } from "../../provider/runtime/context";
import { runProvision } from "../../provider/runtime/provision";
import { RECORDS } from "../../provider/runtime/resume";
import type { ProvisionInput } from "../../provider/kinds/sandbox/provision";
import { ProcessClient } from "../../sdk/in-sandbox/process";
import { clientOptions } from "../../provider/runtime/context";
import { emulatorForFile } from "./harness";

const emu = emulatorForFile();

const provision = (...commands: string[]): ProvisionInput => ({
  commands: commands.map((command) => ({ command, timeoutSeconds: 60, envs: {} })),
  logging: "both",
  onFailure: "keep",
} as ProvisionInput);

/** In-sandbox calls of `sandboxID` since `seq`, as `Service/Method`. */
const sandboxCalls = (since: number) => emu().calls(since).filter((c) => c.area === "sandbox").map((c) => c.path.slice(1));

describe("provisioning calls", () => {
  test("one Start per command, in order; the look at earlier runs once per run, skipped for a fresh sandbox", async () => {
    const { sandboxID, envdAccessToken } = await platform().sandboxes.create({ templateID: "base", timeout: 120 });
    const lines: string[] = [];
    let since = emu().calls().at(-1)!.seq;
    const fresh = await runProvision({ sandboxID, envdAccessToken }, provision("echo one", "echo two", "echo three"), "calls#0", (l) => lines.push(l), [], { fresh: true });
    expect(fresh.ok).toBe(true);
    expect(fresh.results.map((r) => r.stdoutTail)).toEqual(["one\n", "two\n", "three\n"]);
    expect(sandboxCalls(since)).toEqual(["process.Process/Start", "process.Process/Start", "process.Process/Start"]);
    expect(lines.filter((l) => l.includes(" | "))).toEqual(["provision 1/3 | one", "provision 2/3 | two", "provision 3/3 | three"]);

    // The records the wrapper leaves (the directory made once, by the first command) let a later run skip them.
    const listed = await new ProcessClient({ sandboxID, envdAccessToken, options: clientOptions() }).run(`ls ${RECORDS} | wc -l`);
    expect(listed.stdoutTail.trim()).toBe("3");
    since = emu().calls().at(-1)!.seq;
    const again = await runProvision({ sandboxID, envdAccessToken }, provision("echo one", "echo two", "echo three"), "calls#0", () => undefined, []);
    expect(again.results.map((r) => r.durationMs)).toEqual([0, 0, 0]);
    expect(sandboxCalls(since).sort()).toEqual(["filesystem.Filesystem/ListDir", "process.Process/List"]);

    since = emu().calls().at(-1)!.seq;
    const next = await runProvision({ sandboxID, envdAccessToken }, provision("echo four", "exit 4", "echo never"), "calls#1", () => undefined, []);
    expect(next.ok).toBe(false);
    expect(next.results.map((r) => r.exitCode)).toEqual([0, 4]);
    expect(sandboxCalls(since).slice(2)).toEqual(["process.Process/Start", "process.Process/Start"]);
    await platform().sandboxes.kill(sandboxID);
  });
});
