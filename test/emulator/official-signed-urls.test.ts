/**
 * Signed file URLs through E2B's official JS SDK (`e2b`, unmodified), with the emulator's one
 * sandbox URL (as `E2B_SANDBOX_URL` gives it): `downloadUrl`/`uploadUrl` of a secure sandbox carry
 * no sandbox ID, only a signature made with its access token, and are fetched with no header at
 * all, as a browser would. envd answers 200, or 401 with its message when expired or wrong.
 */
import { Sandbox } from "e2b";
import { describe, expect, it } from "vitest";
import { useOfficialSandbox } from "./official-helpers";

const bench = useOfficialSandbox();

/** Posts a form whose `file` field is plain text (no file name), as the vendor's tests do. */
async function upload(url: string, content: string): Promise<Response> {
  const form = new FormData();
  form.append("file", content);
  return fetch(url, { method: "POST", body: form });
}

describe("signed file URLs", () => {
  it("download: a valid signature reads the file, as the default user or as root", async () => {
    await bench.sandbox.files.write("hello.txt", "hello world");
    const url = await bench.sandbox.downloadUrl("hello.txt", { useSignatureExpiration: 10_000 });
    expect(new URL(url).searchParams.has("signature")).toBe(true);
    const res = await fetch(url);
    expect([res.status, await res.text()]).toEqual([200, "hello world"]);
    await bench.sandbox.files.write("/root/secret.txt", "root's", { user: "root" });
    const asRoot = await fetch(await bench.sandbox.downloadUrl("/root/secret.txt", { user: "root" }));
    expect([asRoot.status, await asRoot.text()]).toEqual([200, "root's"]);
  });

  it("upload: a valid signature writes the file where the signed path says", async () => {
    const res = await upload(await bench.sandbox.uploadUrl("signed-up.txt", { useSignatureExpiration: 10_000 }), "file content");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ name: "signed-up.txt", path: "/home/user/signed-up.txt", type: "file" }]);
    expect(await bench.sandbox.files.read("signed-up.txt")).toBe("file content");
    const asRoot = await upload(await bench.sandbox.uploadUrl("r.txt", { user: "root" }), "r");
    expect(await asRoot.json()).toEqual([{ name: "r.txt", path: "/root/r.txt", type: "file" }]);
  });

  it("upload without a path: the form's file name says where, and a field without one is a 400", async () => {
    const url = await bench.sandbox.uploadUrl();
    const named = new FormData();
    named.append("file", new Blob(["n"]), "named.txt");
    expect(await (await fetch(url, { method: "POST", body: named })).json()).toEqual([{ name: "named.txt", path: "/home/user/named.txt", type: "file" }]);
    const res = await upload(url, "nameless");
    expect([res.status, await res.json()]).toEqual([400, { code: 400, message: "error getting multipart custom part file name: filename not found in Content-Disposition header" }]);
  });

  it("an expired signature is a 401 with envd's message, for reads and writes", async () => {
    const read = await fetch(await bench.sandbox.downloadUrl("hello.txt", { useSignatureExpiration: -10_000 }));
    expect([read.status, await read.json()]).toEqual([401, { code: 401, message: "signature is already expired" }]);
    const write = await upload(await bench.sandbox.uploadUrl("late.txt", { useSignatureExpiration: -100_000 }), "x");
    expect([write.status, await write.json()]).toEqual([401, { code: 401, message: "signature is already expired" }]);
    expect(await bench.sandbox.files.exists("late.txt")).toBe(false);
  });

  it("a URL changed after signing, or signed for the other operation, is refused", async () => {
    const url = new URL(await bench.sandbox.downloadUrl("hello.txt", { useSignatureExpiration: 10_000 }));
    url.searchParams.set("path", "/etc/passwd");
    expect((await fetch(url)).status).toBe(401);
    const readUrl = await bench.sandbox.downloadUrl("hello.txt");
    const res = await upload(readUrl, "overwritten");
    expect([res.status, await res.json()]).toEqual([401, { code: 401, message: "invalid signature" }]);
    expect(await bench.sandbox.files.read("hello.txt")).toBe("hello world");
  });

  it("finds the sandbox that signed among several, and names what is missing on a request that names the sandbox", async () => {
    const other = await Sandbox.create("base", { ...bench.opts, timeoutMs: 60_000 });
    try {
      await other.files.write("hello.txt", "other's");
      expect(await (await fetch(await other.downloadUrl("hello.txt"))).text()).toBe("other's");
      expect(await (await fetch(await bench.sandbox.downloadUrl("hello.txt"))).text()).toBe("hello world");
      const unsigned = await fetch(`${bench.emu.sandboxUrl}/files?path=hello.txt`, { headers: { "e2b-sandbox-id": other.sandboxId } });
      expect([unsigned.status, await unsigned.json()]).toEqual([401, { code: 401, message: "missing signature query parameter" }]);
      const wrongToken = await fetch(`${bench.emu.sandboxUrl}/files?path=hello.txt`, { headers: { "e2b-sandbox-id": other.sandboxId, "x-access-token": "nope" } });
      expect(await wrongToken.json()).toEqual({ code: 401, message: "access token present in header but does not match" });
    } finally {
      await other.kill();
    }
    // Its sandbox gone, a signed URL finds no one to answer it.
    const res = await fetch(`${bench.emu.sandboxUrl}/files?path=hello.txt&signature=v1_forged`);
    expect([res.status, await res.json()]).toEqual([401, { code: 401, message: "invalid signature" }]);
  });
});
