/**
 * Every Connect method of envd's protos (test/contract/envd-protos.contract.json, so a method envd
 * adds shows up here) answers the emulator per the Connect protocol in both codecs, and alike in
 * both: the response's content type follows the request's codec; a unary error is a JSON body
 * `{code, message}` with the HTTP status of its code, whatever the codec; a stream is enveloped and
 * ends with a JSON end-of-stream message. Each method gets an empty request message, so most answer
 * an error: that is the part of the protocol that is JSON even in binary.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";

type Codec = "binary" | "json";
interface Method {
  path: string;
  clientStreaming: boolean;
  serverStreaming: boolean;
}
/** What a call came to, comparable across codecs. */
interface Outcome {
  status: number;
  /** The Connect error code, or "ok". */
  code: string;
}

// The Connect protocol's code → HTTP status table (connectrpc.com/docs/protocol, docs/service.md#connect-wire-rules).
const HTTP_STATUS: Record<string, number> = {
  canceled: 499, unknown: 500, invalid_argument: 400, deadline_exceeded: 504, not_found: 404, already_exists: 409,
  permission_denied: 403, resource_exhausted: 429, failed_precondition: 400, aborted: 409, out_of_range: 400,
  unimplemented: 501, internal: 500, unavailable: 503, data_loss: 500, unauthenticated: 401,
};

interface ProtoContract {
  files: { package: string; service?: { name: string; method: { name: string; clientStreaming?: boolean; serverStreaming?: boolean }[] }[] }[];
}
const contract = JSON.parse(readFileSync(join(__dirname, "envd-protos.contract.json"), "utf8")) as ProtoContract;
const METHODS: Method[] = contract.files.flatMap((f) =>
  (f.service ?? []).flatMap((s) =>
    s.method.map((m) => ({ path: `/${f.package}.${s.name}/${m.name}`, clientStreaming: !!m.clientStreaming, serverStreaming: !!m.serverStreaming })),
  ),
);

let emu: Emulator;
const sandboxes: Partial<Record<Codec, string>> = {};
beforeAll(async () => {
  emu = await createEmulator();
  for (const codec of ["binary", "json"] as const) {
    const res = await fetch(`${emu.apiUrl}/sandboxes`, {
      method: "POST",
      headers: { "x-api-key": emu.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ templateID: "base" }),
    });
    sandboxes[codec] = ((await res.json()) as { sandboxID: string }).sandboxID;
  }
});
afterAll(() => emu?.close());

/** An empty message: no bytes in binary, `{}` in JSON; enveloped for streaming requests. */
function emptyRequest(codec: Codec, enveloped: boolean): Buffer {
  const message = Buffer.from(codec === "json" ? "{}" : "");
  if (!enveloped) return message;
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

function envelopesOf(body: Buffer): { flags: number; data: Buffer }[] {
  const out = [];
  for (let at = 0; at < body.length; ) {
    const size = body.readUInt32BE(at + 1);
    out.push({ flags: body[at] ?? 0, data: body.subarray(at + 5, at + 5 + size) });
    at += 5 + size;
  }
  return out;
}

/** Calls `method` with an empty message in `codec` and checks the answer's framing; returns its outcome. */
async function call(method: Method, codec: Codec): Promise<Outcome> {
  const streaming = method.clientStreaming || method.serverStreaming;
  const type = streaming ? `application/connect+${codec === "json" ? "json" : "proto"}` : `application/${codec === "json" ? "json" : "proto"}`;
  const res = await fetch(`${emu.sandboxUrl}${method.path}`, {
    method: "POST",
    headers: {
      "content-type": type,
      "connect-protocol-version": "1",
      "e2b-sandbox-id": sandboxes[codec]!,
      // WatchDir of the home dir would stay open: the deadline ends it.
      "connect-timeout-ms": "1500",
    },
    body: emptyRequest(codec, streaming),
  });
  const body = Buffer.from(await res.arrayBuffer());
  const contentType = res.headers.get("content-type");
  if (!streaming) {
    if (res.status === 200) {
      expect(contentType, method.path).toBe(type);
      return { status: 200, code: "ok" };
    }
    // An error of a unary call: JSON whatever the codec, with the status of its code.
    expect(contentType, method.path).toBe("application/json");
    const error = JSON.parse(body.toString("utf8")) as { code: string; message: string };
    expect(Object.keys(HTTP_STATUS), method.path).toContain(error.code);
    expect(res.status, `${method.path} ${error.code}`).toBe(HTTP_STATUS[error.code]);
    expect(typeof error.message).toBe("string");
    return { status: res.status, code: error.code };
  }
  expect(res.status, method.path).toBe(200);
  expect(contentType, method.path).toBe(type);
  const envelopes = envelopesOf(body);
  const last = envelopes.at(-1);
  expect(last?.flags, `${method.path}: the stream ends with an end-of-stream envelope`).toBe(2);
  expect(envelopes.slice(0, -1).every((e) => e.flags === 0)).toBe(true);
  if (method.clientStreaming && !method.serverStreaming && envelopes.length > 1) expect(envelopes.length).toBe(2);
  const end = JSON.parse(last!.data.toString("utf8")) as { error?: { code: string; message?: string } };
  if (end.error) expect(Object.keys(HTTP_STATUS), method.path).toContain(end.error.code);
  return { status: 200, code: end.error?.code ?? "ok" };
}

describe("each Connect method of envd answers per the protocol, alike in both codecs", () => {
  test("envd's protos have the methods of both services", () => {
    expect(METHODS.length).toBeGreaterThanOrEqual(17);
  });

  test.each(METHODS.map((m) => [m.path, m] as const))("%s", async (_path, method) => {
    const binary = await call(method, "binary");
    const json = await call(method, "json");
    expect(binary).toEqual(json);
  });
});
