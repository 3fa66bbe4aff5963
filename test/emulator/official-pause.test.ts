/**
 * Pause and resume through the official SDK (`e2b`, unmodified), as the SDK's own tests run them
 * (e2b-dev/E2B: packages/js-sdk/tests/sandbox/snapshot.test.ts): a pause that keeps the memory
 * freezes the sandbox's processes and the resume continues them (same pids, same boot); a
 * files-only pause (`keepMemory: false`) is a cold boot (processes gone, a new boot_id); a paused
 * sandbox with auto-resume comes back on an in-sandbox call or a request to one of its ports, and a
 * secure one (or one without public traffic) called without its
 * token answers 403 and stays paused (docs/service.md#pause-and-resume).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "e2b";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { useOfficialEmulator } from "./official-helpers";
import { get, serve, urlOf } from "./ports-helpers";

const bench = useOfficialEmulator();

async function sandbox(extra: Parameters<typeof Sandbox.create>[1] = {}): Promise<Sandbox> {
  const s = await Sandbox.create("base", { ...bench.opts, timeoutMs: 120_000, ...extra });
  bench.made.push(s);
  return s;
}

const bootId = async (s: Sandbox) => (await s.commands.run("cat /proc/sys/kernel/random/boot_id")).stdout.trim();

describe("a pause that keeps the memory", () => {
  it("freezes the processes: a background sleep is still there after the resume, with its pid, and Connect reaches it", async () => {
    const s = await sandbox();
    const boot = await bootId(s);
    const cmd = await s.commands.run("sleep 3600", { background: true });
    await s.pause();
    expect(await s.isRunning()).toBe(false);
    await s.connect();
    expect(await s.isRunning()).toBe(true);
    expect((await s.commands.list()).map((p) => p.pid)).toContain(cmd.pid);
    const again = await s.commands.connect(cmd.pid);
    expect(again.pid).toBe(cmd.pid);
    expect((await s.commands.run(`kill -0 ${cmd.pid} && echo alive`)).stdout).toBe("alive\n");
    expect(await bootId(s)).toBe(boot);
  });

  it("stops the processes while paused and continues them at the resume: `sleep 2 && echo` finishes after it", async () => {
    const s = await sandbox();
    await s.commands.run("sleep 2 && echo done > /home/user/late.txt", { background: true });
    await s.pause();
    // Paused longer than the sleep: a process that kept running would have written the file by now.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await s.files.exists("/home/user/late.txt").catch(() => "unreachable")).toBe("unreachable");
    await s.connect();
    await expect.poll(() => s.files.exists("/home/user/late.txt"), { timeout: 5_000 }).toBe(true);
    expect((await s.files.read("/home/user/late.txt")).trim()).toBe("done");
  });

  it("the resume continues what it froze: the process is sleeping again, not stopped (state T)", async () => {
    const s = await sandbox();
    const cmd = await s.commands.run("sleep 3600", { background: true });
    await s.pause();
    await s.connect();
    const state = await s.commands.run(`ps -o stat= -p ${cmd.pid}`);
    expect(state.stdout.trim()).toMatch(/^S/);
  });
});

describe("a paused sandbox killed", () => {
  it("ends its frozen processes on the host too", async () => {
    const s = await sandbox();
    await s.commands.run("sleep 4242", { background: true });
    // A background start answers once the shell is spawned; on a loaded host the pause could
    // freeze it before it has exec'd `sleep`, and no process would carry that command line.
    await expect.poll(() => hostPids("sleep 4242"), { timeout: 5_000 }).not.toEqual([]);
    await s.pause();
    expect(hostPids("sleep 4242")).not.toEqual([]);
    await s.kill();
    await expect.poll(() => hostPids("sleep 4242"), { timeout: 5_000 }).toEqual([]);
  });
});

describe("a files-only pause (keepMemory: false)", () => {
  it("boots cold: the processes are gone, files stay, and the boot_id is new", async () => {
    const s = await sandbox();
    const boot = await bootId(s);
    const cmd = await s.commands.run("sleep 3600", { background: true });
    await s.files.write("/home/user/kept.txt", "kept");
    expect(await s.pause({ keepMemory: false })).toBe(true);
    await s.connect();
    expect((await s.commands.list()).map((p) => p.pid)).not.toContain(cmd.pid);
    expect((await s.commands.run("pgrep -c -f '^sleep 3600' || true")).stdout.trim()).toBe("0");
    expect(await s.files.read("/home/user/kept.txt")).toBe("kept");
    const after = await bootId(s);
    expect(after).toMatch(/^[0-9a-f-]{36}$/);
    expect(after).not.toBe(boot);
  });
});

describe("auto-resume", () => {
  it("a paused sandbox with autoResume comes back on an in-sandbox call, processes and all", async () => {
    const s = await sandbox({ lifecycle: { onTimeout: "pause", autoResume: true } });
    const cmd = await s.commands.run("sleep 3600", { background: true });
    await s.pause();
    // Not isRunning(): its health probe is itself a call that resumes the sandbox.
    expect((await Sandbox.getInfo(s.sandboxId, bench.opts)).state).toBe("paused");
    expect((await s.commands.run("echo back")).stdout).toBe("back\n");
    expect((await Sandbox.getInfo(s.sandboxId, bench.opts)).state).toBe("running");
    expect((await s.commands.list()).map((p) => p.pid)).toContain(cmd.pid);
  });

  it("without autoResume a call to a paused sandbox finds it gone (502) and it stays paused", async () => {
    const s = await sandbox();
    await s.pause();
    const res = await envdCall(s.sandboxId, {});
    expect(res.status).toBe(502);
    expect((await Sandbox.getInfo(s.sandboxId, bench.opts)).state).toBe("paused");
  });

  it("a secure sandbox called without its token: 403 with the proxy's message, still paused; with it, resumed", async () => {
    const s = await sandbox({ secure: true, lifecycle: { onTimeout: "pause", autoResume: true } });
    await s.pause();
    const denied = await envdCall(s.sandboxId, {});
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual({
      sandboxId: s.sandboxId,
      message: "This sandbox can't be resumed with the credentials provided. Check your access token and try again.",
      code: 403,
    });
    expect((await Sandbox.getInfo(s.sandboxId, bench.opts)).state).toBe("paused");
    expect((await s.commands.run("echo back")).stdout).toBe("back\n");
    expect((await Sandbox.getInfo(s.sandboxId, bench.opts)).state).toBe("running");
  });
});

describe("auto-resume through a sandbox port", () => {
  it("a proxied request resumes the sandbox, and its frozen server answers it", async () => {
    const s = await sandbox({ lifecycle: { onTimeout: "pause", autoResume: true } });
    await serve(s, 8000, "frozen");
    await s.pause();
    expect((await Sandbox.getInfo(s.sandboxId, bench.opts)).state).toBe("paused");
    const answer = await get(urlOf(s, 8000));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ label: "frozen" });
    expect((await Sandbox.getInfo(s.sandboxId, bench.opts)).state).toBe("running");
  });

  it("without public traffic, a request without the traffic token is refused (403) and the sandbox stays paused", async () => {
    const s = await sandbox({ network: { allowPublicTraffic: false }, lifecycle: { onTimeout: "pause", autoResume: true } });
    await s.pause();
    const denied = await get(urlOf(s, 8000), { accept: "application/json" });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text)).toEqual({
      sandboxId: s.sandboxId,
      message: "This sandbox can't be resumed with the credentials provided. Check your access token and try again.",
      code: 403,
    });
    expect((await Sandbox.getInfo(s.sandboxId, bench.opts)).state).toBe("paused");
  });
});

/** Host pids of the processes whose command line is exactly `cmdline`. */
function hostPids(cmdline: string): string[] {
  const found = spawnSync("pgrep", ["-x", "-f", cmdline], { encoding: "utf8" });
  return found.stdout.split("\n").filter(Boolean);
}

