/**
 * envd's HTTP file transfer (`GET`/`POST /files`) in the emulator, over real HTTP: uploads
 * (multipart, raw, gzip) land under the sandbox root, downloads stream the bytes, and errors are
 * envd's JSON.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxRuntime } from "../../emulator/types";
import { startBench, type Bench } from "./envd-harness";

let bench: Bench;
let runtime: SandboxRuntime;
const host = (p: string) => path.join(runtime.rootDir, p);

beforeAll(async () => {
  bench = await startBench();
  runtime = await bench.sandbox("ifiles");
  await bench.sandbox("ifsecure", { secure: true });
});
afterAll(() => bench.close());

function files(query: string, init: RequestInit = {}, sandboxID = "ifiles"): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("e2b-sandbox-id", sandboxID);
  return fetch(`${bench.url}/files?${query}`, { ...init, headers });
}

describe("GET /files", () => {
  it("downloads a file by sandbox path or home-relative path", async () => {
    await writeFile(host("/home/user/hello.txt"), "hello bytes");
    for (const p of ["/home/user/hello.txt", "hello.txt"]) {
      const res = await files(`path=${encodeURIComponent(p)}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/octet-stream");
      expect(await res.text()).toBe("hello bytes");
    }
  });

  it("answers 404 for a missing path and 400 for a directory, in envd's JSON", async () => {
    const missing = await files("path=/home/user/none");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ code: 404, message: "path '/home/user/none' does not exist" });
    await mkdir(host("/home/user/dir"), { recursive: true });
    const dir = await files("path=dir");
    expect(dir.status).toBe(400);
    expect(await dir.json()).toEqual({ code: 400, message: "path '/home/user/dir' is a directory" });
  });

  it("refuses an unknown username and a path above the root", async () => {
    const user = await files("path=x&username=mallory");
    expect(user.status).toBe(401);
    expect(((await user.json()) as { message: string }).message).toBe("error looking up user 'mallory': user: unknown user mallory");
    const escape = await files("path=/../../etc/passwd");
    expect(escape.status).toBe(400);
  });
});

describe("POST /files", () => {
  it("stores multipart parts at their file names, creating parent directories", async () => {
    const form = new FormData();
    form.append("file", new Blob(["one"]), "/home/user/up/one.txt");
    form.append("file", new Blob(["two"]), "up/two.txt");
    const res = await files("", { method: "POST", body: form });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { name: "one.txt", type: "file", path: "/home/user/up/one.txt" },
      { name: "two.txt", type: "file", path: "/home/user/up/two.txt" },
    ]);
    expect(await readFile(host("/home/user/up/two.txt"), "utf8")).toBe("two");
  });

  it("stores a raw (and gzip-encoded) body at the path parameter", async () => {
    const body = Buffer.from([0, 1, 2, 3, 250]);
    const res = await files("path=/opt/raw.bin", { method: "POST", headers: { "content-type": "application/octet-stream" }, body });
    expect(await res.json()).toEqual([{ name: "raw.bin", type: "file", path: "/opt/raw.bin" }]);
    expect(await readFile(host("/opt/raw.bin"))).toEqual(body);
    const zipped = await files("path=zipped.txt", {
      method: "POST",
      headers: { "content-type": "application/octet-stream", "content-encoding": "gzip" },
      body: gzipSync("unzipped"),
    });
    expect(zipped.status).toBe(200);
    expect(await readFile(host("/home/user/zipped.txt"), "utf8")).toBe("unzipped");
  });

  it("needs a path for a raw body and a known content type", async () => {
    const noPath = await files("", { method: "POST", headers: { "content-type": "application/octet-stream" }, body: "x" });
    expect(noPath.status).toBe(400);
    expect(await noPath.json()).toEqual({ code: 400, message: "path query parameter is required for raw body upload" });
    const text = await files("path=a", { method: "POST", headers: { "content-type": "text/plain" }, body: "x" });
    expect(text.status).toBe(400);
  });

  it("needs the access token on a secured sandbox", async () => {
    const denied = await files("path=a.txt", { method: "POST", headers: { "content-type": "application/octet-stream" }, body: "x" }, "ifsecure");
    expect(denied.status).toBe(401);
    const allowed = await files(
      "path=a.txt",
      { method: "POST", headers: { "content-type": "application/octet-stream", "x-access-token": "tok-ifsecure-secret" }, body: "x" },
      "ifsecure",
    );
    expect(allowed.status).toBe(200);
  });
});
