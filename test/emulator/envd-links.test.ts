/**
 * envd's file routes never reach the host through a link a sandbox made: in a sandbox (a VM on the
 * service) a link is the sandbox's, its absolute target a path of the sandbox's own `/`. So a link
 * to a host path, as the last segment or as a parent dir, names a path of the sandbox, and every
 * route either finds nothing there or acts there, never on the host file or dir, whose mode, owner,
 * content and listing stay as they were. Driven with E2B's official SDK on an isolated sandbox.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileNotFoundError, FileType, Sandbox, type ConnectionOpts } from "e2b";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { climbing, hostBait, type HostBait } from "./host-bait";

let emu: Emulator;
let opts: ConnectionOpts;
let sandbox: Sandbox;
let rootDir = "";
let bait: HostBait;
let hostDir = "";
let hostFile = "";
const hostState = () => bait.state();
let before: ReturnType<typeof hostState>;
/** Where a sandbox path is in the sandbox's own root dir on the host. */
const inSandbox = (p: string) => join(rootDir, p);

beforeAll(async () => {
  emu = await createEmulator();
  if (emu.isolation.mode !== "namespaces") throw new Error(`expected namespaces on this machine, got: ${JSON.stringify(emu.isolation)}`);
  opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl };
  sandbox = await Sandbox.create("base", { ...opts, timeoutMs: 120_000 });
  rootDir = emu.state.sandboxes().find((s) => s.sandboxID === sandbox.sandboxId)!.rootDir;
  bait = hostBait("envd-links-host-");
  ({ dir: hostDir, file: hostFile } = bait);
  await sandbox.commands.run(
    [`ln -s ${hostFile} abs-file`, `ln -s ${hostDir} abs-dir`, `ln -s ${climbing(hostFile)} rel-file`, `ln -s ${climbing(hostDir)} rel-dir`].join(" && "),
    { cwd: "/home/user" },
  );
  before = hostState();
});

afterAll(async () => {
  bait?.remove();
  await sandbox?.kill().catch(() => undefined);
  await emu?.close();
});

const toFile = ["/home/user/abs-file", "/home/user/rel-file", "/home/user/abs-dir/secret", "/home/user/rel-dir/secret"];
const toDir = ["/home/user/abs-dir", "/home/user/rel-dir"];

describe("reading through a link finds the sandbox's path, which is not there", () => {
  it.each(toFile)("GET /files %s: not found", async (p) => {
    await expect(sandbox.files.read(p)).rejects.toBeInstanceOf(FileNotFoundError);
  });

  it.each(toDir)("ListDir %s: not found; a listing above it shows the link, not the host dir's names", async (p) => {
    await expect(sandbox.files.list(p)).rejects.toBeInstanceOf(FileNotFoundError);
    const entries = await sandbox.files.list("/home/user", { depth: 3 });
    expect(entries.map((e) => e.path)).not.toContain(`${p}/secret`);
  });

  it.each(["/home/user/abs-file", "/home/user/rel-file"])("Stat %s: a link to nothing in the sandbox (its own path as target, as envd says), nothing of the host's", async (p) => {
    const info = await sandbox.files.getInfo(p);
    expect(info).toMatchObject({ symlinkTarget: p, mode: 0 });
    expect(info.size).not.toBe(before.content.length);
  });

  it.each(toDir)("WatchDir %s: not found", async (p) => {
    await expect(sandbox.files.watchDir(p, () => undefined)).rejects.toBeInstanceOf(FileNotFoundError);
  });

  it.each(toDir)("a command's cwd %s does not exist", async (p) => {
    await expect(sandbox.commands.run("pwd", { cwd: p })).rejects.toThrow(`cwd '${p}' does not exist`);
  });
});

describe("writing through a link writes the sandbox's path, never the host's", () => {
  it.each(toFile)("POST /files %s lands in the sandbox", async (p) => {
    await sandbox.files.write(p, "pwned");
    expect(readFileSync(inSandbox(`${hostFile}`), "utf8")).toBe("pwned");
    expect(hostState()).toEqual(before);
  });

  it.each(toDir)("MakeDir %s/sub makes it in the sandbox", async (p) => {
    await sandbox.files.makeDir(`${p}/sub`);
    expect(statSync(inSandbox(`${hostDir}/sub`)).isDirectory()).toBe(true);
    expect(hostState()).toEqual(before);
  });

  it.each(toDir)("Move into %s moves within the sandbox", async (p) => {
    await sandbox.files.write("/home/user/mine.txt", "mine");
    await sandbox.files.rename("/home/user/mine.txt", `${p}/mine.txt`);
    expect(readFileSync(inSandbox(`${hostDir}/mine.txt`), "utf8")).toBe("mine");
    expect(hostState()).toEqual(before);
  });
});

