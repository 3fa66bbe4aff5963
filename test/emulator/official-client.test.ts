/**
 * Conformance: E2B's official JS SDK (`e2b`, unmodified) against the emulator. It creates a sandbox
 * from `base`, runs commands (output, exit errors, envs, cwd, timeouts), reconnects to a background
 * command, kills one, feeds stdin, drives a PTY, lists, writes and reads files, and kills the
 * sandbox. It passes only if the emulator speaks the protocol the SDK speaks. The sandbox is one of
 * its own (namespaces; CI runs as root, where the emulator must give them): user, HOME, cwd and
 * absolute paths are the sandbox's, as on the service. Files, watchers and volumes have their own
 * file (official-files.test.ts); the safety of the isolation is isolation.test.ts.
 */
import { CommandExitError, FileType, Sandbox, TimeoutError } from "e2b";
import { describe, expect, it, vi } from "vitest";
import { useOfficialSandbox } from "./official-helpers";

const bench = useOfficialSandbox();

describe("a sandbox of its own", () => {
  it("runs as user (uid 1000) in /home/user, and as root with HOME /root when asked", async () => {
    expect(bench.emu.isolation.mode).toBe("namespaces");
    const me = await bench.sandbox.commands.run('whoami; id -u; echo "$HOME"; pwd');
    expect(me.stdout).toBe("user\n1000\n/home/user\n/home/user\n");
    const root = await bench.sandbox.commands.run('whoami; id -u; echo "$HOME"; pwd', { user: "root" });
    expect(root.stdout).toBe("root\n0\n/root\n/root\n");
    expect((await bench.sandbox.commands.run("pwd", { cwd: "/tmp" })).stdout).toBe("/tmp\n");
  });

  it("sees what a command writes at an absolute path through files.read, and the reverse", async () => {
    await bench.sandbox.commands.run("mkdir -p /home/user/app && echo from-command > /home/user/app/out.txt");
    expect(await bench.sandbox.files.read("/home/user/app/out.txt")).toBe("from-command\n");
    await bench.sandbox.files.write("/home/user/app/in.txt", "from-files");
    expect((await bench.sandbox.commands.run("cat /home/user/app/in.txt; echo; stat -c %U /home/user/app/in.txt")).stdout).toBe("from-files\nuser\n");
    await bench.sandbox.commands.run("mkdir -p /opt/app && echo opt > /opt/app/x", { user: "root" });
    expect(await bench.sandbox.files.read("/opt/app/x")).toBe("opt\n");
  });

  it("lists only its own processes, with its init as PID 1", async () => {
    const ps = await bench.sandbox.commands.run("ps -e -o pid=,args=");
    const lines = ps.stdout.trim().split("\n").map((l) => l.trim());
    expect(lines[0]).toMatch(/^1 /);
    expect(lines.join("\n")).not.toContain("vitest");
    expect(lines.length).toBeLessThan(10);
  });

  it("has a /tmp of its own", async () => {
    const other = await Sandbox.create("base", bench.opts);
    try {
      await bench.sandbox.commands.run("echo mine > /tmp/own.txt");
      expect(await other.files.exists("/tmp/own.txt")).toBe(false);
      const err = await other.commands.run("cat /tmp/own.txt").then(() => undefined, (e: unknown) => e);
      expect(err).toMatchObject({ exitCode: 1, stderr: "cat: /tmp/own.txt: No such file or directory\n" });
    } finally {
      await other.kill();
    }
  });
});

