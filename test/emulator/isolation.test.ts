/**
 * Safety of the emulator's sandboxes (namespaces; CI runs as root, where the emulator must give
 * them, so nothing here is skipped): what a sandbox command does, even as the sandbox's root, leaves
 * the host's files and another sandbox's alone, through commands and through the file API (links a
 * command made are followed in the sandbox, not on the host), and `kill -9 -1` ends nothing outside.
 * Driven with E2B's official SDK, as a user would.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sandbox, Volume, type ConnectionOpts } from "e2b";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";

let emu: Emulator;
let opts: ConnectionOpts;
let a: Sandbox;
let b: Sandbox;
/** A dir and file of the host that this test owns. */
let hostDir = "";
let hostFile = "";
/** A file in a host system dir, made by this test, that a sandbox must not be able to remove. */
const systemProbe = `/usr/local/share/sandbox-isolation-probe-${process.pid}`;
let bystander: ChildProcess;

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
/** Runs a command and returns its exit code; a failing command is the expected outcome here. */
const attempt = (sandbox: Sandbox, cmd: string, user: "root" | "user" = "root") =>
  sandbox.commands.run(cmd, { user }).then((r) => r.exitCode, (e: { exitCode?: number }) => e.exitCode ?? -999);

beforeAll(async () => {
  emu = await createEmulator();
  // Without isolation these commands WOULD change the host (as root: /etc/passwd): fail them all
  // rather than run them.
  if (emu.isolation.mode !== "namespaces") throw new Error(`expected namespaces on this machine, got: ${JSON.stringify(emu.isolation)}`);
  opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl };
  [a, b] = await Promise.all([Sandbox.create("base", opts), Sandbox.create("base", opts)]);
  hostDir = mkdtempSync(join(tmpdir(), "isolation-owned-"));
  hostFile = join(hostDir, "owned.txt");
  writeFileSync(hostFile, "the host's\n");
  writeFileSync(systemProbe, "probe\n");
  bystander = spawn("sleep", ["120"], { stdio: "ignore" });
});

afterAll(async () => {
  bystander?.kill("SIGKILL");
  rmSync(hostDir, { recursive: true, force: true });
  rmSync(systemProbe, { force: true });
  await Promise.all([a?.kill().catch(() => undefined), b?.kill().catch(() => undefined)]);
  await emu?.close();
});

describe("a sandbox's commands, even as root", () => {
  it("are isolated: the emulator on this machine gives namespaces", () => {
    expect(emu.isolation.mode).toBe("namespaces");
  });

  it("cannot write or delete a host path the test owns: inside, that path is the sandbox's own", async () => {
    expect(await attempt(a, `echo pwned > ${hostFile}`)).not.toBe(0); // no such dir in the sandbox
    expect(await attempt(a, `mkdir -p ${hostDir} && echo mine > ${hostFile} && rm -rf ${hostDir}`)).toBe(0);
    expect(readFileSync(hostFile, "utf8")).toBe("the host's\n");
  });

  it("cannot change /etc, /usr or the kernel's settings", async () => {
    const passwd = sha("/etc/passwd");
    expect(await attempt(a, "echo 'x:x:0:0::/:/bin/sh' >> /etc/passwd")).not.toBe(0);
    expect(await attempt(a, `touch /etc/sandbox-probe-${process.pid}`)).not.toBe(0);
    expect(await attempt(a, `rm -f ${systemProbe}`)).not.toBe(0);
    expect(await attempt(a, "mount -o remount,rw,bind /usr; echo x > /usr/local/share/pwned")).not.toBe(0);
    expect(await attempt(a, "cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname")).not.toBe(0);
    expect(sha("/etc/passwd")).toBe(passwd);
    expect(existsSync(`/etc/sandbox-probe-${process.pid}`)).toBe(false);
    expect(existsSync("/usr/local/share/pwned")).toBe(false);
    expect(readFileSync(systemProbe, "utf8")).toBe("probe\n");
  });

  it("cannot reach another sandbox's files, not even by its path in the emulator's data dir", async () => {
    await b.files.write("/home/user/victim.txt", "b's own");
    const bRoot = emu.state.sandboxes().find((s) => s.sandboxID === b.sandboxId)!.rootDir;
    expect(await attempt(a, `echo pwned > ${bRoot}/home/user/victim.txt`)).not.toBe(0);
    expect(await attempt(a, `ls ${emu.dataDir}`)).not.toBe(0);
    expect(await b.files.read("/home/user/victim.txt")).toBe("b's own");
  });

  it("kill -9 -1 ends nothing outside the sandbox", async () => {
    const bBackground = await b.commands.run("sleep 120", { background: true });
    const own = await a.commands.run("sleep 120", { background: true });
    await attempt(a, "kill -9 -1");
    expect(() => process.kill(bystander.pid!, 0)).not.toThrow();
    expect((await b.commands.list()).map((p) => p.pid)).toContain(bBackground.pid);
    // Its own processes did end, and the sandbox still runs commands.
    expect((await own.wait().catch((e: unknown) => e)) as object).toMatchObject({ exitCode: -1 });
    expect((await a.commands.run("echo still here")).stdout).toBe("still here\n");
  });
});

