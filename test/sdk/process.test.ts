/**
 * The process client against the emulator, under each codec (binary, the default, and JSON): a
 * sandbox created through its REST API, commands run for real. Wire-level breakage the emulator
 * never produces is in process-wire.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { RPC_CODECS } from "../../sdk/config";
import type { SandboxError } from "../../sdk/errors";
import { ProcessClient, type ProcessEvent } from "../../sdk/in-sandbox/process";
import type { CommandError } from "../../sdk/in-sandbox/process-run";
import type { SandboxTarget } from "../../sdk/transport/rpc";
import { createSandbox } from "./emulator-sandbox";
import { memoryProbe } from "./memory-probe";

let emu: Emulator;
let target: Required<Omit<SandboxTarget, "interceptors">>;
let pc: ProcessClient;

beforeAll(async () => {
  emu = await createEmulator();
});
afterAll(() => emu.close());

const failure = (p: Promise<unknown>) => p.then(() => expect.unreachable("expected a failure"), (e: unknown) => e as CommandError);

/** Reads a stream's events after `start`, to the end. */
async function rest(it: AsyncIterator<ProcessEvent>): Promise<{ stdout: string; end?: ProcessEvent }> {
  let stdout = "";
  for (let r = await it.next(); !r.done; r = await it.next()) {
    if (r.value.type === "stdout") stdout += Buffer.from(r.value.data).toString();
    if (r.value.type === "end") return { stdout, end: r.value };
  }
  return { stdout };
}

