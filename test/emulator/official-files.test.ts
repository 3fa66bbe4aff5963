/**
 * Conformance, continued: the file surface of E2B's official JS SDK (`e2b`, unmodified) against an
 * isolated emulator sandbox: files (write, read, list, exists, makeDir, rename, remove, getInfo,
 * as root), watchDir, and the `Volume` class with a sandbox that mounts the volume. The polling
 * watchers, which this SDK does not call, are driven with this project's generated Connect client.
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { FileType, Sandbox, Volume, type FilesystemEvent } from "e2b";
import { describe, expect, it, vi } from "vitest";
import { useOfficialSandbox } from "./official-helpers";
import { EventType, Filesystem } from "../../sdk/gen/filesystem/filesystem_pb";

const bench = useOfficialSandbox();

describe("files", () => {
  it("writes several files at once and lists them recursively", async () => {
    await bench.sandbox.files.write([
      { path: "/home/user/tree/a.txt", data: "a" },
      { path: "/home/user/tree/sub/b.txt", data: "bb" },
    ]);
    const entries = await bench.sandbox.files.list("/home/user/tree", { depth: 2 });
    expect(entries.map((e) => [e.path, e.type, e.owner])).toEqual([
      ["/home/user/tree/a.txt", FileType.FILE, "user"],
      ["/home/user/tree/sub", FileType.DIR, "user"],
      ["/home/user/tree/sub/b.txt", FileType.FILE, "user"],
    ]);
  });

  it("writes as root where only root may, and refuses the read-only system dirs", async () => {
    await bench.sandbox.files.write("/root/secret.txt", "root's", { user: "root" });
    expect((await bench.sandbox.commands.run("stat -c %U /root/secret.txt", { user: "root" })).stdout).toBe("root\n");
    expect(await bench.sandbox.files.getInfo("/root/secret.txt", { user: "root" })).toMatchObject({ owner: "root", size: 6 });
    await expect(bench.sandbox.files.write("/usr/bin/evil", "x")).rejects.toThrow("read-only file system");
    await expect(bench.sandbox.files.makeDir("/etc/new")).rejects.toThrow("read-only file system");
    expect(await bench.sandbox.files.exists("/usr/bin/bash")).toBe(true);
  });

  it("reports a link with its target as the sandbox names it", async () => {
    await bench.sandbox.commands.run("echo t > /tmp/target.txt && ln -s /tmp/target.txt /home/user/link.txt");
    expect(await bench.sandbox.files.getInfo("/home/user/link.txt")).toMatchObject({ type: FileType.FILE, symlinkTarget: "/tmp/target.txt" });
    expect(await bench.sandbox.files.read("/home/user/link.txt")).toBe("t\n");
  });
});

describe("watching", () => {
  it("watchDir sees a file created, written, renamed and removed by a command", async () => {
    await bench.sandbox.files.makeDir("/home/user/watched");
    const events: FilesystemEvent[] = [];
    const handle = await bench.sandbox.files.watchDir("/home/user/watched", (e) => void events.push(e));
    await bench.sandbox.commands.run("cd /home/user/watched && echo one > new.txt && mv new.txt moved.txt && rm moved.txt");
    await vi.waitFor(() => expect(events.map((e) => `${e.type} ${e.name}`)).toContain("remove moved.txt"));
    await handle.stop();
    expect(events.map((e) => `${e.type} ${e.name}`)).toEqual(["create new.txt", "write new.txt", "rename new.txt", "create moved.txt", "remove moved.txt"]);
  });

  it("watches recursively when asked, naming paths from the watched dir", async () => {
    await bench.sandbox.files.makeDir("/home/user/deep/sub");
    const names: string[] = [];
    const handle = await bench.sandbox.files.watchDir("/home/user/deep", (e) => void names.push(`${e.type} ${e.name}`), { recursive: true });
    await bench.sandbox.files.write("/home/user/deep/sub/x.txt", "x");
    await vi.waitFor(() => expect(names).toContain("create sub/x.txt"));
    await handle.stop();
  });

  it("refuses to watch what is not a directory", async () => {
    await expect(bench.sandbox.files.watchDir("/home/user/none", () => undefined)).rejects.toThrow("path /home/user/none not found");
  });

  it("the polling watchers return the events since the last poll, then are removed", async () => {
    const { fs, headers } = pollingClient();
    await bench.sandbox.files.makeDir("/home/user/polled");
    const { watcherId } = await fs.createWatcher({ path: "/home/user/polled" }, { headers });
    await bench.sandbox.files.write("/home/user/polled/p.txt", "p");
    await vi.waitFor(async () => {
      const { events } = await fs.getWatcherEvents({ watcherId }, { headers });
      expect(events.map((e) => [e.type, e.name])).toContainEqual([EventType.CREATE, "p.txt"]);
    });
    await fs.removeWatcher({ watcherId }, { headers });
    await expect(fs.getWatcherEvents({ watcherId }, { headers })).rejects.toThrow(`watcher with id ${watcherId} not found`);
  });
  it("a poll made once a write, rename or remove has returned holds its events, each once", async () => {
    const { fs, headers } = pollingClient();
    await bench.sandbox.files.makeDir("/home/user/settled");
    // With entries, each event takes a few more turns of the event loop to finish (a stat, the owner).
    const { watcherId } = await fs.createWatcher({ path: "/home/user/settled", includeEntry: true }, { headers });
    const poll = async () => (await fs.getWatcherEvents({ watcherId }, { headers })).events.map((e) => `${EventType[e.type]} ${e.name}`);
    await bench.sandbox.files.write("/home/user/settled/s.txt", "first");
    // The kernel's events of an upload (create, chown, data: how many WRITEs depends on inotify
    // folding repeats), all there at the first poll.
    const created = await poll();
    expect(created[0]).toBe("CREATE s.txt");
    expect(created).toContain("WRITE s.txt");
    expect(created.filter((e) => !e.endsWith(" s.txt"))).toEqual([]);
    await bench.sandbox.files.write("/home/user/settled/s.txt", "second");
    expect(await poll()).toContain("WRITE s.txt");
    await bench.sandbox.files.rename("/home/user/settled/s.txt", "/home/user/settled/t.txt");
    expect(await poll()).toEqual(["RENAME s.txt", "CREATE t.txt"]);
    await bench.sandbox.files.remove("/home/user/settled/t.txt");
    expect(await poll()).toEqual(["REMOVE t.txt"]);
    expect(await poll()).toEqual([]);
    await fs.removeWatcher({ watcherId }, { headers });
  });
  it("a recursive watcher sees a new file in a subdirectory as a watch of that subdirectory does, and a removed subdirectory once", async () => {
    const { fs, headers } = pollingClient();
    await bench.sandbox.files.makeDir("/home/user/rec/sub");
    const { watcherId: deep } = await fs.createWatcher({ path: "/home/user/rec", recursive: true }, { headers });
    const { watcherId: flat } = await fs.createWatcher({ path: "/home/user/rec/sub" }, { headers });
    const poll = async (watcherId: string) => (await fs.getWatcherEvents({ watcherId }, { headers })).events.map((e) => `${EventType[e.type]} ${e.name}`);
    await bench.sandbox.files.write("/home/user/rec/sub/f.txt", "x");
    const fromFlat = await poll(flat);
    expect(fromFlat.length).toBeGreaterThanOrEqual(2);
    expect(await poll(deep)).toEqual(fromFlat.map((e) => e.replace(" ", " sub/")));
    await bench.sandbox.files.remove("/home/user/rec/sub/f.txt");
    await bench.sandbox.files.remove("/home/user/rec/sub");
    expect(await poll(deep)).toEqual(["REMOVE sub/f.txt", "REMOVE sub"]);
  });
});

/** This project's Connect client of the sandbox's Filesystem service, with the headers of the bench's sandbox. */
function pollingClient() {
  const transport = createConnectTransport({ baseUrl: bench.emu.sandboxUrl, httpVersion: "1.1" });
  const fs = createClient(Filesystem, transport);
  const headers = { "e2b-sandbox-id": bench.sandbox.sandboxId, "x-access-token": (bench.sandbox as unknown as { envdAccessToken?: string }).envdAccessToken ?? "" };
  return { fs, headers };
}

