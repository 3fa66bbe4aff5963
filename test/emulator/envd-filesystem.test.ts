/**
 * The emulator's filesystem service on a real data dir over real HTTP: entries with envd's fields
 * and sandbox paths, depth, symlinks and volume mounts, MakeDir/Move/Remove/Stat and path rules.
 */
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileType } from "../../sdk/gen/filesystem/filesystem_pb";
import type { SandboxRuntime } from "../../emulator/types";
import { rejection, startBench, type Bench } from "./envd-harness";

let bench: Bench;
let runtime: SandboxRuntime;
const host = (p: string) => path.join(runtime.rootDir, p);

beforeAll(async () => {
  bench = await startBench();
  runtime = await bench.sandbox("ifs", { volumes: ["/mnt/data"] });
  await mkdir(host("/home/user/project/src"), { recursive: true });
  await writeFile(host("/home/user/project/README.md"), "hello\n", { mode: 0o644 });
  await writeFile(host("/home/user/project/src/main.ts"), "x");
  await writeFile(host("/home/user/run.sh"), "#!/bin/sh\n", { mode: 0o755 });
  await symlink(host("/home/user/project"), host("/home/user/link"));
  await writeFile(path.join(runtime.volumeMounts[0]!.hostDir, "in-volume.txt"), "v");
});
afterAll(() => bench.close());

describe("ListDir", () => {
  it("lists children with envd's fields and sandbox paths", async () => {
    const { entries } = await bench.filesystem("ifs").listDir({ path: "/home/user", depth: 1 });
    expect(entries.map((e) => e.path)).toEqual(["/home/user/link", "/home/user/project", "/home/user/run.sh"]);
    const script = entries.find((e) => e.name === "run.sh");
    expect(script).toMatchObject({ type: FileType.FILE, size: 10n, mode: 0o755, permissions: "-rwxr-xr-x", owner: "user", group: "user" });
    expect(Number(script?.modifiedTime?.seconds)).toBeGreaterThan(1_600_000_000);
    const dir = entries.find((e) => e.name === "project");
    expect(dir).toMatchObject({ type: FileType.DIRECTORY, permissions: expect.stringMatching(/^drwx/) });
    expect(dir?.symlinkTarget).toBeUndefined();
  });

  it("reports a symlink with its target's type and the target as a sandbox path", async () => {
    const { entries } = await bench.filesystem("ifs").listDir({ path: "/home/user" });
    expect(entries.find((e) => e.name === "link")).toMatchObject({
      type: FileType.DIRECTORY,
      path: "/home/user/link",
      symlinkTarget: "/home/user/project",
      permissions: "Lrwxrwxrwx",
    });
  });

  it("includes grandchildren at depth 2, parents first, and resolves relative paths against home", async () => {
    const { entries } = await bench.filesystem("ifs").listDir({ path: "project", depth: 2 });
    expect(entries.map((e) => e.path)).toEqual([
      "/home/user/project/README.md",
      "/home/user/project/src",
      "/home/user/project/src/main.ts",
    ]);
  });

  it("shows a volume mount as a directory at its path and lists the volume through it", async () => {
    const fs = bench.filesystem("ifs");
    const { entries } = await fs.listDir({ path: "/mnt", depth: 2 });
    expect(entries[0]).toMatchObject({ name: "data", path: "/mnt/data", type: FileType.DIRECTORY, permissions: expect.stringMatching(/^d/) });
    expect(entries[0]?.symlinkTarget).toBeUndefined();
    expect(entries.map((e) => e.path)).toContain("/mnt/data/in-volume.txt");
    const inside = await fs.listDir({ path: "/mnt/data" });
    expect(inside.entries.map((e) => e.path)).toEqual(["/mnt/data/in-volume.txt"]);
  });

  it("answers not_found for a missing directory and invalid_argument for a file", async () => {
    const fs = bench.filesystem("ifs");
    const missing = await rejection(fs.listDir({ path: "/nope" }));
    expect(missing.code).toBe(Code.NotFound);
    expect(missing.rawMessage).toBe("path not found: lstat /nope: no such file or directory");
    const file = await rejection(fs.listDir({ path: "/home/user/run.sh" }));
    expect(file.code).toBe(Code.InvalidArgument);
    expect(file.rawMessage).toBe("path is not a directory: /home/user/run.sh");
  });

  it("refuses a path whose .. climbs above the sandbox root", async () => {
    const err = await rejection(bench.filesystem("ifs").listDir({ path: "/home/../../etc" }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe("path '/home/../../etc' escapes the sandbox root");
    const relative = await rejection(bench.filesystem("ifs").stat({ path: "../../../x" }));
    expect(relative.code).toBe(Code.InvalidArgument);
  });
});

describe("Stat, MakeDir, Move, Remove", () => {
  it("stats a file and answers not_found for a missing one", async () => {
    const fs = bench.filesystem("ifs");
    const { entry } = await fs.stat({ path: "~/project/README.md" });
    expect(entry).toMatchObject({ name: "README.md", path: "/home/user/project/README.md", size: 6n, type: FileType.FILE, mode: 0o644 });
    const err = await rejection(fs.stat({ path: "/home/user/none" }));
    expect(err.code).toBe(Code.NotFound);
    expect(err.rawMessage).toBe("file not found: lstat /home/user/none: no such file or directory");
  });

  it("makes directories with parents, and answers already_exists the second time", async () => {
    const fs = bench.filesystem("ifs");
    const { entry } = await fs.makeDir({ path: "/home/user/a/b/c" });
    expect(entry).toMatchObject({ name: "c", path: "/home/user/a/b/c", type: FileType.DIRECTORY });
    const again = await rejection(fs.makeDir({ path: "/home/user/a/b/c" }));
    expect(again.code).toBe(Code.AlreadyExists);
    expect(again.rawMessage).toBe("directory already exists: /home/user/a/b/c");
    const onFile = await rejection(fs.makeDir({ path: "/home/user/run.sh" }));
    expect(onFile.code).toBe(Code.InvalidArgument);
  });

  it("moves a file into a new directory and returns its new entry", async () => {
    const fs = bench.filesystem("ifs");
    await writeFile(host("/home/user/move-me.txt"), "moved");
    const { entry } = await fs.move({ source: "move-me.txt", destination: "/tmp/new/moved.txt" });
    expect(entry).toMatchObject({ name: "moved.txt", path: "/tmp/new/moved.txt", size: 5n });
    expect(await readFile(host("/tmp/new/moved.txt"), "utf8")).toBe("moved");
    const missing = await rejection(fs.move({ source: "/home/user/none", destination: "/home/user/x" }));
    expect(missing.code).toBe(Code.NotFound);
  });

  it("removes a directory tree, and a missing path is not an error (os.RemoveAll)", async () => {
    const fs = bench.filesystem("ifs");
    await fs.makeDir({ path: "/home/user/gone/deep" });
    await fs.remove({ path: "/home/user/gone" });
    expect((await rejection(fs.stat({ path: "/home/user/gone" }))).code).toBe(Code.NotFound);
    await fs.remove({ path: "/home/user/gone" });
    expect((await rejection(fs.remove({ path: "/" }))).code).toBe(Code.InvalidArgument);
  });

  it("resolves relative paths against root's home for the root user", async () => {
    const fs = bench.filesystem("ifs", { user: "root" });
    const { entry } = await fs.makeDir({ path: "made-by-root" });
    expect(entry?.path).toBe("/root/made-by-root");
  });
});