describe.each(RPC_CODECS)("codec %s", (rpcCodec) => {
  // A sandbox per codec: the tests leave files and tags behind.
  beforeAll(async () => {
    target = await createSandbox(emu, { rpcCodec });
    pc = new ProcessClient(target);
    expect(pc.rpc.codec).toBe(rpcCodec);
  });

  describe("run", () => {
    it("returns exit codes instead of throwing: 0, 3, and -1 for a kill", async () => {
      expect(await pc.run("true")).toMatchObject({ exitCode: 0, status: "exit status 0", error: undefined });
      expect(await pc.run("exit 3")).toMatchObject({ exitCode: 3, status: "exit status 3", error: "exit status 3" });
      expect(await pc.run("kill -9 $$")).toMatchObject({ exitCode: -1, status: "signal: killed" });
    });

    it("streams stdout and stderr to callbacks in order and keeps their tails", async () => {
      const out: string[] = [];
      const err: string[] = [];
      const res = await pc.run("for i in 1 2 3; do echo out$i; echo err$i >&2; done", {
        onStdout: (t) => out.push(t),
        onStderr: (t) => err.push(t),
      });
      expect(out.join("")).toBe("out1\nout2\nout3\n");
      expect(err.join("")).toBe("err1\nerr2\nerr3\n");
      expect(res).toMatchObject({ stdoutTail: "out1\nout2\nout3\n", stderrTail: "err1\nerr2\nerr3\n", stdoutBytes: 15, stderrBytes: 15 });
      expect(res.pid).toBeGreaterThan(0);
      expect(res.durationMs).toBeGreaterThanOrEqual(0);
    });

    it("delivers output while the command still runs", async () => {
      // The command only ends once the callback, reacting to its first line, made a file it waits for.
      const res = await pc.run("echo ready; while [ ! -e go-live ]; do sleep 0.05; done; echo done", {
        timeoutMs: 20_000,
        onStdout: (t) => {
          if (t.includes("ready")) void pc.run("touch go-live");
        },
      });
      expect(res).toMatchObject({ exitCode: 0, stdoutTail: "ready\ndone\n" });
    });

    it("passes envs and cwd", async () => {
      await pc.run("mkdir -p work/sub");
      const res = await pc.run('echo "$GREETING"; pwd', { envs: { GREETING: "hello there" }, cwd: "/home/user/work/sub" });
      expect(res.stdoutTail).toMatch(/^hello there\n.*\/home\/user\/work\/sub\n$/);
    });

    it("runs as the named user (Authorization: Basic) and refuses an unknown one", async () => {
      expect((await pc.run("echo $HOME")).stdoutTail).toMatch(/\/home\/user\n$/);
      expect((await pc.run("echo $HOME", { user: "root" })).stdoutTail).toMatch(/\/root\n$/);
      const err = await failure(pc.run("true", { user: "nobody-here" }));
      expect(err.code).toBe("unauthenticated");
      expect(err.message).toContain("invalid username: 'nobody-here'");
    });

    it("kills a command at its timeout (Connect-Timeout-Ms) and reports timeout", async () => {
      const err = await failure(pc.run("echo started; sleep 30", { timeoutMs: 700, tag: "sleeper" }));
      expect(err.code).toBe("timeout");
      expect(err.message).toBe(
        "The command did not finish within its timeout of 700 ms (timeoutMs, sent as Connect-Timeout-Ms) and the sandbox " +
          "killed it. Raise timeoutMs, or pass 0 for no limit.",
      );
      expect(err.stdoutTail).toBe("started\n");
      await vi.waitFor(async () => expect((await pc.list()).some((p) => p.tag === "sleeper")).toBe(false), { timeout: 10_000 });
    });

    it("throws process_failed with the exit code and tails when asked to", async () => {
      const err = await failure(pc.run("echo partial; echo boom >&2; exit 2", { throwOnNonZero: true }));
      expect(err).toMatchObject({ code: "process_failed", exitCode: 2, stdoutTail: "partial\n", stderrTail: "boom\n" });
      expect(err.message).toMatch(/^The command \(pid \d+\) exited with code 2; its output ended with:\nboom$/);
    });

    it("stops at the caller's abort signal with code aborted", async () => {
      const ctl = new AbortController();
      const err = await failure(
        pc.run("echo go; sleep 30", { signal: ctl.signal, onStdout: () => ctl.abort(), tag: "aborted-one" }),
      );
      expect(err.code).toBe("aborted");
      await pc.kill({ tag: "aborted-one" });
    });
  });

  describe("processes", () => {
    it("feeds stdin with sendInput and closeStdin", async () => {
      const it = pc.start({ cmd: "cat", stdin: true, tag: "cat-input" })[Symbol.asyncIterator]();
      expect((await it.next()).value).toMatchObject({ type: "start" });
      await pc.sendInput({ tag: "cat-input" }, "hello ");
      await pc.sendInput({ tag: "cat-input" }, new TextEncoder().encode("world\n"));
      await pc.closeStdin({ tag: "cat-input" });
      const { stdout, end } = await rest(it);
      expect(stdout).toBe("hello world\n");
      expect(end).toMatchObject({ type: "end", exitCode: 0 });
    });

    it("feeds stdin in order with streamInput", async () => {
      const it = pc.start({ cmd: "cat", stdin: true, tag: "cat-stream" })[Symbol.asyncIterator]();
      const first = (await it.next()).value as Extract<ProcessEvent, { type: "start" }>;
      await pc.streamInput(first.pid, ["a", "b", new TextEncoder().encode("c\n")]);
      await pc.closeStdin(first.pid);
      expect((await rest(it)).stdout).toBe("abc\n");
    });

    it("lists, attaches to, signals and waits for a process by tag", async () => {
      const started = pc.start({ cmd: "/bin/bash", args: ["-c", "while [ ! -e go-attach ]; do sleep 0.05; done; echo attached; sleep 30"], tag: "waiter" });
      const first = (await started[Symbol.asyncIterator]().next()).value as Extract<ProcessEvent, { type: "start" }>;
      const listed = (await pc.list()).find((p) => p.tag === "waiter");
      expect(listed).toMatchObject({ pid: first.pid, cmd: "/bin/bash" });

      const attached = pc.connect({ tag: "waiter" })[Symbol.asyncIterator]();
      expect((await attached.next()).value).toEqual({ type: "start", pid: first.pid });
      await pc.run("touch go-attach");
      expect((await attached.next()).value).toMatchObject({ type: "stdout" });
      const waited = pc.wait({ tag: "waiter" });
      await pc.sendSignal(first.pid, "SIGKILL");
      expect(await waited).toMatchObject({ exitCode: -1, pid: first.pid, status: "signal: killed" });
      expect((await rest(attached)).end).toMatchObject({ type: "end", exitCode: -1 });
      expect(await pc.kill(first.pid)).toBe(false);
    });

    it("times out a wait without killing the process", async () => {
      const it = pc.start({ cmd: "sleep", args: ["30"], tag: "long-wait", timeoutMs: 0 })[Symbol.asyncIterator]();
      const { pid } = (await it.next()).value as Extract<ProcessEvent, { type: "start" }>;
      const err = await failure(pc.wait({ tag: "long-wait" }, { timeoutMs: 300 }));
      expect(err.code).toBe("timeout");
      expect(err.message).toBe(`Waiting for process ${pid} timed out after 300 ms (timeoutMs); the process may still be running.`);
      expect((await pc.list()).map((p) => p.pid)).toContain(pid);
      expect(await pc.kill({ tag: "long-wait" })).toBe(true);
      expect((await rest(it)).end).toMatchObject({ exitCode: -1 });
    });

    it("reports an unknown pid as not_found", async () => {
      const err = (await pc.update(999_999, { cols: 80, rows: 24 }).catch((e: unknown) => e)) as SandboxError;
      expect(err.code).toBe("not_found");
      expect(err.message).toMatch(/^Update pid 999999 on sandbox \w+ failed \(not_found\): /);
    });
  });

  describe("memory", () => {
    it("keeps live memory flat for 50 MB of output", async () => {
      const size = 50 * 1024 * 1024;
      await pc.run("head -c 1000000 /dev/zero | tr '\\0' x"); // warm up code paths
      const rssBefore = process.memoryUsage().rss;
      const probe = memoryProbe();
      let chars = 0;
      const res = await pc.run(`head -c ${size} /dev/zero | tr '\\0' x`, {
        timeoutMs: 120_000,
        onStdout: (t) => {
          chars += t.length;
          probe.sample(t.length);
        },
      });
      const growth = probe.growth();
      expect(chars).toBe(size);
      expect(res).toMatchObject({ exitCode: 0, stdoutBytes: size });
      expect(res.stdoutTail).toBe("x".repeat(64 * 1024));
      expect(growth.samples).toBeGreaterThanOrEqual(9);
      // Output held as text would be 100 MB of heap (UTF-16); the tails are 64 KiB.
      expect(growth.heapUsed).toBeLessThan(size / 10);
      // The emulator shares this process, so this also guards its side: a stream must not keep the
      // chunks it already sent reachable (it once did, through a Promise.race per chunk).
      // In flight: a few MB, more on a loaded machine; the leak it guards against kept 59 MB.
      expect(growth.arrayBuffers).toBeLessThan(size / 2);
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(size * 2);
    });
  });

  describe("secured and missing sandboxes", () => {
    it("works with the access token and is refused without it", async () => {
      const secure = await createSandbox(emu, { secure: true, rpcCodec });
      expect(secure.envdAccessToken).toMatch(/\w{16,}/);
      expect((await new ProcessClient(secure).run("echo ok")).stdoutTail).toBe("ok\n");
      const err = await failure(new ProcessClient({ ...secure, envdAccessToken: null }).run("echo ok"));
      expect(err.code).toBe("unauthenticated");
      expect(err.message).toContain("the access token is missing or wrong");
      const wrong = await failure(new ProcessClient({ ...secure, envdAccessToken: "not-the-token-123" }).list());
      expect(wrong.code).toBe("unauthenticated");
      expect(wrong.message).not.toContain("not-the-token-123");
      expect(wrong.message).not.toContain(secure.envdAccessToken);
    });

    it("reports an unknown or killed sandbox as unavailable: probably not running anymore", async () => {
      const ghost = await failure(new ProcessClient({ ...target, sandboxID: "inotasandbox0000000000" }).run("true"));
      expect(ghost.code).toBe("unavailable");
      expect(ghost.message).toMatch(/^Sandbox inotasandbox0000000000 is probably not running anymore\. .*not running or was not found/);

      const doomed = await createSandbox(emu, { rpcCodec });
      const del = await fetch(`${emu.apiUrl}/sandboxes/${doomed.sandboxID}`, { method: "DELETE", headers: { "X-API-Key": emu.apiKey } });
      expect(del.status).toBe(204);
      expect((await failure(new ProcessClient(doomed).run("true"))).code).toBe("unavailable");
    });
  });
});
