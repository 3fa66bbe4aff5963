/**
 * The emulator's envd on the wire, read as raw HTTP: the Connect JSON envelopes the official SDK
 * parses (zero values omitted, bytes in base64, errors in the end-stream message), unary errors,
 * the binary codec, and back-pressure seen from a client that stops reading.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelope, envelopes, rawRequest, startBench, type Bench, type Envelope } from "./envd-harness";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
  await bench.sandbox("iwire");
});
afterAll(() => bench.close());

const streamHeaders = (extra: Record<string, string> = {}) => ({
  "content-type": "application/connect+json",
  "connect-protocol-version": "1",
  "e2b-sandbox-id": "iwire",
  ...extra,
});

function startBody(script: string): Buffer {
  return envelope({ process: { cmd: "/bin/bash", args: ["-c", script] }, stdin: false });
}

async function allEnvelopes(script: string, headers: Record<string, string> = {}): Promise<Envelope[]> {
  const res = await rawRequest(bench, { path: "/process.Process/Start", headers: streamHeaders(headers), body: startBody(script) });
  expect(res.statusCode).toBe(200);
  expect(res.headers["content-type"]).toBe("application/connect+json");
  const out: Envelope[] = [];
  for await (const e of envelopes(res)) out.push(e);
  return out;
}

const json = (e: Envelope | undefined): unknown => JSON.parse(e?.data.toString("utf8") ?? "null");

describe("Start over Connect JSON", () => {
  it("sends the events as envd's protojson: base64 bytes, no exitCode on success, an empty end-stream", async () => {
    const out = await allEnvelopes("printf hi");
    expect(out.map((e) => e.flags)).toEqual([0, 0, 0, 2]);
    expect(json(out[0])).toEqual({ event: { start: { pid: expect.any(Number) } } });
    expect(json(out[1])).toEqual({ event: { data: { stdout: Buffer.from("hi").toString("base64") } } });
    expect(json(out[2])).toEqual({ event: { end: { exited: true, status: "exit status 0" } } });
    expect(json(out[3])).toEqual({});
  });

  it("writes a failed exit with exitCode and error", async () => {
    const out = await allEnvelopes("exit 2");
    expect(json(out[1])).toEqual({ event: { end: { exitCode: 2, exited: true, status: "exit status 2", error: "exit status 2" } } });
  });

  it("ends a timed-out process with deadline_exceeded in the end-stream message", async () => {
    const out = await allEnvelopes("sleep 30", { "connect-timeout-ms": "800" });
    const last = out.at(-1);
    expect(last?.flags).toBe(2);
    expect(json(last)).toMatchObject({ error: { code: "deadline_exceeded", message: "context deadline exceeded" } });
  });

  it("answers a unary error with the Connect JSON error body and status", async () => {
    const res = await rawRequest(bench, {
      path: "/process.Process/SendSignal",
      headers: { "content-type": "application/json", "e2b-sandbox-id": "iwire" },
      body: JSON.stringify({ process: { pid: 99999999 }, signal: "SIGNAL_SIGKILL" }),
    });
    expect(res.statusCode).toBe(404);
    let text = "";
    for await (const chunk of res) text += String(chunk);
    expect(JSON.parse(text)).toEqual({ code: "not_found", message: "process with pid 99999999 not found" });
  });
});

describe("back-pressure", () => {
  it("holds a 200 MB writer back while the client stops reading, then delivers every byte", async () => {
    const total = 200 * 1024 * 1024;
    const marker = path.join(bench.dataDir, "sandboxes", "iwire", "home", "user", "wrote-all");
    const res = await rawRequest(bench, {
      path: "/process.Process/Start",
      headers: streamHeaders(),
      body: startBody(`head -c ${total} /dev/zero; touch wrote-all`),
    });
    const it = envelopes(res);
    expect(json((await it.next()).value)).toMatchObject({ event: { start: {} } });
    const before = process.memoryUsage().arrayBuffers;
    // Without back-pressure the emulator would read the child dry into memory in well under this.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await stat(marker).then(() => "wrote everything", () => "held back")).toBe("held back");
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(32 * 1024 * 1024);
    let received = 0;
    for await (const e of { [Symbol.asyncIterator]: () => it }) {
      const msg = json(e) as { event?: { data?: { stdout: string } } };
      if (msg.event?.data) received += Buffer.from(msg.event.data.stdout, "base64").length;
    }
    expect(received).toBe(total);
  });
});