describe("volumes", () => {
  it("a file the Volume class writes is read in a sandbox that mounts it, and the sandbox's writes come back", async () => {
    const vol = await Volume.create("shared-files", bench.opts);
    await vol.writeFile("/seed.txt", "seeded", bench.opts);
    const mounted = await Sandbox.create("base", { ...bench.opts, volumeMounts: { "/mnt/vol": vol } });
    try {
      expect((await mounted.commands.run("cat /mnt/vol/seed.txt")).stdout).toBe("seeded");
      // What the volume API wrote belongs to the sandbox's user, who may change it.
      expect((await mounted.commands.run("stat -c %U /mnt/vol/seed.txt && echo ! >> /mnt/vol/seed.txt")).stdout).toBe("user\n");
      expect(await vol.getInfo("/seed.txt", bench.opts)).toMatchObject({ uid: 1000, size: 8 });
      await mounted.commands.run("echo from-sandbox > /mnt/vol/back.txt");
      expect(await mounted.files.read("/mnt/vol/back.txt")).toBe("from-sandbox\n");
    } finally {
      await mounted.kill();
    }
    expect(await vol.readFile("/back.txt", { ...bench.opts, format: "text" })).toBe("from-sandbox\n");
    const next = await Sandbox.create("base", { ...bench.opts, volumeMounts: { "/data": vol.name } });
    try {
      expect((await next.files.list("/data")).map((e) => e.name)).toEqual(["back.txt", "seed.txt"]);
    } finally {
      await next.kill();
    }
  });
});
