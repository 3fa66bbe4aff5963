/**
 * Process Start and Connect in the binary codec are served by the emulator's own event encoder
 * (emulator/envd/process/binary-stream.ts), every other call by connect-node. These tests hold the
 * two to the same bytes: the encoder against protobuf-es at each varint width, and on the wire the
 * same request through both paths. A client that asks for a compression the emulator lacks (zstd)
 * is served by connect-node, which then compresses nothing: its answer is the reference.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createContextValues } from "@connectrpc/connect";
import { create, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binaryProcessStreams, encodeEvent } from "../../emulator/envd/process/binary-stream";
import { ConnectRequestSchema, ConnectResponseSchema, StartRequestSchema, StartResponseSchema, type ConnectResponse, type StartResponse } from "../../sdk/gen/process/process_pb";
import { envelopes, rawRequest, startBench, type Bench } from "./envd-harness";

function enveloped(flags: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

describe("the output event encoder", () => {
  // Each of the three nested lengths crosses a varint width somewhere in these sizes.
  const sizes = [
    ...Array.from({ length: 132 }, (_, i) => i),
    ...Array.from({ length: 20 }, (_, i) => 16_370 + i),
    32_768,
    65_536,
    ...Array.from({ length: 12 }, (_, i) => 2_097_142 + i),
  ];
  const schemas: [string, DescMessage][] = [
    ["StartResponse", StartResponseSchema],
    ["ConnectResponse", ConnectResponseSchema],
  ];

  it.each(schemas)("writes %s output events as protobuf-es does, at every length prefix width", (_, schema) => {
    for (const kind of ["stdout", "stderr", "pty"] as const) {
      for (const size of sizes) {
        const bytes = new Uint8Array(size).map((_, i) => i % 251);
        const message = create(schema, { event: { event: { case: "data", value: { output: { case: kind, value: bytes } } } } }) as StartResponse | ConnectResponse;
        const ours = Buffer.from(encodeEvent(schema, message));
        if (!ours.equals(enveloped(0, toBinary(schema, message)))) expect.fail(`${kind} of ${size} bytes differs from protobuf-es`);
      }
    }
  });

  it("writes the other events through protobuf-es", () => {
    const events = [
      { case: "start", value: { pid: 4242 } },
      { case: "end", value: { exitCode: -1, exited: false, status: "signal: killed", error: "signal: killed" } },
      { case: "keepalive", value: {} },
    ] as const;
    for (const event of events) {
      const message = create(StartResponseSchema, { event: { event } });
      expect(Buffer.from(encodeEvent(StartResponseSchema, message))).toEqual(enveloped(0, toBinary(StartResponseSchema, message)));
    }
  });
});

describe("which requests the encoder takes", () => {
  // A stand-in for the process service: what is tested here is only which requests are claimed.
  const impl = {
    async *start() {
      yield { event: { event: { case: "data" as const, value: { output: { case: "stdout" as const, value: new Uint8Array([104, 105]) } } } } };
    },
    async *connect() {},
  };
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const serve = binaryProcessStreams(impl, { interceptors: [], contextValues: () => createContextValues() });
    server = createServer((req, res) => {
      if (serve(req, res)) return;
      res.writeHead(599).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(`${url}${path}`, { method: "POST", headers, body: enveloped(0, new Uint8Array()) });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  };
  const proto = { "content-type": "application/connect+proto" };

  it("takes binary Start and Connect streams that ask for no compression", async () => {
    const started = await post("/process.Process/Start", proto);
    expect(started.status).toBe(200);
    // StartResponse{event: ProcessEvent{data: DataEvent{stdout: "hi"}}}, then an empty end-stream.
    expect(started.body).toEqual(Buffer.concat([enveloped(0, Buffer.from("0a0612040a026869", "hex")), enveloped(2, Buffer.from("{}"))]));
    expect((await post("/process.Process/Connect", { ...proto, "connect-accept-encoding": "identity" })).status).toBe(200);
  });

  it.each([
    ["the JSON codec", "/process.Process/Start", { "content-type": "application/connect+json" }],
    ["a unary content type", "/process.Process/Start", { "content-type": "application/proto" }],
    ["a compressed request", "/process.Process/Start", { ...proto, "connect-content-encoding": "gzip" }],
    ["a client accepting compression", "/process.Process/Start", { ...proto, "connect-accept-encoding": "gzip" }],
    ["another method", "/process.Process/List", proto],
  ])("leaves %s to connect-node", async (_, path, headers) => {
    expect((await post(path, headers)).status).toBe(599);
  });
});

describe("on the wire, alike through the encoder and through connect-node", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await startBench();
    await bench.sandbox("ibin");
  });
  afterAll(() => bench.close());

  const start = (process: object) => toBinary(StartRequestSchema, create(StartRequestSchema, { process, stdin: false }));
  const bash = (script: string) => start({ cmd: "/bin/bash", args: ["-c", script] });
  const basic = (user: string) => `Basic ${Buffer.from(`${user}:`).toString("base64")}`;

  interface Answer {
    status: number | undefined;
    headers: Record<string, unknown>;
    envelopes: { flags: number; data: string }[];
  }

  /** The answer with the parts that differ between any two runs (date, pid) taken out. */
  async function answer(path: string, body: Buffer, headers: Record<string, string>, viaAdapter: boolean): Promise<Answer> {
    const res = await rawRequest(bench, {
      path,
      headers: {
        "content-type": "application/connect+proto",
        "connect-protocol-version": "1",
        "e2b-sandbox-id": "ibin",
        ...(viaAdapter ? { "connect-accept-encoding": "zstd" } : {}),
        ...headers,
      },
      body,
    });
    const { date: _date, ...rest } = res.headers;
    const out: Answer = { status: res.statusCode, headers: rest, envelopes: [] };
    for await (const e of envelopes(res)) {
      const event = e.flags === 0 ? fromBinary(StartResponseSchema, e.data).event?.event : undefined;
      const data = event?.case === "start" ? `start pid ${event.value.pid > 0 ? "n" : event.value.pid}` : e.data.toString("hex");
      out.envelopes.push({ flags: e.flags, data });
    }
    return out;
  }

  const cases: [string, string, Buffer, Record<string, string>][] = [
    ["a command's events", "/process.Process/Start", enveloped(0, bash("printf 'b\\000in'; printf err >&2; exit 3")), {}],
    ["no cmd", "/process.Process/Start", enveloped(0, start({ cmd: "" })), {}],
    ["a cwd that does not exist", "/process.Process/Start", enveloped(0, start({ cmd: "/bin/true", cwd: "/nowhere" })), {}],
    ["an unknown user", "/process.Process/Start", enveloped(0, bash("true")), { authorization: basic("nobody") }],
    ["a malformed deadline", "/process.Process/Start", enveloped(0, bash("true")), { "connect-timeout-ms": "soon" }],
    // Long enough for the start event to come first on a loaded machine (at 300 ms one run had it and the other not).
    ["a deadline that passes", "/process.Process/Start", enveloped(0, bash("sleep 30")), { "connect-timeout-ms": "1500" }],
    ["no request message", "/process.Process/Start", Buffer.alloc(0), {}],
    ["two request messages", "/process.Process/Start", Buffer.concat([enveloped(0, bash("true")), enveloped(0, bash("true"))]), {}],
    ["a cut envelope", "/process.Process/Start", enveloped(0, bash("true")).subarray(0, 9), {}],
    [
      "Connect to a pid that does not exist",
      "/process.Process/Connect",
      enveloped(0, toBinary(ConnectRequestSchema, create(ConnectRequestSchema, { process: { selector: { case: "pid", value: 99_999_999 } } }))),
      {},
    ],
  ];

  it.each(cases)("%s", async (_, path, body, headers) => {
    const ours = await answer(path, body, headers, false);
    const reference = await answer(path, body, headers, true);
    expect(ours).toEqual(reference);
    expect(ours.status).toBe(200);
    expect(ours.envelopes.at(-1)?.flags).toBe(2);
  });

  it("delivers a long output as protobuf-es reads it, in envd's 32 KiB events", async () => {
    // How a pipe's reads fall differs from run to run, so this output is compared by its content.
    const res = await rawRequest(bench, {
      path: "/process.Process/Start",
      headers: { "content-type": "application/connect+proto", "e2b-sandbox-id": "ibin" },
      body: enveloped(0, bash("head -c 200000 /dev/zero | tr '\\0' a")),
    });
    let text = "";
    let largest = 0;
    for await (const e of envelopes(res)) {
      const event = e.flags === 0 ? fromBinary(StartResponseSchema, e.data).event?.event : undefined;
      if (event?.case !== "data" || event.value.output.case !== "stdout") continue;
      text += Buffer.from(event.value.output.value).toString();
      largest = Math.max(largest, event.value.output.value.length);
    }
    expect(text).toBe("a".repeat(200_000));
    expect(largest).toBeLessThanOrEqual(32_768);
  });

  it("leaves a unary content type to connect-node, which refuses it on a stream", async () => {
    const ours = await answer("/process.Process/Start", Buffer.from(bash("true")), { "content-type": "application/proto" }, false);
    expect(ours.status).toBe(415);
  });
});
