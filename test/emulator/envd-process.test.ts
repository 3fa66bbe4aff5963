/**
 * The emulator's process service against real processes over real HTTP: events as envd sends them,
 * environment and paths, stdin, signals, deadlines, keepalives, reconnects, PTYs and back-pressure.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Signal } from "../../sdk/gen/process/process_pb";
import { collect, endOf, rejection, startBench, started, textOf, type Bench } from "./envd-harness";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
  await bench.sandbox("iproc", { envVars: { FROM_SANDBOX: "sandbox", OVERRIDE: "sandbox" } });
});
afterAll(() => bench.close());

const sh = (script: string, extra: Record<string, unknown> = {}) => ({
  process: { cmd: "/bin/bash", args: ["-c", script], envs: {} },
  stdin: false,
  ...extra,
});

describe("Start", () => {
  it("sends start, then stdout and stderr chunks, then an end without exitCode on success", async () => {
    const events = await collect(bench.process("iproc").start(sh("echo out; echo err >&2")));
    expect(events[0]?.case).toBe("start");
    expect(textOf(events, "stdout")).toBe("out\n");
    expect(textOf(events, "stderr")).toBe("err\n");
    expect(endOf(events)).toMatchObject({ exitCode: 0, exited: true, status: "exit status 0" });
    expect(endOf(events)?.error).toBeUndefined();
  });

  it("reports a non-zero exit with exitCode, status and error", async () => {
    const events = await collect(bench.process("iproc").start(sh("exit 3")));
    expect(endOf(events)).toMatchObject({ exitCode: 3, exited: true, status: "exit status 3", error: "exit status 3" });
  });

  it("runs in the sandbox home by default with HOME, USER and the sandbox envVars; request envs win", async () => {
    const req = sh('echo "$PWD|$HOME|$USER|$FROM_SANDBOX|$OVERRIDE"');
    req.process.envs = { OVERRIDE: "request" };
    const home = path.join(bench.dataDir, "sandboxes", "iproc", "home", "user");
    const events = await collect(bench.process("iproc").start(req));
    expect(textOf(events, "stdout")).toBe(`${home}|${home}|user|sandbox|request\n`);
  });

  it("without isolation too, envd's own variables are in every process and GET /envs, over the sandbox's, and its /run/e2b files are in the sandbox's root", async () => {
    await bench.sandbox("iown", { envVars: { E2B_SANDBOX_ID: "mine", KEPT: "k" } });
    const events = await collect(bench.process("iown").start(sh('echo "$E2B_SANDBOX_ID $E2B_TEMPLATE_ID $E2B_SANDBOX $KEPT"')));
    expect(textOf(events, "stdout")).toBe("iown harness-template true k\n");
    const envs = await (await fetch(`${bench.url}/envs`, { headers: { "E2b-Sandbox-Id": "iown" } })).json();
    expect(envs).toEqual({ E2B_SANDBOX_ID: "iown", E2B_TEMPLATE_ID: "harness-template", E2B_SANDBOX: "true", KEPT: "k" });
    const run = path.join(bench.dataDir, "sandboxes", "iown", "run", "e2b");
    const files = await Promise.all([".E2B_SANDBOX_ID", ".E2B_TEMPLATE_ID", ".E2B_SANDBOX"].map((f) => readFile(path.join(run, f), "utf8")));
    expect(files).toEqual(["iown", "harness-template", "true"]);
  });

  it("maps cwd under the sandbox root and refuses a cwd that does not exist", async () => {
    const client = bench.process("iproc");
    const events = await collect(client.start({ process: { cmd: "pwd", args: [], envs: {}, cwd: "/" }, stdin: false }));
    expect(textOf(events, "stdout")).toBe(`${path.join(bench.dataDir, "sandboxes", "iproc")}\n`);
    const err = await rejection(collect(client.start({ process: { cmd: "pwd", args: [], envs: {}, cwd: "/nope" } })));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe("cwd '/nope' does not exist");
  });

  it("speaks the binary codec too", async () => {
    const events = await collect(bench.process("iproc", { binary: true }).start(sh("printf 'b\\x00in'; exit 1")));
    expect(textOf(events, "stdout")).toBe("b\0in");
    expect(endOf(events)).toMatchObject({ exitCode: 1, status: "exit status 1" });
  });

  it("ends a missing binary with the shell's exit 127", async () => {
    const events = await collect(bench.process("iproc").start({ process: { cmd: "/no/such/binary", args: [], envs: {} } }));
    expect(endOf(events)).toMatchObject({ exitCode: 127, error: "exit status 127" });
    expect(textOf(events, "stderr")).toContain("/no/such/binary");
  });

  it("keeps stdin open when the field is absent, feeds SendInput and ends on CloseStdin", async () => {
    const client = bench.process("iproc");
    const { pid, rest } = await started(client.start({ process: { cmd: "cat", args: [], envs: {} } }));
    await client.sendInput({ process: { selector: { case: "pid", value: pid } }, input: { input: { case: "stdin", value: Buffer.from("hello ") } } });
    await client.sendInput({ process: { selector: { case: "pid", value: pid } }, input: { input: { case: "stdin", value: Buffer.from("world") } } });
    await client.closeStdin({ process: { selector: { case: "pid", value: pid } } });
    const after = await rest();
    expect(textOf(after, "stdout")).toBe("hello world");
    expect(endOf(after)?.exitCode).toBe(0);
  });

  it("gives the child /dev/null when stdin is false, and refuses input then", async () => {
    const client = bench.process("iproc");
    const events = await collect(client.start({ process: { cmd: "cat", args: [], envs: {} }, stdin: false }));
    expect(endOf(events)?.exitCode).toBe(0);
    const { pid, rest } = await started(client.start({ process: { cmd: "sleep", args: ["5"], envs: {} }, stdin: false }));
    const err = await rejection(
      client.sendInput({ process: { selector: { case: "pid", value: pid } }, input: { input: { case: "stdin", value: Buffer.from("x") } } }),
    );
    expect(err.code).toBe(Code.Internal);
    expect(err.rawMessage).toBe("error writing to stdin: stdin not enabled or closed");
    await client.sendSignal({ process: { selector: { case: "pid", value: pid } }, signal: Signal.SIGKILL });
    await rest();
  });

  it("feeds StreamInput messages in order", async () => {
    const client = bench.process("iproc");
    const { pid, rest } = await started(client.start({ process: { cmd: "cat", args: [], envs: {} } }));
    async function* input() {
      yield { event: { case: "start" as const, value: { process: { selector: { case: "pid" as const, value: pid } } } } };
      for (const word of ["a", "b", "c", "d"]) {
        yield { event: { case: "data" as const, value: { input: { input: { case: "stdin" as const, value: Buffer.from(word) } } } } };
      }
    }
    await client.streamInput(input());
    await client.closeStdin({ process: { selector: { case: "pid", value: pid } } });
    expect(textOf(await rest(), "stdout")).toBe("abcd");
  });

  it("kills by SIGKILL and SIGTERM with exitCode -1 and Go's status text", async () => {
    const client = bench.process("iproc");
    for (const [signal, status] of [
      [Signal.SIGKILL, "signal: killed"],
      [Signal.SIGTERM, "signal: terminated"],
    ] as const) {
      const { pid, rest } = await started(client.start(sh("sleep 30")));
      await client.sendSignal({ process: { selector: { case: "pid", value: pid } }, signal });
      const end = endOf(await rest());
      expect(end).toMatchObject({ exitCode: -1, exited: false, status, error: status });
    }
  });

  it("kills the process when Connect-Timeout-Ms passes and ends the stream with deadline_exceeded", async () => {
    const client = bench.process("iproc");
    const marker = path.join(bench.dataDir, "timeout-marker");
    const stream = client.start(sh(`echo $$ > ${marker}; sleep 30`), { timeoutMs: 1500 });
    const err = await rejection(collect(stream));
    // The client's own deadline fires with the server's; the server's message is asserted on the wire.
    expect(err.code).toBe(Code.DeadlineExceeded);
    const pid = Number((await readFile(marker, "utf8")).trim());
    // Live or just ended, Connect ends with the process's end event.
    const events = await collect(client.connect({ process: { selector: { case: "pid", value: pid } } }));
    expect(endOf(events)?.status).toBe("signal: killed");
  });

  it("sends keepalive events when nothing was sent for Keepalive-Ping-Interval seconds", async () => {
    const client = bench.process("iproc");
    const events = await collect(client.start(sh("sleep 2.5; echo done"), { headers: { "Keepalive-Ping-Interval": "1" } }));
    expect(events.filter((e) => e.case === "keepalive").length).toBeGreaterThanOrEqual(1);
    expect(textOf(events, "stdout")).toBe("done\n");
  });
});

describe("Connect, List and the registry", () => {
  it("lists running processes with config and tag, and connects by tag to further output", async () => {
    const client = bench.process("iproc");
    const req = sh("read line; echo got-$line", { tag: "reader", stdin: true });
    const controller = new AbortController();
    const { pid } = await started(client.start(req, { signal: controller.signal }));
    controller.abort(); // a client that goes away does not end the process
    const listed = (await client.list({})).processes.find((p) => p.pid === pid);
    expect(listed).toMatchObject({ pid, tag: "reader", config: { cmd: "/bin/bash", args: ["-c", "read line; echo got-$line"] } });
    const { pid: again, rest } = await started(client.connect({ process: { selector: { case: "tag", value: "reader" } } }));
    expect(again).toBe(pid);
    await client.sendInput({ process: { selector: { case: "pid", value: pid } }, input: { input: { case: "stdin", value: Buffer.from("x\n") } } });
    const after = await rest();
    expect(textOf(after, "stdout")).toBe("got-x\n");
    expect(endOf(after)?.exitCode).toBe(0);
  });

  it("does not hold a process back after its client left (output goes nowhere until a Connect)", async () => {
    const client = bench.process("iproc");
    const controller = new AbortController();
    const script = "head -c 20000000 /dev/zero; read _; echo finished";
    const { pid } = await started(client.start(sh(script, { stdin: true }), { signal: controller.signal }));
    controller.abort();
    // Had the left stream stayed attached, its full queue would keep the writer paused forever.
    const { rest } = await started(client.connect({ process: { selector: { case: "pid", value: pid } } }));
    await client.sendInput({ process: { selector: { case: "pid", value: pid } }, input: { input: { case: "stdin", value: Buffer.from("\n") } } });
    const events = await rest();
    expect(textOf(events, "stdout").endsWith("finished\n")).toBe(true);
    expect(endOf(events)?.exitCode).toBe(0);
  });

  it("replays the end of a process that ended recently, and answers not_found for unknown pids", async () => {
    const client = bench.process("iproc");
    const { pid, rest } = await started(client.start(sh("exit 4")));
    await rest();
    const replay = await collect(client.connect({ process: { selector: { case: "pid", value: pid } } }));
    expect(replay.map((e) => e.case)).toEqual(["start", "end"]);
    expect(endOf(replay)?.exitCode).toBe(4);
    const err = await rejection(collect(client.connect({ process: { selector: { case: "pid", value: 999_999_99 } } })));
    expect(err.code).toBe(Code.NotFound);
    expect(err.rawMessage).toBe("process with pid 99999999 not found");
    const sig = await rejection(client.sendSignal({ process: { selector: { case: "pid", value: 999_999_99 } }, signal: Signal.SIGKILL }));
    expect(sig.code).toBe(Code.NotFound);
  });

  it("cuts the streams and kills the processes of a sandbox that stops", async () => {
    await bench.sandbox("istop");
    const { pid, rest } = await started(bench.process("istop").start(sh("sleep 30")));
    bench.stop("istop");
    // As when a real sandbox dies: the connection drops, no end event is made up.
    const err = await rejection(rest());
    expect(err.code).not.toBe(Code.DeadlineExceeded);
    await vi.waitFor(() => expect(() => process.kill(pid, 0)).toThrow(/ESRCH/));
  });
});

describe("ending", () => {
  it("forgets an ended process after the retention window: Connect then answers not_found", async () => {
    const short = await startBench({ exitRetentionMs: 1500 });
    try {
      await short.sandbox("iret");
      const client = short.process("iret");
      const { pid, rest } = await started(client.start(sh("exit 0")));
      await rest();
      const selector = { process: { selector: { case: "pid" as const, value: pid } } };
      expect((await collect(client.connect(selector))).map((e) => e.case)).toEqual(["start", "end"]);
      await vi.waitFor(async () => {
        const err = await rejection(collect(client.connect(selector)));
        expect(err.rawMessage).toBe(`process with pid ${pid} not found`);
      }, { timeout: 10_000, interval: 200 });
    } finally {
      await short.close();
    }
  });

  it("kills every process when the emulator's envd closes", async () => {
    const other = await startBench();
    await other.sandbox("iclose");
    const { pid } = await started(other.process("iclose").start(sh("sleep 30")));
    expect(process.kill(pid, 0)).toBe(true);
    await other.close();
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});

describe("PTY", () => {
  it("runs in a terminal, sends data.pty, takes input and resizes", async () => {
    const client = bench.process("iproc");
    const req = { process: { cmd: "/bin/bash", args: ["--noprofile", "--norc", "-i"], envs: { PS1: "$ " } }, pty: { size: { cols: 80, rows: 24 } } };
    const { pid, rest } = await started(client.start(req));
    const sel = { process: { selector: { case: "pid" as const, value: pid } } };
    await client.update({ ...sel, pty: { size: { cols: 123, rows: 45 } } });
    await client.sendInput({ ...sel, input: { input: { case: "pty", value: Buffer.from("tty -s && stty size; exit 7\n") } } });
    const events = await rest();
    expect(textOf(events, "pty")).toContain("45 123");
    expect(textOf(events, "stdout")).toBe("");
    expect(endOf(events)).toMatchObject({ exitCode: 7, status: "exit status 7" });
  });

  it("refuses CloseStdin and stdin input for a PTY with envd's messages", async () => {
    const client = bench.process("iproc");
    const { pid, rest } = await started(client.start({ process: { cmd: "cat", args: [], envs: {} }, pty: { size: { cols: 80, rows: 24 } } }));
    const sel = { process: { selector: { case: "pid" as const, value: pid } } };
    const close = await rejection(client.closeStdin(sel));
    expect(close.rawMessage).toBe("error closing stdin: cannot close stdin for PTY process — send Ctrl+D (0x04) instead");
    const input = await rejection(client.sendInput({ ...sel, input: { input: { case: "stdin", value: Buffer.from("x") } } }));
    expect(input.rawMessage).toBe("error writing to stdin: tty assigned to process — input should be written to the pty, not the stdin");
    await client.sendInput({ ...sel, input: { input: { case: "pty", value: Buffer.from([4]) } } });
    expect(endOf(await rest())).toMatchObject({ exitCode: 0 });
  });
});

describe("files written by commands", () => {
  it("writes under the mapped home", async () => {
    await collect(bench.process("iproc").start(sh("echo data > written.txt")));
    const host = path.join(bench.dataDir, "sandboxes", "iproc", "home", "user", "written.txt");
    expect(await readFile(host, "utf8")).toBe("data\n");
    await writeFile(host, "changed");
  });
});
