/**
 * Pulling a FROM image into a directory (emulator/image/), against a real registry on loopback
 * (test/fixtures/oci-registry.ts): the tree the layers make, the cache that spares a second pull its
 * layer downloads, the digests that refuse tampered bytes, the not-found and credential answers.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BlobCache } from "../../emulator/image/cache";
import { pullImage } from "../../emulator/image/pull";
import { parseReference } from "../../emulator/image/reference";
import { ImageNotFoundError } from "../../emulator/image/registry";
import { GZIP_LAYER, tarOf, tinyLayers, TINY, type LayerBlob } from "../fixtures/oci-image";
import { startRegistry, type TestRegistry } from "../fixtures/oci-registry";

const HEX = "a".repeat(64);

describe("image references", () => {
  test.each([
    ["python:3.12-slim", "registry-1.docker.io", "library/python", "3.12-slim"],
    ["ubuntu", "registry-1.docker.io", "library/ubuntu", "latest"],
    ["e2bdev/base:1.0", "registry-1.docker.io", "e2bdev/base", "1.0"],
    ["docker.io/library/node:22", "registry-1.docker.io", "library/node", "22"],
    ["host:5000/a/b:tag", "host:5000", "a/b", "tag"],
    ["localhost/x", "localhost", "x", "latest"],
    ["ghcr.io/org/sub/img", "ghcr.io", "org/sub/img", "latest"],
  ])("%s is %s / %s : %s", (text, registry, repository, tag) => {
    expect(parseReference(text)).toEqual({ text, registry, repository, tag, reference: tag });
  });

  test("a digest is what the manifest is asked for, with or without a tag", () => {
    expect(parseReference(`name@sha256:${HEX}`)).toEqual({
      text: `name@sha256:${HEX}`,
      registry: "registry-1.docker.io",
      repository: "library/name",
      digest: `sha256:${HEX}`,
      reference: `sha256:${HEX}`,
    });
    expect(parseReference(`host:5000/n:1@sha256:${HEX}`)).toMatchObject({ registry: "host:5000", tag: "1", reference: `sha256:${HEX}` });
  });

  test.each(["", "Python:3", "a:b:c", "name@sha256:abc", "host:5000/:t", "a//b", "x:-bad", "a@b@c", " ubuntu"])("'%s' is refused, named", (text) => {
    expect(() => parseReference(text)).toThrow(`image reference '${text}' is malformed`);
  });
});

describe("pulling from a registry", () => {
  let registry: TestRegistry;
  let work: string;
  let tiny: string;
  let layers: LayerBlob[];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "image-pull-"));
    registry = await startRegistry();
    layers = tinyLayers(join(work, "src"));
    tiny = await registry.push("tiny", "v1", layers, { Env: ["PATH=/usr/local/bin:/bin", "GREETING=hi"], User: "app", WorkingDir: "/home/app", Cmd: ["/bin/sh"] });
  });
  afterAll(async () => {
    await registry?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const fresh = (name: string) => mkdtempSync(join(work, `${name}-`));
  const blobGets = (since: number) => registry.requests().slice(since).filter((r) => /^GET \/v2\/.*\/blobs\//.test(r));

  test("the layers make the image's tree, and its config comes back", async () => {
    const root = join(work, "made-by-the-pull");
    const pulled = await pullImage(tiny, root, { cacheDir: join(work, "cache") });
    expect(execFileSync(join(root, "bin", "busybox"), ["echo", "hi"], { encoding: "utf8" })).toBe("hi\n");
    expect(lstatSync(join(root, "bin", "sh")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(root, "bin", "sh"))).toBe("busybox");
    expect(existsSync(join(root, TINY.gone))).toBe(false);
    expect(readdirSync(join(root, TINY.opaque))).toEqual(["new.txt"]);
    expect(statSync(join(root, "tmp")).mode & 0o7777).toBe(0o1777);
    expect(statSync(join(root, "etc", "secret")).mode & 0o7777).toBe(TINY.secretMode);
    expect(statSync(join(root, "usr", "local", "bin", "hello")).mode & 0o7777).toBe(0o755);
    expect(readFileSync(join(root, "usr", "local", "bin", "hello"), "utf8")).toContain("hello from layer 2");
    expect(readFileSync(join(root, TINY.longDir, "gnu.txt"), "utf8")).toBe("gnu\n");
    expect(readFileSync(join(root, TINY.longDir, "pax.txt"), "utf8")).toBe("pax\n");
    expect(readFileSync(join(root, "etc", "passwd"), "utf8")).toContain("app:x:1001:1001");
    if (process.getuid?.() === 0) expect(statSync(join(root, "home", "app")).uid).toBe(TINY.appUid);
    expect(pulled.config).toEqual({ env: { PATH: "/usr/local/bin:/bin", GREETING: "hi" }, user: "app", workingDir: "/home/app", entrypoint: [], cmd: ["/bin/sh"] });
    expect(pulled.digest).toMatch(/^sha256:[a-f0-9]{64}$/);
  });

  test("a second pull, and a pull of an image sharing the base layer, fetch no layer they already have", async () => {
    const cacheDir = join(work, "cache-again");
    await pullImage(tiny, fresh("first"), { cacheDir });
    let since = registry.requests().length;
    await pullImage(tiny, fresh("second"), { cacheDir });
    expect(blobGets(since)).toEqual([]);
    const own = { data: gzipSync(tarOf([{ name: "child.txt", data: "child\n" }])), mediaType: GZIP_LAYER };
    const child = await registry.push("child", "v1", [layers[0]!, own], {});
    since = registry.requests().length;
    await pullImage(child, fresh("child"), { cacheDir });
    // The config and the new layer; the shared busybox layer comes from the cache.
    expect(blobGets(since)).toHaveLength(2);
  });

  test("pulls of the same image at once fetch each blob once and both get the tree", async () => {
    const cacheDir = join(work, "cache-together");
    const since = registry.requests().length;
    const [a, b] = [fresh("a"), fresh("b")];
    await Promise.all([pullImage(tiny, a, { cacheDir }), pullImage(tiny, b, { cacheDir })]);
    expect(blobGets(since)).toHaveLength(3);
    for (const root of [a, b]) expect(readFileSync(join(root, "usr", "local", "bin", "hello"), "utf8")).toContain("layer 2");
  });

  test("two writers of the same blobs at once (another process's cache, here reached by a second path) leave whole blobs and no temp file", async () => {
    const cacheDir = join(work, "cache-shared");
    const alias = join(work, "cache-shared-alias");
    mkdirSync(cacheDir);
    symlinkSync(cacheDir, alias);
    const since = registry.requests().length;
    const [a, b] = [fresh("one"), fresh("other")];
    await Promise.all([pullImage(tiny, a, { cacheDir }), pullImage(tiny, b, { cacheDir: alias })]);
    // Both fetched every blob: the writes really raced, which the in-process sharing would have spared.
    expect(blobGets(since)).toHaveLength(6);
    const kept = readdirSync(join(cacheDir, "sha256"));
    expect(kept).toHaveLength(3);
    for (const name of kept) expect(sha256(readFileSync(join(cacheDir, "sha256", name)))).toBe(name);
    for (const root of [a, b]) expect(execFileSync(join(root, "bin", "busybox"), ["echo", "ok"], { encoding: "utf8" })).toBe("ok\n");
  });

  test("a tampered transfer is refused and nothing of it is kept; a damaged cached blob is fetched again", async () => {
    const cacheDir = join(work, "cache-tamper");
    registry.tamper(true);
    try {
      await expect(pullImage(tiny, fresh("tampered"), { cacheDir })).rejects.toThrow(/image '.*tiny:v1': blob sha256:[a-f0-9]+ does not match its digest/);
    } finally {
      registry.tamper(false);
    }
    expect(existsSync(join(cacheDir, "sha256")) ? readdirSync(join(cacheDir, "sha256")) : []).toEqual([]);

    await pullImage(tiny, fresh("good"), { cacheDir });
    const busyboxLayer = new BlobCache(cacheDir).pathOf(`sha256:${sha256(layers[0]!.data)}`);
    const bytes = readFileSync(busyboxLayer);
    bytes[100] = bytes[100]! ^ 0xff;
    writeFileSync(busyboxLayer, bytes);
    const since = registry.requests().length;
    const root = fresh("healed");
    await pullImage(tiny, root, { cacheDir });
    expect(blobGets(since)).toEqual([expect.stringContaining(sha256(layers[0]!.data))]);
    expect(execFileSync(join(root, "bin", "busybox"), ["echo", "ok"], { encoding: "utf8" })).toBe("ok\n");
  });

  test("from an image index, the platform asked for is pulled; one it lacks is refused, naming those it has", async () => {
    const arm = { data: gzipSync(tarOf([{ name: "arm64.txt", data: "arm\n" }])), mediaType: GZIP_LAYER };
    const multi = await registry.pushIndex("multi", "v1", [
      { architecture: "amd64", layers, config: {} },
      { architecture: "arm64", layers: [arm], config: { User: "arm" } },
    ]);
    const cacheDir = join(work, "cache-multi");
    const amd = fresh("amd64");
    await pullImage(multi, amd, { cacheDir, platform: { os: "linux", architecture: "amd64" } });
    expect(existsSync(join(amd, "bin", "busybox"))).toBe(true);
    const armRoot = fresh("arm64");
    const pulled = await pullImage(multi, armRoot, { cacheDir, platform: { os: "linux", architecture: "arm64" } });
    expect(readdirSync(armRoot)).toEqual(["arm64.txt"]);
    expect(pulled.config.user).toBe("arm");
    await expect(pullImage(multi, fresh("s390x"), { cacheDir, platform: { os: "linux", architecture: "s390x" } })).rejects.toThrow(
      `image '${multi}' has no linux/s390x variant (it has: linux/amd64, linux/arm64)`,
    );
  });

  test("a missing tag or repository is an ImageNotFoundError naming the image", async () => {
    const cacheDir = join(work, "cache-missing");
    for (const ref of [`${registry.host}/tiny:nope`, `${registry.host}/absent:v1`]) {
      const err = await pullImage(ref, fresh("missing"), { cacheDir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImageNotFoundError);
      expect((err as Error).message).toMatch(new RegExp(`^image '${ref.replace(/[.]/g, "\\.")}' not found: `));
    }
  });

  test("blobs redirected to another origin (as Docker Hub's are) are fetched there without the registry's credentials", async () => {
    registry.auth({ scheme: "bearer", username: "builder", password: "pw" });
    registry.redirectBlobs(true);
    try {
      const root = fresh("redirected");
      await pullImage(tiny, root, { cacheDir: join(work, "cache-redirect"), credentials: { username: "builder", password: "pw" } });
      expect(existsSync(join(root, "usr", "local", "bin", "hello"))).toBe(true);
      expect(registry.cdnAuthorization()).toEqual(["none", "none", "none"]);
    } finally {
      registry.redirectBlobs(false);
      registry.auth({ scheme: "none" });
    }
  });

  test("a registry that does not answer is named with the image", async () => {
    const ref = "127.0.0.1:1/nobody:v1";
    await expect(pullImage(ref, join(work, "never"), { cacheDir: join(work, "cache-none") })).rejects.toThrow(`image '${ref}': cannot reach 127.0.0.1:1: `);
    expect(existsSync(join(work, "never"))).toBe(false);
  });

  test.each(["bearer", "basic"] as const)("%s auth: the given credentials are used, a wrong or missing one is refused", async (scheme) => {
    const cacheDir = join(work, `cache-${scheme}`);
    registry.auth({ scheme, username: "builder", password: "pw" });
    try {
      const root = fresh(scheme);
      await pullImage(tiny, root, { cacheDir, credentials: { username: "builder", password: "pw" } });
      expect(existsSync(join(root, "bin", "busybox"))).toBe(true);
      const secret = "wrong-Pa55word";
      const wrong = await pullImage(tiny, fresh("wrong"), { cacheDir: join(cacheDir, "x"), credentials: { username: "builder", password: secret } }).catch((e: Error) => e);
      expect(String(wrong)).toMatch(scheme === "bearer" ? /token service refused the given credentials/ : /access to manifest v1 denied \(HTTP 401\)/);
      for (const leak of [secret, Buffer.from(`builder:${secret}`).toString("base64")]) expect(String(wrong)).not.toContain(leak);
      const none = await pullImage(tiny, fresh("none"), { cacheDir: join(cacheDir, "y") }).catch((e: Error) => e);
      expect(String(none)).toMatch(scheme === "bearer" ? /refused an anonymous token/ : /asks for credentials \(Basic auth\) and none were given/);
    } finally {
      registry.auth({ scheme: "none" });
    }
  });
});

function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
