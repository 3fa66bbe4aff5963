/**
 * Hostile layers (emulator/image/unpack.ts): entries that climb out with `..`, absolute paths,
 * links that point outside and entries written through them. Each test unpacks into `tree` next to
 * an `outside` directory holding a bait file, and checks that `outside` is as it was: the unpacker
 * runs as root here, so nothing but its own checks stands between a layer and the host.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { unpackLayers } from "../../emulator/image/unpack";
import { tarOf, type TarSpec } from "../fixtures/oci-image";

let base: string;
let tree: string;
let outside: string;
let bait: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "image-unpack-"));
  tree = join(base, "tree");
  outside = join(base, "outside");
  mkdirSync(tree);
  mkdirSync(outside);
  bait = join(outside, "bait.txt");
  writeFileSync(bait, "untouched\n");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** Unpacks one layer per entry list, in order; resolves with the error, if any. */
async function unpack(...layers: TarSpec[][]): Promise<Error | undefined> {
  const files = layers.map((entries, i) => {
    const path = join(base, `layer-${i}.tar`);
    writeFileSync(path, tarOf(entries));
    return { path, digest: `sha256:${String(i).repeat(64)}` };
  });
  return unpackLayers("hostile:1", files, tree).then(
    () => undefined,
    (e: Error) => e,
  );
}

function outsideIsUntouched(): void {
  expect(readdirSync(outside)).toEqual(["bait.txt"]);
  expect(readFileSync(bait, "utf8")).toBe("untouched\n");
  expect(statSync(bait).nlink).toBe(1);
  expect(readdirSync(base).filter((n) => !n.startsWith("layer-")).sort()).toEqual(["outside", "tree"]);
}

describe("a hostile layer writes nothing outside the tree", () => {
  test("an entry climbing out with '..' is refused, naming the image, layer and entry", async () => {
    const err = await unpack([{ name: "../escape.txt", data: "x" }]);
    expect(err?.message).toMatch(/^image 'hostile:1': layer sha256:0+: entry '..\/escape.txt' climbs out with '..'$/);
    outsideIsUntouched();
  });

  test("an absolute path is refused", async () => {
    const target = join(outside, "abs.txt");
    const err = await unpack([{ name: target, data: "x" }]);
    expect(err?.message).toContain(`entry '${target}' is an absolute path`);
    outsideIsUntouched();
  });

  test("a file written through a symlink that climbs lands inside the tree", async () => {
    const err = await unpack(
      [{ name: "up", type: "symlink", linkname: "../../../../outside" }],
      [{ name: "up/owned.txt", data: "mine" }],
    );
    expect(err).toBeUndefined();
    outsideIsUntouched();
    expect(readFileSync(join(tree, "outside", "owned.txt"), "utf8")).toBe("mine");
  });

  test("a directory that files were written into, replaced by a climbing link in the same layer: later files land inside the tree", async () => {
    // The unpacker remembers where `d` resolved for `d/a.txt`; the link must make it forget, or
    // `d/b.txt` would be opened at the old place, which is now the link, and land outside.
    const err = await unpack([
      { name: "d", type: "dir", mode: 0o755 },
      { name: "d/a.txt", data: "first" },
      { name: "d", type: "symlink", linkname: "../outside" },
      { name: "d/b.txt", data: "through the link" },
    ]);
    expect(err).toBeUndefined();
    outsideIsUntouched();
    expect(readFileSync(join(tree, "outside", "b.txt"), "utf8")).toBe("through the link");
  });

  test("a file written through an absolute symlink lands inside the tree, in one layer too", async () => {
    const err = await unpack([
      { name: "abs", type: "symlink", linkname: outside },
      { name: "abs/owned.txt", data: "mine" },
      { name: "abs/bait.txt", data: "overwritten" },
    ]);
    expect(err).toBeUndefined();
    outsideIsUntouched();
    expect(readFileSync(join(tree, outside, "owned.txt"), "utf8")).toBe("mine");
  });

  test("an entry at a symlink's own path replaces the link, it does not write through it", async () => {
    const err = await unpack([{ name: "victim", type: "symlink", linkname: bait }], [{ name: "victim", data: "replaced" }]);
    expect(err).toBeUndefined();
    outsideIsUntouched();
    expect(readFileSync(join(tree, "victim"), "utf8")).toBe("replaced");
  });

  test("a hardlink to a file outside, by '..', by an absolute path or through a link, is refused", async () => {
    for (const linkname of ["../outside/bait.txt", bait]) {
      const err = await unpack([{ name: "hl", type: "hardlink", linkname }]);
      expect(err?.message).toMatch(/climbs out|absolute path/);
    }
    const err = await unpack([{ name: "out", type: "symlink", linkname: outside }, { name: "hl", type: "hardlink", linkname: "out/bait.txt" }]);
    expect(err?.message).toContain("does not exist");
    outsideIsUntouched();
  });

  test("whiteouts delete inside the tree only, even through a link", async () => {
    const err = await unpack([{ name: "out", type: "symlink", linkname: outside }], [{ name: "out/.wh.bait.txt" }, { name: "out/.wh..wh..opq" }]);
    expect(err).toBeUndefined();
    outsideIsUntouched();
  });

  test("a directory replaced by a link later in its layer does not get its mode applied through the link", async () => {
    const before = statSync(outside).mode;
    const err = await unpack([
      { name: "a", type: "dir", mode: 0o755 },
      { name: "a/outside", type: "dir", mode: 0o700 },
      { name: "d", type: "dir", mode: 0o700 },
      { name: "a", type: "symlink", linkname: base },
      { name: "d", type: "symlink", linkname: outside },
    ]);
    expect(err).toBeUndefined();
    expect(statSync(outside).mode).toBe(before);
    outsideIsUntouched();
  });

  test("a hardlink within the tree is made", async () => {
    const err = await unpack([{ name: "a.txt", data: "same" }, { name: "dir", type: "dir", mode: 0o755 }, { name: "dir/b.txt", type: "hardlink", linkname: "a.txt" }]);
    expect(err).toBeUndefined();
    expect(statSync(join(tree, "dir", "b.txt")).ino).toBe(statSync(join(tree, "a.txt")).ino);
  });

  test("a zstd layer is refused by name", async () => {
    const path = join(base, "zstd.tar.zst");
    writeFileSync(path, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]));
    await expect(unpackLayers("z:1", [{ path, digest: "sha256:z" }], tree)).rejects.toThrow(/layer sha256:z: the layer is zstd-compressed/);
  });

  test("a layer cut short is an error, not a partial success", async () => {
    const whole = tarOf([{ name: "big.txt", data: "y".repeat(5000) }]);
    const path = join(base, "short.tar");
    writeFileSync(path, whole.subarray(0, 1500));
    await expect(unpackLayers("s:1", [{ path, digest: "sha256:s" }], tree)).rejects.toThrow(/ends inside an entry/);
    expect(existsSync(join(base, "outside", "big.txt"))).toBe(false);
  });
});
