/**
 * Sandbox snapshots through E2B's official SDK (`e2b`, unmodified), as its own suite uses them
 * (e2b-dev/E2B: packages/js-sdk/tests/sandbox/snapshot-api.test.ts): a snapshot keeps the sandbox's
 * files, sandboxes started from it get them and change them independently, listing finds it (all,
 * by sandbox, by name), and delete answers true once, then false.
 */
import { Sandbox } from "e2b";
import { describe, expect, it } from "vitest";
import { useOfficialSandbox } from "./official-helpers";

const bench = useOfficialSandbox();

/** A sandbox started from `snapshotId`, killed after `use`. */
async function withSandboxFrom<T>(snapshotId: string, use: (s: Sandbox) => Promise<T>): Promise<T> {
  const sandbox = await Sandbox.create(snapshotId, bench.opts);
  try {
    return await use(sandbox);
  } finally {
    await sandbox.kill();
  }
}

describe("a snapshot of a sandbox", () => {
  it("is a template ID with the default tag; the sandbox keeps running", async () => {
    const snapshot = await bench.sandbox.createSnapshot();
    try {
      expect(snapshot.snapshotId).toMatch(/^[a-z0-9]{20}:default$/);
      expect(snapshot.names).toEqual([]);
      expect(await bench.sandbox.isRunning()).toBe(true);
    } finally {
      await Sandbox.deleteSnapshot(snapshot.snapshotId, bench.opts);
    }
  });

  it("holds the files written before it, and not those written after", async () => {
    await bench.sandbox.files.makeDir("/home/user/app");
    await bench.sandbox.files.write("/home/user/app/config.json", '{"env": "test"}');
    // Links are copied as links: one to `/` must not make the snapshot copy the whole tree again (or the host's).
    await bench.sandbox.commands.run("mkdir -p /opt/tool && echo built > /opt/tool/out && ln -s /opt/tool/out /home/user/link && ln -s / /home/user/everything", { user: "root" });
    const snapshot = await bench.sandbox.createSnapshot();
    await bench.sandbox.files.write("/home/user/app/later.txt", "after the snapshot");
    try {
      await withSandboxFrom(snapshot.snapshotId, async (copy) => {
        expect(await copy.files.exists("/home/user/app")).toBe(true);
        expect(await copy.files.read("/home/user/app/config.json")).toBe('{"env": "test"}');
        expect(await copy.files.exists("/home/user/app/later.txt")).toBe(false);
        const seen = await copy.commands.run("cat /opt/tool/out; readlink /home/user/link /home/user/everything; stat -c %U /home/user/app/config.json /opt/tool/out");
        expect(seen.stdout).toBe("built\n/opt/tool/out\n/\nuser\nroot\n");
      });
    } finally {
      await Sandbox.deleteSnapshot(snapshot.snapshotId, bench.opts);
    }
  });

  it("starts sandboxes that change their files independently, with the sandbox's environment", async () => {
    const parent = await Sandbox.create("base", { ...bench.opts, envs: { FROM_PARENT: "kept" } });
    try {
      await parent.files.write("/home/user/shared.txt", "shared snapshot content");
      const snapshot = await parent.createSnapshot();
      try {
        const [one, two] = [await Sandbox.create(snapshot.snapshotId, bench.opts), await Sandbox.create(snapshot.snapshotId, { ...bench.opts, envs: { OWN: "yes" } })];
        try {
          await one.files.write("/home/user/shared.txt", "modified in sandbox1");
          expect(await one.files.read("/home/user/shared.txt")).toBe("modified in sandbox1");
          expect(await two.files.read("/home/user/shared.txt")).toBe("shared snapshot content");
          expect(await parent.files.read("/home/user/shared.txt")).toBe("shared snapshot content");
          expect((await two.commands.run('echo "$FROM_PARENT $OWN"')).stdout).toBe("kept yes\n");
          expect((await Sandbox.getInfo(one.sandboxId, bench.opts)).templateId).toBe(snapshot.snapshotId.split(":")[0]);
        } finally {
          await Promise.all([one.kill(), two.kill()]);
        }
      } finally {
        await Sandbox.deleteSnapshot(snapshot.snapshotId, bench.opts);
      }
    } finally {
      await parent.kill();
    }
  });
});

