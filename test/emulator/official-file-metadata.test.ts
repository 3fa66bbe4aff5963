/**
 * File metadata through E2B's official JS SDK (`e2b`, unmodified): the `metadata` option of
 * `files.write` (`X-Metadata-*` headers) is kept with the file and reported by the write's answer,
 * getInfo (Stat), list (ListDir) and rename (Move), as envd reports its `user.e2b.*` xattrs; an
 * upload replaces it, and envd's rules refuse bad metadata before anything is written.
 */
import { FileType } from "e2b";
import { describe, expect, it } from "vitest";
import { useOfficialSandbox } from "./official-helpers";

const bench = useOfficialSandbox();

/** A raw upload to the sandbox's envd with extra headers (what the SDK's own checks would stop). */
async function rawUpload(path: string, headers: Record<string, string>): Promise<Response> {
  const sandbox = bench.sandbox as unknown as { envdAccessToken?: string; sandboxId: string };
  const url = `${bench.emu.sandboxUrl}/files?path=${encodeURIComponent(path)}`;
  return fetch(url, {
    method: "POST",
    body: "x",
    headers: { "content-type": "application/octet-stream", "e2b-sandbox-id": sandbox.sandboxId, "x-access-token": sandbox.envdAccessToken ?? "", ...headers },
  });
}

describe("file metadata", () => {
  it("is reported by the write, getInfo and list, for multipart and octet-stream uploads", async () => {
    const metadata = { author: "mish", purpose: "upload" };
    expect((await bench.sandbox.files.write("meta/a.txt", "a", { metadata })).metadata).toEqual(metadata);
    expect((await bench.sandbox.files.write("meta/b.txt", "b", { metadata: { tag: "octet" }, useOctetStream: true })).metadata).toEqual({ tag: "octet" });
    expect((await bench.sandbox.files.getInfo("meta/a.txt")).metadata).toEqual(metadata);
    const listed = await bench.sandbox.files.list("meta");
    expect(listed.map((e) => [e.name, e.type, e.metadata])).toEqual([
      ["a.txt", FileType.FILE, metadata],
      ["b.txt", FileType.FILE, { tag: "octet" }],
    ]);
  });

  it("applies one upload's metadata to every file in it, and leaves files without any unmarked", async () => {
    const infos = await bench.sandbox.files.write([{ path: "multi/1.txt", data: "1" }, { path: "multi/2.txt", data: "2" }], { metadata: { source: "suite" } });
    expect(infos.map((i) => i.metadata)).toEqual([{ source: "suite" }, { source: "suite" }]);
    const plain = await bench.sandbox.files.write("multi/plain.txt", "p");
    expect(plain.metadata).toBeUndefined();
    expect((await bench.sandbox.files.getInfo("multi/plain.txt")).metadata).toBeUndefined();
  });

  it("follows the file when the API or a command renames it, and is not copied by cp", async () => {
    await bench.sandbox.files.write("ren/old.txt", "content", { metadata: { stage: "renamed" } });
    expect((await bench.sandbox.files.rename("ren/old.txt", "ren/new.txt")).metadata).toEqual({ stage: "renamed" });
    await bench.sandbox.commands.run("cd ~/ren && mv new.txt moved.txt && cp moved.txt copy.txt && echo more >> moved.txt");
    expect((await bench.sandbox.files.getInfo("ren/moved.txt")).metadata).toEqual({ stage: "renamed" });
    expect((await bench.sandbox.files.getInfo("ren/copy.txt")).metadata).toBeUndefined();
  });

  it("is replaced by each upload: an overwrite without metadata clears it", async () => {
    await bench.sandbox.files.write("over.txt", "first", { metadata: { author: "mish", keep: "no" } });
    expect((await bench.sandbox.files.write("over.txt", "second", { metadata: { author: "other" } })).metadata).toEqual({ author: "other" });
    expect((await bench.sandbox.files.write("over.txt", "third")).metadata).toBeUndefined();
    expect((await bench.sandbox.files.getInfo("over.txt")).metadata).toBeUndefined();
  });

  it("is not inherited by a new file made after one with metadata was removed", async () => {
    await bench.sandbox.files.write("gone.txt", "x", { metadata: { old: "yes" } });
    await bench.sandbox.files.remove("gone.txt");
    await bench.sandbox.commands.run("echo new > ~/gone.txt");
    expect((await bench.sandbox.files.getInfo("gone.txt")).metadata).toBeUndefined();
  });

  it("is the file's user.e2b.* xattrs: a command's setxattr is reported, and the API's is read in the sandbox", async () => {
    await bench.sandbox.files.write("x/set.txt", "content");
    await bench.sandbox.commands.run(`python3 -c "import os; os.setxattr('/home/user/x/set.txt', 'user.e2b.author', b'mish')"`);
    expect((await bench.sandbox.files.getInfo("x/set.txt")).metadata).toEqual({ author: "mish" });
    // Read again once the ctime is old enough to be remembered: a later setxattr is still seen.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await bench.sandbox.files.getInfo("x/set.txt")).metadata).toEqual({ author: "mish" });
    await bench.sandbox.commands.run(`python3 -c "import os; os.setxattr('/home/user/x/set.txt', 'user.e2b.author', b'ada')"`);
    expect((await bench.sandbox.files.getInfo("x/set.txt")).metadata).toEqual({ author: "ada" });
    await bench.sandbox.commands.run("ln -s /home/user/x/set.txt /home/user/x/link.txt");
    expect((await bench.sandbox.files.list("x")).map((e) => [e.name, e.metadata])).toEqual([
      ["link.txt", { author: "ada" }],
      ["set.txt", { author: "ada" }],
    ]);
    await bench.sandbox.files.write("x/api.txt", "a", { metadata: { by: "api" } });
    const read = await bench.sandbox.commands.run(`python3 -c "import os; print(os.getxattr('/home/user/x/api.txt', 'user.e2b.by').decode())"`);
    expect(read.stdout).toBe("api\n");
    // An upload rewrites them all, a command's included.
    expect((await bench.sandbox.files.write("x/set.txt", "again")).metadata).toBeUndefined();
    expect((await bench.sandbox.files.getInfo("x/set.txt")).metadata).toBeUndefined();
  });

  it("refuses invalid metadata with envd's 400 and writes nothing", async () => {
    const nonAscii = await rawUpload("bad.txt", { "x-metadata-k": "caf\u00e9" });
    expect(nonAscii.status).toBe(400);
    expect(await nonAscii.json()).toEqual({ code: 400, message: 'invalid metadata: metadata value for key "k" contains non-printable-ASCII byte 0xe9 at offset 3' });
    const tooBig = await rawUpload("bad.txt", { "x-metadata-a": "v".repeat(4000), "x-metadata-b": "v".repeat(200) });
    expect(await tooBig.json()).toEqual({ code: 400, message: "invalid metadata: total metadata size 4220 exceeds 4096 bytes" });
    expect(await bench.sandbox.files.exists("bad.txt")).toBe(false);
  });
});
