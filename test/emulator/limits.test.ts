/**
 * What a sandbox may use, and that its processes end with it: the process and file-size limits
 * (emulator option `limits`), with the errors a user sees, and no process of a sandbox left on the
 * host after a kill, an expiry or the emulator's close, daemons (setsid, nohup) included.
 * Driven with E2B's official SDK.
 */
import { Sandbox, type ConnectionOpts } from "e2b";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { hostSleeps } from "./host-processes";

const MiB = 1024 * 1024;
let emu: Emulator;
let opts: ConnectionOpts;

beforeAll(async () => {
  emu = await createEmulator({ limits: { processes: 20, fileSizeBytes: MiB } });
  opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl };
});
afterAll(async () => {
  await emu?.close();
});

/** A `sleep` argument no other test run on this host uses at the same time. */
const marker = (n: number) => String(900_000_000 + (process.pid % 100_000) * 10 + n);

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

describe("limits", () => {
  it("a command cannot write a file past the size limit; an upload past it is refused and leaves nothing", async () => {
    const sandbox = await Sandbox.create("base", opts);
    try {
      const err = await failure(sandbox.commands.run("head -c 2M /dev/zero > /home/user/big"));
      expect(err).toMatchObject({ exitCode: 153 }); // 128 + SIGXFSZ: "File size limit exceeded"
      expect((await sandbox.files.getInfo("/home/user/big")).size).toBe(MiB);
      await expect(sandbox.files.write("/home/user/upload.bin", new Uint8Array(2 * MiB).buffer)).rejects.toThrow(
        "error writing file '/home/user/upload.bin': larger than the sandbox's file size limit (1048576 bytes)",
      );
      expect(await sandbox.files.exists("/home/user/upload.bin")).toBe(false);
    } finally {
      await sandbox.kill();
    }
  });

  it("a fork bomb stops at the process limit, and only in its own sandbox", async () => {
    const sandbox = await Sandbox.create("base", opts);
    const other = await Sandbox.create("base", opts);
    try {
      // dash, which does not retry a failed fork as bash does (for seconds).
      const bomb = "i=0; while [ $i -lt 50 ]; do sleep 600 >/dev/null 2>&1 & i=$((i+1)); done";
      const ended = (await failure(sandbox.commands.run(`sh -c '${bomb}'`))) as { stderr?: string } | undefined;
      expect(ended?.stderr).toContain("Cannot fork");
      const count = await sandbox.commands.run("ps -u user -o pid= | wc -l", { user: "root" });
      expect(Number(count.stdout.trim())).toBeLessThanOrEqual(20);
      expect((await other.commands.run("echo fine")).stdout).toBe("fine\n");
    } finally {
      await Promise.all([sandbox.kill(), other.kill()]);
    }
  });
});

describe("no process outlives its sandbox", () => {
  const start = (sandbox: Sandbox, mark: string) =>
    sandbox.commands.run(`setsid sleep ${mark} & nohup sleep ${mark} > /dev/null 2>&1 & sleep ${mark}`, { background: true });

  it("kill ends the whole tree, daemons included", async () => {
    const sandbox = await Sandbox.create("base", opts);
    await start(sandbox, marker(1));
    await vi.waitFor(() => expect(hostSleeps(marker(1))).toHaveLength(3));
    await sandbox.kill();
    await vi.waitFor(() => expect(hostSleeps(marker(1))).toEqual([]));
  });

  it("expiry ends it too", async () => {
    const sandbox = await Sandbox.create("base", { ...opts, timeoutMs: 1500 });
    await start(sandbox, marker(2));
    await vi.waitFor(() => expect(hostSleeps(marker(2))).toHaveLength(3));
    await vi.waitFor(() => expect(hostSleeps(marker(2))).toEqual([]), { timeout: 10_000 });
  });

  it("closing the emulator ends every sandbox's processes", async () => {
    const own = await createEmulator();
    const ownOpts = { apiKey: own.apiKey, apiUrl: own.apiUrl, sandboxUrl: own.sandboxUrl };
    const [one, two] = await Promise.all([Sandbox.create("base", ownOpts), Sandbox.create("base", ownOpts)]);
    await Promise.all([start(one, marker(3)), start(two, marker(3))]);
    await vi.waitFor(() => expect(hostSleeps(marker(3))).toHaveLength(6));
    await own.close();
    expect(hostSleeps(marker(3))).toEqual([]);
  });
});
