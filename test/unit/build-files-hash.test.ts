/**
 * The files hash pinned against fixtures derived from the service SDK's algorithm (sdk/template-build/
 * files-hash.ts header): sha256 of "COPY <src> <dest>", then per entry in path order its relative
 * path, st_mode and size in decimal, then its content or link target. The literal hashes were
 * computed outside this code from that description (`printf '%s' 'COPY a.txt /app/a.txt331885hello' | sha256sum`),
 * not by this code, so a change of order, separator or field fails here.
 */
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { filesHash, listContextFiles } from "../../sdk/template-build";

let ctx: string;
beforeAll(() => {
  ctx = mkdtempSync(join(tmpdir(), "files-hash-"));
  writeFileSync(join(ctx, "a.txt"), "hello");
  chmodSync(join(ctx, "a.txt"), 0o644);
  mkdirSync(join(ctx, "dir"));
  writeFileSync(join(ctx, "dir", "x.sh"), "#!/bin/sh\n");
  chmodSync(join(ctx, "dir", "x.sh"), 0o755);
  symlinkSync("x.sh", join(ctx, "dir", "link"));
  writeFileSync(join(ctx, ".dockerignore"), "# comment\ndir/x.sh\n");
});
afterAll(() => rmSync(ctx, { recursive: true, force: true }));

describe("filesHash", () => {
  test("one regular file: the pinned fixture", () => {
    // sha256("COPY a.txt /app/" + "a.txt" + "33188" + "5" + "hello"); 33188 = 0o100644.
    expect(filesHash("a.txt", "/app/", ctx)).toBe("4a5fb7de9f675fcbc6e4bb7335ccfe8cdc7f75d44e36870303f452414773f893");
  });

  test("a directory: itself (its mode, not its size: e2b 2.63), then its entries in path order; a symlink contributes its target", () => {
    const dirMode = statSync(join(ctx, "dir"));
    const link = lstatSync(join(ctx, "dir", "link"));
    const expected = createHash("sha256")
      .update("COPY dir /opt/")
      .update("dir").update(String(dirMode.mode))
      .update("dir/link").update(String(link.mode)).update(String(link.size)).update("x.sh")
      .update("dir/x.sh").update("33261").update("10").update("#!/bin/sh\n")
      .digest("hex");
    expect(filesHash("dir", "/opt/", ctx)).toBe(expected);
  });

  test("a glob lists what it matches; ignore patterns drop exactly the paths they match", () => {
    expect(listContextFiles("dir/*", ctx).map((e) => e.path)).toEqual(["dir/link", "dir/x.sh"]);
    expect(listContextFiles("dir", ctx, ["dir/x.sh"]).map((e) => e.path)).toEqual(["dir", "dir/link"]);
    expect(listContextFiles("**/*.sh", ctx).map((e) => e.path)).toEqual(["dir/x.sh"]);
  });

  test("a source that matches nothing is an error naming it", () => {
    expect(() => filesHash("missing/*", "/", ctx)).toThrow(/COPY missing\/\*: no files found in .* for 'missing\/\*'/);
  });
});