describe("removing and moving the host's files through a link is not possible", () => {
  it.each(["/home/user/abs-dir/secret", "/home/user/rel-dir/secret"])("Move %s away moves the sandbox's file (or finds none)", async (p) => {
    rmSync(inSandbox(hostFile), { force: true });
    await expect(sandbox.files.rename(p, "/home/user/stolen")).rejects.toBeInstanceOf(FileNotFoundError);
    expect(hostState()).toEqual(before);
  });

  it.each([...toFile, ...toDir])("Remove %s removes the sandbox's path or the link itself", async (p) => {
    await sandbox.files.remove(p);
    expect(hostState()).toEqual(before);
  });
});

describe("the API's own mkdir of a user's home", () => {
  it("does not follow a /home the sandbox's root replaced with a link to the host", async () => {
    const other = await Sandbox.create("base", { ...opts, timeoutMs: 60_000 });
    try {
      await other.commands.run(`rm -rf /home && ln -s ${hostDir} /home`, { user: "root" });
      // Each command first makes sure the user's home exists; `user`'s is /home/user.
      await other.commands.run("true", { user: "user" }).catch(() => undefined);
      expect(existsSync(join(hostDir, "user"))).toBe(false);
      expect(hostState()).toEqual(before);
    } finally {
      await other.kill();
    }
  });
});

describe("links inside the sandbox still work", () => {
  it("reads, lists and writes through a link to the sandbox's own dir", async () => {
    await sandbox.commands.run("mkdir -p /tmp/real && echo in > /tmp/real/f && ln -s /tmp/real /home/user/to-real");
    expect(await sandbox.files.read("/home/user/to-real/f")).toBe("in\n");
    expect((await sandbox.files.list("/home/user/to-real")).map((e) => e.name)).toEqual(["f"]);
    await sandbox.files.write("/home/user/to-real/g", "g");
    expect((await sandbox.commands.run("cat /tmp/real/g")).stdout).toBe("g");
    expect(await sandbox.files.getInfo("/home/user/to-real")).toMatchObject({ type: FileType.DIR, symlinkTarget: "/tmp/real" });
  });

  it("the SDK's uploads still land: several files in one multipart request, and a gzip-encoded one", async () => {
    await sandbox.files.write([
      { path: "/home/user/up/a.txt", data: "a" },
      { path: "/home/user/up/b.txt", data: "bb" },
    ]);
    await sandbox.files.write("/home/user/up/zipped.txt", "zipped", { gzip: true });
    expect((await sandbox.commands.run("cat /home/user/up/a.txt /home/user/up/b.txt /home/user/up/zipped.txt")).stdout).toBe("abbzipped");
  });
});

describe("the host's own files, seen through the read-only system dirs", () => {
  /** Files in a host system dir that this test owns: one only root may read, one anyone may. */
  const probe = `/usr/local/share/envd-read-probe-${process.pid}`;
  beforeAll(() => {
    writeFileSync(`${probe}-private`, "root's only\n", { mode: 0o600 });
    writeFileSync(`${probe}-public`, "anyone's\n", { mode: 0o644 });
    mkdirSync(`${probe}-dir`, { mode: 0o700 });
    writeFileSync(`${probe}-dir/inside`, "x");
  });
  afterAll(() => {
    for (const p of [`${probe}-private`, `${probe}-public`, `${probe}-dir`]) rmSync(p, { recursive: true, force: true });
  });

  it("are read by the file API only as far as the sandbox's own users may: not /etc/shadow", async () => {
    // The sandbox's root is an unprivileged id on the host: the host's files are "other" to it.
    expect(await sandbox.commands.run(`cat ${probe}-private`, { user: "root" }).catch((e: { exitCode?: number }) => e.exitCode)).toBe(1);
    await expect(sandbox.files.read(`${probe}-private`, { user: "root" })).rejects.toThrow("permission denied");
    await expect(sandbox.files.read("/etc/shadow", { user: "root" })).rejects.toThrow("permission denied");
    await expect(sandbox.files.list(`${probe}-dir`, { user: "root" })).rejects.toThrow("permission denied");
    await expect(sandbox.files.watchDir(`${probe}-dir`, () => undefined)).rejects.toThrow("permission denied");
    expect(await sandbox.files.read(`${probe}-public`)).toBe("anyone's\n");
    // Listed from above, the dir is an entry; its contents stay the host's.
    const listed = (await sandbox.files.list("/usr/local/share", { depth: 2 })).map((e) => e.path);
    expect(listed).toContain(`${probe}-dir`);
    expect(listed).not.toContain(`${probe}-dir/inside`);
    expect(await sandbox.files.exists(`${probe}-private`)).toBe(true);
  });
});
