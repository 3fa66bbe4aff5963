/**
 * A volume's seed, locally: the manifest a directory makes, the plan between two manifests, and the
 * `content` input as `check` sees it (every bad value fails naming its field, before any API call).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { MAX_VOLUME_FILE_BYTES } from "../../emulator/volume-content/routes";
import { checkInputs } from "../../provider/check";
import { readContent } from "../../provider/kinds/volume/source";
import { volumeKind } from "../../provider/kinds/volume";
import { volumeSpec } from "../../provider/kinds/volume/spec";
import { specialArchiveSig, specialAssetSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { MAX_SEED_FILE_BYTES, parentDirs, planSeed, readSeed, sha256Of, targetProblem, type SeedManifest } from "../../provider/kinds/volume/content-seed";

const root = mkdtempSync(join(tmpdir(), "volume-seed-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh directory holding `files` (relative path → text), each with mode 644. */
function dirWith(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
    chmodSync(join(dir, rel), 0o644); // whatever the umask
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

const sha = (text: string) => sha256Of(new TextEncoder().encode(text));
/** `content` through `check`: the spec's rules, then the manifest the kind derives (provider/kinds/volume/derive.ts). */
function checked(content: unknown) {
  const out = checkInputs(volumeSpec, {}, { content, __resource: "p/s/v" });
  return out.inputs ? volumeKind.derive!(out.inputs) : out;
}
const reasons = (content: unknown) => (checked(content).failures ?? []).map((f) => f.reason);

describe("readSeed", () => {
  test("every regular file, by volume path under the target, with its hash, permission bits and size; empty directories are not part of it", () => {
    const dir = dirWith("basic", { "a.txt": "alpha", "conf/b.toml": "b = 1\n" });
    mkdirSync(join(dir, "empty"));
    chmodSync(join(dir, "conf/b.toml"), 0o600);
    const reading = readSeed(dir, "/seed");
    expect(reading.problems).toEqual([]);
    expect(reading.manifest).toEqual({
      "/seed/a.txt": { sha256: sha("alpha"), mode: 0o644, size: 5 },
      "/seed/conf/b.toml": { sha256: sha("b = 1\n"), mode: 0o600, size: 6 },
    });
    expect(Object.keys(readSeed(dir, "/").manifest)).toEqual(["/a.txt", "/conf/b.toml"]);
  });

  test("a relative directory is read from the given working directory (the project's)", () => {
    dirWith("rel/files", { "x.txt": "x" });
    expect(Object.keys(readSeed("files", "/", join(root, "rel")).manifest)).toEqual(["/x.txt"]);
  });

  test("problems name the file: a missing directory, a file instead of one, a symlink, a file over the size limit", () => {
    expect(readSeed(join(root, "nope"), "/").problems).toEqual([`directory ${JSON.stringify(join(root, "nope"))} not found (resolved to ${join(root, "nope")})`]);
    const file = join(dirWith("plain", { "f.txt": "f" }), "f.txt");
    expect(readSeed(file, "/").problems[0]).toMatch(/is not a directory/);
    const dir = dirWith("odd", { "ok.txt": "ok", "big.bin": "" });
    symlinkSync("/etc/passwd", join(dir, "link"));
    truncateSync(join(dir, "big.bin"), MAX_SEED_FILE_BYTES + 1);
    expect(readSeed(dir, "/").problems).toEqual([
      `big.bin is ${MAX_SEED_FILE_BYTES + 1} bytes; a seeded file may hold at most ${MAX_SEED_FILE_BYTES} bytes (64 MiB)`,
      "link is a symbolic link; a seed holds regular files and directories only",
    ]);
  });
});

test("the emulator accepts an upload as large as the largest file a seed may hold", () => {
  expect(MAX_VOLUME_FILE_BYTES).toBeGreaterThanOrEqual(MAX_SEED_FILE_BYTES);
});

describe("targetProblem", () => {
  test("a clean absolute path passes; a relative one, or one with '..', '.' or empty parts, does not", () => {
    expect(targetProblem("/")).toBeUndefined();
    expect(targetProblem("/data/seed")).toBeUndefined();
    expect(targetProblem("data")).toMatch(/^must be an absolute path inside the volume/);
    expect(targetProblem("/data/../../etc")).toMatch(/without '.', '..' or empty parts/);
    expect(targetProblem("/data/")).toMatch(/without '.', '..' or empty parts/);
  });
});

describe("planSeed", () => {
  const f = (sha256: string, mode = 0o644, size = 1) => ({ sha256, mode, size });
  test("uploads new and changed files, deletes dropped ones, and only chmods a file whose content is the same", () => {
    const olds: SeedManifest = { "/same": f("1"), "/changed": f("2"), "/gone": f("3"), "/mode": f("4") };
    const news: SeedManifest = { "/same": f("1"), "/changed": f("2b"), "/new": f("5"), "/mode": f("4", 0o755) };
    expect(planSeed(olds, news)).toEqual({ upload: ["/changed", "/new"], chmod: ["/mode"], remove: ["/gone"] });
    expect(planSeed(news, news)).toEqual({ upload: [], chmod: [], remove: [] });
  });

  test("parentDirs: the deepest directories to make (each with its parents), never the root", () => {
    expect(parentDirs(["/a.txt", "/x/y/z.txt", "/x/w.txt", "/q/r.txt"])).toEqual(["/q", "/x/y"]);
  });
});

describe("readContent: a Pulumi archive, in the wire form both front ends receive", () => {
  const archive = (body: Record<string, unknown>) => ({ [specialSigKey]: specialArchiveSig, ...body });
  const asset = (body: Record<string, unknown>) => ({ [specialSigKey]: specialAssetSig, ...body });

  test("an AssetArchive of a StringAsset, a FileAsset and a FileArchive of a directory: its keys are the paths", () => {
    const dir = dirWith("archived", { "x.txt": "x", "sub/y.txt": "y" });
    const reading = readContent({
      target: "/srv",
      archive: archive({ assets: { "motd.txt": asset({ text: "hi" }), "etc/x.conf": asset({ path: join(dir, "x.txt") }), tree: archive({ path: dir }) } }),
    });
    expect(reading.problems).toEqual([]);
    expect(reading.manifest).toEqual({
      "/srv/etc/x.conf": { sha256: sha("x"), mode: 0o644, size: 1 },
      "/srv/motd.txt": { sha256: sha("hi"), mode: 0o644, size: 2 },
      "/srv/tree/sub/y.txt": { sha256: sha("y"), mode: 0o644, size: 1 },
      "/srv/tree/x.txt": { sha256: sha("x"), mode: 0o644, size: 1 },
    });
    expect(readContent({ target: "/", archive: archive({ path: dir }) }).manifest).toEqual(readSeed(dir, "/").manifest);
  });

  test("what is not supported is a problem naming the entry: remote archives and assets, .zip files, escaping keys", () => {
    expect(readContent({ target: "/", archive: archive({ uri: "https://example.com/a.tgz" }) }).problems).toEqual([
      "the archive: a RemoteArchive is not supported (the provider would fetch it at every preview); download it and give the directory",
    ]);
    expect(readContent({ target: "/", archive: archive({ path: "./site.zip" }) }).problems).toEqual([
      "the archive: a FileArchive of a .zip or .tar file is not supported; give the directory it was made from",
    ]);
    const bad = archive({ assets: { "../up.txt": asset({ text: "x" }), "r.txt": asset({ uri: "https://example.com/r" }) } });
    expect(readContent({ target: "/", archive: bad }).problems).toEqual([
      `the archive: entry "../up.txt" must be a relative path without '.', '..' or empty parts`,
      "r.txt: a RemoteAsset is not supported (the provider would fetch it at every preview)",
    ]);
  });
});

describe("check of content", () => {
  test("adds the manifest, so a diff sees each file; target defaults to the root", () => {
    const dir = dirWith("checked", { "hello.txt": "hi" });
    const out = checked({ path: dir });
    expect(out.failures).toBeUndefined();
    expect(out.inputs?.content).toEqual({ path: dir, target: "/", files: { "/hello.txt": { sha256: sha("hi"), mode: 0o644, size: 2 } } });
  });

  test("bad values fail naming the field: a missing directory, an escaping target, an unknown property, a wrong type", () => {
    expect(reasons({ path: join(root, "missing") })).toEqual([`content.path: directory ${JSON.stringify(join(root, "missing"))} not found (resolved to ${join(root, "missing")})`]);
    const dir = dirWith("t", { "a": "a" });
    expect(reasons({ path: dir, target: "/../../etc" })).toEqual([
      `content.target: must be a clean path inside the volume, without '.', '..' or empty parts (got "/../../etc")`,
    ]);
    expect(reasons({ path: dir, files: {} })).toEqual(['content: unknown property "files"']);
    expect(reasons({ path: 3 })).toEqual(["content.path: must be a string: a local directory"]);
    expect(reasons({ target: "/" })).toEqual(["content.path: give either path (a local directory) or archive (a Pulumi archive), not both and not neither"]);
    expect(reasons({ path: dir, archive: { [specialSigKey]: specialArchiveSig, path: dir } })).toEqual([
      "content.archive: give either path (a local directory) or archive (a Pulumi archive), not both and not neither",
    ]);
    expect(reasons({ archive: { path: dir } })).toEqual([
      "content.archive: must be a Pulumi archive (pulumi.asset.FileArchive of a directory, or pulumi.asset.AssetArchive)",
    ]);
  });
});
