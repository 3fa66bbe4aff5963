/**
 * The sdk's volume content client against the emulator: every operation, its errors (string codes of
 * this API, mapped to the sdk's codes), the volume token as the Bearer credential, and which calls are
 * repeated after a dropped answer.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { PlatformClient } from "../../sdk/platform/client";
import type { VolumeAndToken } from "../../sdk/schemas/volumes";
import { contentBaseUrl, type VolumeContent } from "../../sdk/volume-content/client";
import { failure } from "./expect-error";

let emu: Emulator;
let sdk: PlatformClient;
let volume: VolumeAndToken;
let content: VolumeContent;
const text = (s: string) => new TextEncoder().encode(s);
const hostPath = (path: string) => join(emu.state.volumes().find((v) => v.volumeID === volume.volumeID)!.hostDir, path);

beforeAll(async () => {
  emu = await createEmulator();
  sdk = new PlatformClient({ apiUrl: emu.apiUrl, apiKey: emu.apiKey, retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 } }, {});
  volume = await sdk.volumes.create({ name: "sdk-content" });
  content = sdk.volumes.content(volume);
});

afterAll(async () => {
  await content.close();
  await sdk.close();
  await emu.close();
});

describe("operations", () => {
  test("makeDir, upload, stat, list, setMetadata, remove: each lands in the volume, with the VolumeEntryStat of the spec", async () => {
    const dir = await content.makeDir("/etc/app", { force: true });
    expect(dir).toMatchObject({ type: "directory", path: "/etc/app", name: "app" });
    const file = await content.upload("/etc/app/conf.toml", text("a = 1\n"), { mode: 0o600 });
    expect(file).toMatchObject({ type: "file", path: "/etc/app/conf.toml", size: 6, mode: 0o600 });
    expect(readFileSync(hostPath("etc/app/conf.toml"), "utf8")).toBe("a = 1\n");
    expect((statSync(hostPath("etc/app/conf.toml")).mode & 0o777).toString(8)).toBe("600");
    expect(await content.stat("/etc/app/conf.toml")).toMatchObject({ size: 6, mtime: file.mtime });
    expect((await content.list("/", 3)).map((e) => e.path)).toEqual(["/etc", "/etc/app", "/etc/app/conf.toml"]);
    expect((await content.list("/")).map((e) => e.path)).toEqual(["/etc"]);
    expect(await content.setMetadata("/etc/app/conf.toml", { mode: 0o644 })).toMatchObject({ mode: 0o644 });
    await content.remove("/etc");
    expect((await content.list("/")).map((e) => e.path)).toEqual([]);
  });

  test("upload with force overwrites; without it an existing file is a conflict, named by the operation", async () => {
    await content.upload("/f.txt", text("one"));
    const err = await failure(content.upload("/f.txt", text("two")));
    expect(err.code).toBe("conflict");
    expect(err.message).toBe("PUT /volumecontent/{volumeID}/file failed (409 conflict): path '/f.txt' already exists; set force to overwrite it");
    expect(readFileSync(hostPath("f.txt"), "utf8")).toBe("one");
    await content.upload("/f.txt", text("two"), { force: true });
    expect(readFileSync(hostPath("f.txt"), "utf8")).toBe("two");
  });

  test("download returns a file's bytes as uploaded, every byte value included; a missing file is not_found", async () => {
    const all = Uint8Array.from({ length: 512 }, (_, i) => i % 256);
    await content.upload("/bytes.bin", all, { force: true });
    expect(await content.download("/bytes.bin")).toEqual(all);
    expect((await failure(content.download("/no-such.bin"))).code).toBe("not_found");
  });

  test("holds: whether a file is exactly the given bytes, compared as they stream in; a missing file is not_found", async () => {
    const big = Uint8Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 7) % 251);
    await content.upload("/big.bin", big, { force: true });
    expect(await content.holds("/big.bin", big)).toBe(true);
    const last = big.slice();
    last[last.length - 1] = last[last.length - 1]! ^ 1;
    expect(await content.holds("/big.bin", last)).toBe(false);
    const first = big.slice();
    first[0] = first[0]! ^ 1;
    expect(await content.holds("/big.bin", first)).toBe(false);
    expect(await content.holds("/big.bin", big.subarray(0, big.length - 1))).toBe(false);
    expect(await content.holds("/big.bin", Uint8Array.from([...big.subarray(0, 10)]))).toBe(false);
    expect((await failure(content.holds("/no-such.bin", big))).code).toBe("not_found");
    // The client is still usable after a compare that stopped early (its connection was dropped, not left half read).
    expect(await content.holds("/big.bin", big)).toBe(true);
  });

  test("a missing path or parent is not_found; a path out of the volume is invalid_argument", async () => {
    expect((await failure(content.stat("/nope"))).code).toBe("not_found");
    expect((await failure(content.upload("/no/parent.txt", text("x")))).message).toContain("parent of '/no/parent.txt' not found");
    expect((await failure(content.makeDir("/a/b"))).code).toBe("not_found");
    const out = await failure(content.stat("/../etc/passwd"));
    expect(out.code).toBe("invalid_argument");
    expect(out.message).toContain("is outside the volume");
  });

  test("the volume's token is the credential: another volume's token is refused (401), and never appears in a message", async () => {
    const other = await sdk.volumes.create({ name: "sdk-content-other" });
    const wrong = sdk.volumes.content({ ...volume, token: other.token });
    try {
      const err = await failure(wrong.stat("/"));
      expect(err.code).toBe("unauthenticated");
      expect(err.message).not.toContain(other.token);
    } finally {
      await wrong.close();
    }
  });

  test("the base URL is the client's API URL, or https://api.{domain} when the volume names its own domain", () => {
    expect(contentBaseUrl({ apiUrl: "http://127.0.0.1:9" }, { domain: null })).toBe("http://127.0.0.1:9");
    expect(contentBaseUrl({ apiUrl: "http://127.0.0.1:9" }, { domain: "byoc.example.com" })).toBe("https://api.byoc.example.com");
  });
});

describe("retries", () => {
  const calls = (since: number, route: string) => emu.calls(since).filter((c) => c.path.startsWith(`/volumecontent/${volume.volumeID}/${route}`));

  test("a forced upload whose answer was lost is repeated and succeeds", async () => {
    const since = emu.calls().at(-1)?.seq ?? 0;
    emu.setFaults({ dropAfterRate: 1 });
    const pending = content.upload("/retry.txt", text("again"), { force: true });
    // Let the first attempt through the fault, then stop dropping so a repeat can answer.
    while (calls(since, "file").length === 0) await new Promise((r) => setTimeout(r, 5));
    emu.setFaults({});
    expect(await pending).toMatchObject({ path: "/retry.txt", size: 5 });
    expect(calls(since, "file").length).toBeGreaterThan(1);
  });

  test("an upload without force whose answer was lost is not repeated: the client cannot know it was not written", async () => {
    const since = emu.calls().at(-1)?.seq ?? 0;
    emu.setFaults({ dropAfterRate: 1 });
    try {
      const err = await failure(content.upload("/once.txt", text("x")));
      expect(err.code).toBe("unavailable");
      expect(err.message).toContain("not repeated, because the service may have processed it");
    } finally {
      emu.setFaults({});
    }
    expect(calls(since, "file")).toHaveLength(1);
    expect(readFileSync(hostPath("once.txt"), "utf8")).toBe("x");
  });
});