describe("commands", () => {
  it("runs a command and returns stdout, stderr and exit code 0", async () => {
    const result = await bench.sandbox.commands.run("echo hello; echo oops >&2");
    expect(result).toMatchObject({ exitCode: 0, stdout: "hello\n", stderr: "oops\n" });
  });

  it("throws CommandExitError with the exit code and output of a failing command", async () => {
    const err = await bench.sandbox.commands.run("echo partial; exit 3").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CommandExitError);
    expect(err).toMatchObject({ exitCode: 3, error: "exit status 3", stdout: "partial\n" });
  });

  it("passes envs and cwd, and defaults cwd to the home of user", async () => {
    const env = await bench.sandbox.commands.run('echo "$GREETING"', { envs: { GREETING: "hi there" } });
    expect(env.stdout).toBe("hi there\n");
    await bench.sandbox.files.makeDir("/home/user/work");
    const cwd = await bench.sandbox.commands.run("basename $PWD", { cwd: "/home/user/work" });
    expect(cwd.stdout).toBe("work\n");
    const home = await bench.sandbox.commands.run("basename $PWD; echo $USER");
    expect(home.stdout).toBe("user\nuser\n");
  });

  it("streams a background command, reconnects to it, and kills it", async () => {
    const chunks: string[] = [];
    const handle = await bench.sandbox.commands.run("echo first; sleep 30", {
      background: true,
      onStdout: (data) => void chunks.push(data),
    });
    const listed = await bench.sandbox.commands.list();
    expect(listed.map((p) => p.pid)).toContain(handle.pid);
    await handle.disconnect();
    const again = await bench.sandbox.commands.connect(handle.pid);
    expect(again.pid).toBe(handle.pid);
    expect(await bench.sandbox.commands.kill(handle.pid)).toBe(true);
    const err = await again.wait().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CommandExitError);
    expect(err).toMatchObject({ exitCode: -1, error: "signal: killed" });
    expect(await bench.sandbox.commands.kill(handle.pid)).toBe(false);
  });

  it("kills a command that outlives its timeoutMs and raises TimeoutError", async () => {
    const err = await bench.sandbox.commands.run("sleep 30", { timeoutMs: 1000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TimeoutError);
    // The emulator kills it at the same deadline; it leaves the process list soon after.
    await vi.waitFor(async () => {
      const running = (await bench.sandbox.commands.list()).map((p) => p.args.join(" "));
      expect(running).not.toContain("-l -c sleep 30");
    });
  });

  it("sends stdin to a command started with stdin open", async () => {
    const handle = await bench.sandbox.commands.run("read a; read b; echo \"$b-$a\"", { background: true, stdin: true });
    await bench.sandbox.commands.sendStdin(handle.pid, "one\n");
    await handle.sendStdin("two\n");
    const result = await handle.wait();
    expect(result.stdout).toBe("two-one\n");
  });

  it("closes stdin so a reader sees end of input", async () => {
    const handle = await bench.sandbox.commands.run("wc -c", { background: true, stdin: true });
    await handle.sendStdin("12345");
    await handle.closeStdin();
    expect((await handle.wait()).stdout.trim()).toBe("5");
  });
});

describe("connecting", () => {
  it("reaches the same sandbox and its processes through Sandbox.connect", async () => {
    const handle = await bench.sandbox.commands.run("sleep 30", { background: true });
    const same = await Sandbox.connect(bench.sandbox.sandboxId, bench.opts);
    expect((await same.commands.list()).map((p) => p.pid)).toContain(handle.pid);
    expect(await same.commands.kill(handle.pid)).toBe(true);
  });
});

describe("output events", () => {
  it("carry at most envd's read size: 32 KiB of stdout, 16 KiB of a terminal", async () => {
    const sizes: number[] = [];
    await bench.sandbox.commands.run("head -c 200000 /dev/zero | tr '\\0' a", { onStdout: (d) => void sizes.push(d.length) });
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(200_000);
    expect(Math.max(...sizes)).toBe(32 * 1024);
    const pty: number[] = [];
    const terminal = await bench.sandbox.pty.create({ cols: 80, rows: 24, onData: (d) => void pty.push(d.length) });
    await bench.sandbox.pty.sendInput(terminal.pid, new TextEncoder().encode("head -c 100000 /dev/zero | tr '\\0' a; exit\n"));
    await terminal.wait().catch(() => undefined);
    expect(pty.reduce((a, b) => a + b, 0)).toBeGreaterThan(100_000);
    expect(Math.max(...pty)).toBeLessThanOrEqual(16 * 1024);
  });
});

describe("pids", () => {
  it("a command's pid is the one the sandbox sees: its own $$, ps, and a kill from another command", async () => {
    let out = "";
    const handle = await bench.sandbox.commands.run("echo $$; exec sleep 30", { background: true, onStdout: (d) => void (out += d) });
    while (!out.includes("\n")) await new Promise((r) => setTimeout(r, 10));
    expect(out).toBe(`${handle.pid}\n`);
    expect((await bench.sandbox.commands.run(`ps -o args= -p ${handle.pid}`)).stdout).toBe("sleep 30\n");
    await bench.sandbox.commands.run(`kill ${handle.pid}`);
    const err = await handle.wait().then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ exitCode: -1, error: "signal: terminated" });
  });

  it("a terminal's pid is its shell's in the sandbox", async () => {
    let output = "";
    const decoder = new TextDecoder();
    const terminal = await bench.sandbox.pty.create({ cols: 80, rows: 24, onData: (d) => void (output += decoder.decode(d, { stream: true })) });
    await bench.sandbox.pty.sendInput(terminal.pid, new TextEncoder().encode("echo pid=$$; exit\n"));
    await terminal.wait().catch(() => undefined);
    expect(output).toContain(`pid=${terminal.pid}\r\n`);
  });
});

