/** The context archive (sdk/template-build/context-tar.ts) reads back, member for member, with the emulator's tar reader. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { contextArchive, listContextFiles } from "../../sdk/template-build";
import { readTar } from "../../emulator/store/tar-read";

test("files, directories, symlinks, modes and a path longer than ustar's 100 bytes survive", () => {
  const ctx = mkdtempSync(join(tmpdir(), "archive-"));
  try {
    const deep = join("app", "d".repeat(120));
    mkdirSync(join(ctx, deep), { recursive: true });
    writeFileSync(join(ctx, deep, "f.txt"), "deep");
    writeFileSync(join(ctx, "app", "run.sh"), "run");
    chmodSync(join(ctx, "app", "run.sh"), 0o750);
    symlinkSync("run.sh", join(ctx, "app", "link"));
    const members = readTar(contextArchive(listContextFiles("app", ctx)));
    expect(members.map((m) => [m.path, m.type])).toEqual([
      ["app", "dir"], [deep, "dir"], [`${deep}/f.txt`, "file"], ["app/link", "symlink"], ["app/run.sh", "file"],
    ]);
    expect(members.find((m) => m.path === "app/run.sh")).toMatchObject({ mode: 0o750, data: Buffer.from("run") });
    expect(members.find((m) => m.path === "app/link")?.linkname).toBe("run.sh");
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
});
