/**
 * envd's POST /files keeps no upload in memory: a multipart part goes to its file as its bytes
 * arrive (the file grows while the request is still being sent), and a gzip-encoded body inflates
 * to at most the sandbox's file size limit in all, then fails with envd's 507, so a small body of
 * zeros cannot stand for gigabytes. Over real HTTP to the emulator's envd.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SandboxRuntime } from "../../emulator/types";
import { startBench, type Bench } from "./envd-harness";

const MiB = 1024 * 1024;
let bench: Bench;
let runtime: SandboxRuntime;
const host = (p: string) => path.join(runtime.rootDir, p);

beforeAll(async () => {
  bench = await startBench({ limits: { fileSizeBytes: 4 * MiB } });
  runtime = await bench.sandbox("upstream");
});
afterAll(() => bench.close());

const BOUNDARY = "----emulator-test-boundary";
const partHead = (filename: string, name = "file") =>
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
const closing = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** POSTs /files?`query` with `headers`, writing the body as `chunks` yields it; resolves with the answer. */
function post(chunks: AsyncIterable<Buffer>, headers: Record<string, string>, query = ""): Promise<{ status: number; body: string }> {
  const url = new URL(`${bench.url}/files?${query}`);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "e2b-sandbox-id": "upstream", ...headers } }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    void (async () => {
      for await (const chunk of chunks) if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
      req.end();
    })().catch(reject);
  });
}

describe("multipart uploads stream to the file", () => {
  it("the file grows while the request is still being sent", async () => {
    const first = Buffer.alloc(2 * MiB, 0x61);
    let sendRest!: () => void;
    const rest = new Promise<void>((r) => (sendRest = r));
    const answer = post(
      (async function* () {
        yield partHead("/home/user/streamed.bin");
        yield first;
        await rest;
        yield Buffer.alloc(MiB, 0x62);
        yield closing;
      })(),
      { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    );
    // Only the first part of the body has been sent: its bytes must already be on disk.
    const sizeNow = () => (existsSync(host("/home/user/streamed.bin")) ? statSync(host("/home/user/streamed.bin")).size : 0);
    await vi.waitFor(() => expect(sizeNow()).toBeGreaterThan(MiB), { timeout: 10_000 });
    sendRest();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual([{ name: "streamed.bin", type: "file", path: "/home/user/streamed.bin" }]);
    const written = readFileSync(host("/home/user/streamed.bin"));
    expect(written.length).toBe(3 * MiB);
    expect(written.subarray(2 * MiB - 1, 2 * MiB + 1).toString()).toBe("ab");
  });

  it("several parts, a plain field among them, each to its file; a part's bytes may hold CRLF and dashes", async () => {
    const tricky = Buffer.from(`line\r\n--${BOUNDARY.slice(0, 10)}\r\n--not-it\r\n`);
    const body = Buffer.concat([
      partHead("/home/user/multi/one.txt"), tricky, Buffer.from("\r\n"),
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nignored\r\n`),
      partHead("multi/two.txt"), Buffer.from("two"), closing,
    ]);
    const res = await post((async function* () { yield body; })(), { "content-type": `multipart/form-data; boundary="${BOUNDARY}"` });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).map((e: { path: string }) => e.path)).toEqual(["/home/user/multi/one.txt", "/home/user/multi/two.txt"]);
    expect(readFileSync(host("/home/user/multi/one.txt"))).toEqual(tricky);
    expect(readFileSync(host("/home/user/multi/two.txt"), "utf8")).toBe("two");
  });
});

describe("a gzip-encoded upload inflates to the sandbox's file size limit at most", () => {
  const over = { message: "error decompressing request body: it inflates to more than the sandbox's file size limit (4194304 bytes)" };

  it("multipart: files under the limit each, over it together, is a 507", async () => {
    const body = Buffer.concat([partHead("bomb/a.bin"), Buffer.alloc(3 * MiB), Buffer.from("\r\n"), partHead("bomb/b.bin"), Buffer.alloc(3 * MiB), closing]);
    const res = await post((async function* () { yield gzipSync(body); })(), {
      "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
      "content-encoding": "gzip",
    });
    expect(res.status).toBe(507);
    expect(JSON.parse(res.body)).toMatchObject({ code: 507, ...over });
    expect(existsSync(host("/home/user/bomb/b.bin"))).toBe(false);
  });

  it("multipart: a plain field of zeros counts too", async () => {
    const body = Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\n`), Buffer.alloc(8 * MiB), closing]);
    const res = await post((async function* () { yield gzipSync(body); })(), {
      "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
      "content-encoding": "gzip",
    });
    expect(res.status).toBe(507);
  });

  it("raw: past the limit is a 507 and leaves no file; a body that is not gzip is a 400", async () => {
    const raw = { "content-type": "application/octet-stream", "content-encoding": "gzip" };
    const res = await post((async function* () { yield gzipSync(Buffer.alloc(8 * MiB)); })(), raw, "path=raw-bomb.bin");
    expect(res.status).toBe(507);
    expect(existsSync(host("/home/user/raw-bomb.bin"))).toBe(false);
    const notGzip = await post((async function* () { yield Buffer.from("plain"); })(), raw, "path=plain.txt");
    expect(notGzip.status).toBe(400);
    expect(JSON.parse(notGzip.body).message).toMatch(/^error decompressing request body: /);
  });
});