describe("pty", () => {
  it("runs an interactive shell in a terminal that can be resized", async () => {
    let output = "";
    const decoder = new TextDecoder();
    const terminal = await bench.sandbox.pty.create({ cols: 80, rows: 24, onData: (d) => void (output += decoder.decode(d, { stream: true })) });
    await bench.sandbox.pty.resize(terminal.pid, { cols: 100, rows: 40 });
    await bench.sandbox.pty.sendInput(terminal.pid, new TextEncoder().encode("stty size; exit 5\n"));
    const err = await terminal.wait().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ exitCode: 5 });
    expect(output).toContain("40 100");
  });
});

describe("files", () => {
  it("lists a directory with the SDK's entry fields", async () => {
    await bench.sandbox.commands.run("mkdir -p /home/user/listing/sub && printf abc > /home/user/listing/a.txt");
    const entries = await bench.sandbox.files.list("/home/user/listing");
    expect(entries.map((e) => [e.name, e.type, e.path])).toEqual([
      ["a.txt", FileType.FILE, "/home/user/listing/a.txt"],
      ["sub", FileType.DIR, "/home/user/listing/sub"],
    ]);
    expect(entries[0]).toMatchObject({ size: 3, permissions: "-rw-r--r--", owner: "user" });
    expect(entries[0]?.modifiedTime).toBeInstanceOf(Date);
    expect(await bench.sandbox.files.exists("/home/user/listing/none")).toBe(false);
  });

  it("writes and reads files (multipart and octet-stream uploads)", async () => {
    const info = await bench.sandbox.files.write("/home/user/notes/a.txt", "first file");
    expect(info).toMatchObject({ name: "a.txt", path: "/home/user/notes/a.txt", type: FileType.FILE });
    expect(await bench.sandbox.files.read("/home/user/notes/a.txt")).toBe("first file");
    await bench.sandbox.files.write("notes/b.bin", new Uint8Array([0, 1, 2, 255]).buffer, { useOctetStream: true });
    expect(await bench.sandbox.files.read("notes/b.bin", { format: "bytes" })).toEqual(new Uint8Array([0, 1, 2, 255]));
    expect((await bench.sandbox.commands.run("cat notes/a.txt")).stdout).toBe("first file");
    const missing = await bench.sandbox.files.read("/home/user/notes/none").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(missing).toMatchObject({ name: "FileNotFoundError" });
  });

  it("makes, inspects, renames and removes paths", async () => {
    expect(await bench.sandbox.files.makeDir("/home/user/made/deep")).toBe(true);
    expect(await bench.sandbox.files.makeDir("/home/user/made/deep")).toBe(false);
    const moved = await bench.sandbox.files.rename("/home/user/made/deep", "/home/user/made/renamed");
    expect(moved).toMatchObject({ name: "renamed", type: FileType.DIR, path: "/home/user/made/renamed" });
    expect(await bench.sandbox.files.getInfo("made")).toMatchObject({ path: "/home/user/made", type: FileType.DIR });
    await bench.sandbox.files.remove("/home/user/made");
    expect(await bench.sandbox.files.exists("/home/user/made")).toBe(false);
  });
});

describe("secured sandboxes", () => {
  // This SDK creates every sandbox secured (POST /v2/sandboxes; its `secure` option is ignored).
  it("works through the SDK, which sends the access token, and refuses calls without it", async () => {
    const secured = await Sandbox.create("base", bench.opts);
    try {
      expect((await secured.commands.run("echo secret")).stdout).toBe("secret\n");
      const res = await fetch(`${bench.emu.sandboxUrl}/process.Process/List`, {
        method: "POST",
        headers: { "content-type": "application/json", "e2b-sandbox-id": secured.sandboxId },
        body: "{}",
      });
      expect(res.status).toBe(401);
    } finally {
      await secured.kill();
    }
  });
});

describe("lifecycle", () => {
  it("kills the sandbox; its in-sandbox API then answers like a gone sandbox", async () => {
    const other = await Sandbox.create("base", bench.opts);
    const handle = await other.commands.run("sleep 60", { background: true });
    expect(await other.kill()).toBe(true);
    const err = await handle.wait().then(
      () => undefined,
      (e: unknown) => e,
    );
    // The connection drops and /health answers 502, which the SDK reports as the sandbox's end.
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toContain("The sandbox was killed or reached its end of life");
    expect(await other.isRunning()).toBe(false);
  });
});