describe("where it cannot isolate", () => {
  it("a data dir whose parents other users cannot search gets no namespaces, and the reason", async () => {
    const closed = mkdtempSync(join(tmpdir(), "isolation-closed-")); // 0700, as mkdtemp makes it
    const unisolated = await createEmulator({ dataDir: join(closed, "data") });
    try {
      expect(unisolated.isolation).toEqual({
        mode: "none",
        reason: `the data dir's parent ${closed} is not searchable by other users (the sandboxes' host ids)`,
      });
    } finally {
      await unisolated.close();
      rmSync(closed, { recursive: true, force: true });
    }
  });
});

describe("the file API", () => {
  it("follows a command's links inside the sandbox, never to the host", async () => {
    await a.commands.run(`ln -s /etc /home/user/etc-link && ln -s ${hostDir} /home/user/host-link`);
    await expect(a.files.write("/home/user/etc-link/pwned", "x")).rejects.toThrow("read-only file system");
    expect(existsSync("/etc/pwned")).toBe(false);
    await a.files.write("/home/user/host-link/owned.txt", "sandbox's");
    expect(readFileSync(hostFile, "utf8")).toBe("the host's\n");
    // The sandbox's own view of that path got the write (the link's target, made inside it).
    expect((await a.commands.run(`cat ${hostFile}`)).stdout).toBe("sandbox's");
    expect((await a.files.list("/home/user/host-link")).map((e) => e.name)).toEqual(["owned.txt"]);
  });

  it("the volume content API follows a sandbox's links inside the volume, never to the host", async () => {
    const vol = await Volume.create("linked", opts);
    const mounting = await Sandbox.create("base", { ...opts, volumeMounts: { "/mnt/v": vol } });
    try {
      await mounting.commands.run("ln -s /etc /mnt/v/etc && mkdir /mnt/v/real && ln -s real /mnt/v/rel");
      // In the volume, `/etc` names the link itself (the service serves a volume as a chroot): a loop.
      await expect(vol.writeFile("/etc/pwned", "x", opts)).rejects.toThrow("too many levels of symbolic links");
      expect(existsSync("/etc/pwned")).toBe(false);
      await vol.writeFile("/rel/through.txt", "through a relative link", opts);
      expect((await mounting.commands.run("cat /mnt/v/real/through.txt")).stdout).toBe("through a relative link");
    } finally {
      await mounting.kill();
    }
  });

  it("a cwd through a link is the sandbox's: a link to a host-only dir is no cwd", async () => {
    await a.commands.run(`ln -s /tmp /home/user/tmp-link && ln -s ${emu.dataDir} /home/user/data-link`);
    expect((await a.commands.run("pwd -P", { cwd: "/home/user/tmp-link" })).stdout).toBe("/tmp\n");
    await expect(a.commands.run("pwd", { cwd: "/home/user/data-link" })).rejects.toThrow("cwd '/home/user/data-link' does not exist");
  });

  it("refuses paths above the sandbox's root", async () => {
    await expect(a.files.read("/../../etc/passwd")).rejects.toThrow("escapes the sandbox root");
  });
});