/** A Connect call to envd's List, addressed by routing header, with the given extra headers. */
function envdCall(sandboxID: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${bench.emu.sandboxUrl}/process.Process/List`, {
    method: "POST",
    headers: { "content-type": "application/json", "connect-protocol-version": "1", "e2b-sandbox-id": sandboxID, ...headers },
    body: "{}",
  });
}

describe("without namespaces (isolation none), the fallback", () => {
  let plain: Emulator;
  beforeAll(async () => {
    process.env.SANDBOX_EMULATOR_ISOLATION = "none";
    try {
      plain = await createEmulator();
    } finally {
      delete process.env.SANDBOX_EMULATOR_ISOLATION;
    }
  });
  afterAll(() => plain?.close());

  it("freezes each command's process group and continues it at the resume", async () => {
    expect(plain.isolation.mode).toBe("none");
    const s = await Sandbox.create("base", { apiKey: plain.apiKey, apiUrl: plain.apiUrl, sandboxUrl: plain.sandboxUrl, timeoutMs: 60_000 });
    try {
      const cmd = await s.commands.run("sleep 3600", { background: true });
      await s.commands.run("sleep 1 && echo done > late.txt", { background: true });
      await s.pause();
      await new Promise((r) => setTimeout(r, 1_500));
      // Frozen, not merely left running: the file is not there while the sandbox is paused.
      expect(existsSync(join(plain.dataDir, "sandboxes", s.sandboxId, "home/user/late.txt"))).toBe(false);
      await s.connect();
      expect((await s.commands.list()).map((p) => p.pid)).toContain(cmd.pid);
      await expect.poll(() => s.files.exists("late.txt"), { timeout: 5_000 }).toBe(true);
    } finally {
      await s.kill();
    }
  });
});
