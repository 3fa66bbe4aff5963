/**
 * `/proc` through the file API of E2B's official JS SDK (`e2b`, unmodified): `files.read` answers
 * what a command's `cat` prints (the sandbox's own proc, not the host's process list).
 */
import { NotFoundError } from "e2b";
import { describe, expect, it } from "vitest";
import { useOfficialSandbox } from "./official-helpers";

const bench = useOfficialSandbox();

describe("reading /proc", () => {
  it("reads what a command reads, before any command ran too", async () => {
    const read = await bench.sandbox.files.read("/proc/sys/kernel/random/boot_id");
    expect(read).toMatch(/^[0-9a-f-]{36}\n$/);
    expect((await bench.sandbox.commands.run("cat /proc/sys/kernel/random/boot_id")).stdout).toBe(read);
  });

  it("shows the sandbox's processes, not the host's", async () => {
    expect(bench.emu.isolation.mode).toBe("namespaces");
    const { stdout } = await bench.sandbox.commands.run("head -1 /proc/1/status");
    expect((await bench.sandbox.files.read("/proc/1/status")).split("\n")[0]).toBe(stdout.trimEnd());
    // The emulator's own pid is a host process: the sandbox's proc has no such entry (its pids are few).
    await expect(bench.sandbox.files.read(`/proc/${process.pid}/status`)).rejects.toThrow(NotFoundError);
  });

  it("answers 404 for what is not there and refuses a directory", async () => {
    await expect(bench.sandbox.files.read("/proc/no-such-entry")).rejects.toThrow(NotFoundError);
    await expect(bench.sandbox.files.read("/proc/sys")).rejects.toThrow("path '/proc/sys' is a directory");
  });
});