describe("named snapshots and listing", () => {
  it("a name gives the team's full name, and a second snapshot under it is a new build of the same one", async () => {
    await bench.sandbox.files.write("/home/user/version.txt", "1");
    const first = await bench.sandbox.createSnapshot({ name: "my-snap" });
    await bench.sandbox.files.write("/home/user/version.txt", "2");
    const second = await Sandbox.createSnapshot(bench.sandbox.sandboxId, { ...bench.opts, name: "my-snap" });
    try {
      expect(first).toEqual({ snapshotId: "emulator/my-snap:default", names: ["emulator/my-snap"] });
      expect(second).toEqual(first);
      const listed = await Sandbox.listSnapshots({ ...bench.opts, name: "my-snap" }).nextItems();
      expect(listed).toEqual([first]);
      await withSandboxFrom("my-snap", async (copy) => expect(await copy.files.read("/home/user/version.txt")).toBe("2"));
      expect(await Sandbox.listSnapshots({ ...bench.opts, name: "my-snap-does-not-exist" }).nextItems()).toEqual([]);
      expect(await Sandbox.listSnapshots({ ...bench.opts, name: "my-snap:v1" }).nextItems()).toEqual([]);
    } finally {
      expect(await Sandbox.deleteSnapshot(first.snapshotId, bench.opts)).toBe(true);
    }
  });

  it("lists all snapshots, those of one sandbox, and pages them", async () => {
    const other = await Sandbox.create("base", bench.opts);
    const mine = await bench.sandbox.createSnapshot();
    const theirs = await other.createSnapshot();
    try {
      const paginator = Sandbox.listSnapshots(bench.opts);
      expect(paginator.hasNext).toBe(true);
      const all = await paginator.nextItems();
      expect(all).toHaveLength(2);
      expect(all).toEqual(expect.arrayContaining([mine, theirs]));
      expect(paginator.hasNext).toBe(false);
      expect(await bench.sandbox.listSnapshots().nextItems()).toEqual([mine]);
      expect(await Sandbox.listSnapshots({ ...bench.opts, sandboxId: other.sandboxId }).nextItems()).toEqual([theirs]);
      // Pages of one follow the full list's order (newest first; the tests do not wait between the two).
      const pages = Sandbox.listSnapshots({ ...bench.opts, limit: 1 });
      expect(await pages.nextItems()).toEqual([all[0]]);
      expect(pages.hasNext).toBe(true);
      expect(await pages.nextItems()).toEqual([all[1]]);
      expect(pages.hasNext).toBe(false);
    } finally {
      await Sandbox.deleteSnapshot(mine.snapshotId, bench.opts);
      await Sandbox.deleteSnapshot(theirs.snapshotId, bench.opts);
      await other.kill();
    }
  });

  it("outlives its sandbox; delete answers true, then false, and the snapshot is gone", async () => {
    const doomed = await Sandbox.create("base", bench.opts);
    await doomed.files.write("/home/user/keep.txt", "outlived");
    const snapshot = await doomed.createSnapshot();
    await doomed.kill();
    await withSandboxFrom(snapshot.snapshotId, async (copy) => expect(await copy.files.read("/home/user/keep.txt")).toBe("outlived"));
    expect(await Sandbox.deleteSnapshot(snapshot.snapshotId, bench.opts)).toBe(true);
    expect(await Sandbox.deleteSnapshot(snapshot.snapshotId, bench.opts)).toBe(false);
    expect(await Sandbox.listSnapshots(bench.opts).nextItems()).toEqual([]);
    await expect(Sandbox.create(snapshot.snapshotId, bench.opts)).rejects.toThrow(/not found/);
  });
});
