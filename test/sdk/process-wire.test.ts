/**
 * The process client's wire behaviour against a real Connect peer (test/sdk/peer), under each codec
 * (binary, the default, and JSON): headers on the wire, and the broken answers the emulator never
 * gives (streams without start or end, split UTF-8, envd's plain 401, the proxy's 502, a closed port).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RPC_CODECS, type RpcCodec } from "../../sdk/config";
import { ProcessClient } from "../../sdk/in-sandbox/process";
import { throwIfFailed, type RunResult } from "../../sdk/in-sandbox/process-run";
import { startPeer, type Peer, type Reply } from "./envd-peer";
import { memoryProbe } from "./memory-probe";

const ID = "sbxwire1";
const TOKEN = "wire-token-0123456789";
let peer: Peer;

beforeAll(async () => {
  peer = await startPeer({ sandboxID: ID, token: TOKEN });
});
afterAll(() => peer.close());

async function* replies(...items: Reply[]): AsyncIterable<Reply> {
  yield* items;
}
const start = (pid: number): Reply => ({ event: { event: { case: "start", value: { pid } } } });
const stdout = (b: Uint8Array): Reply => ({ event: { event: { case: "data", value: { output: { case: "stdout", value: b } } } } });
const end = (exitCode: number): Reply => ({ event: { event: { case: "end", value: { exitCode, exited: true, status: `exit status ${exitCode}` } } } });

/** Content types of each codec, streams and unary calls (the Connect protocol's). */
const CONTENT_TYPES: Record<RpcCodec, { stream: string; unary: string }> = {
  binary: { stream: "application/connect+proto", unary: "application/proto" },
  json: { stream: "application/connect+json", unary: "application/json" },
};

describe.each(RPC_CODECS)("codec %s", (rpcCodec) => {
  const types = CONTENT_TYPES[rpcCodec];
  let client: ProcessClient;
  beforeAll(() => {
    client = new ProcessClient({ sandboxID: ID, envdAccessToken: TOKEN, options: { sandboxUrl: peer.url, rpcCodec } });
  });
  const other = (sandboxID: string, envdAccessToken?: string, sandboxUrl = peer.url) =>
    new ProcessClient({ sandboxID, envdAccessToken, options: { sandboxUrl, rpcCodec } });

  describe("headers", () => {
    it("sends routing, protocol, token, user, keepalive, timeout and user-agent headers on Start", async () => {
      await client.run("true", { user: "root", timeoutMs: 12_345 });
      const h = peer.lastHeaders("/process.Process/Start");
      expect(h["connect-protocol-version"]).toBe("1");
      expect(h["content-type"]).toBe(types.stream);
      expect(h["x-access-token"]).toBe(TOKEN);
      expect(h.authorization).toBe("Basic cm9vdDo=");
      expect(h["keepalive-ping-interval"]).toBe("50");
      expect(h["connect-timeout-ms"]).toBe("12345");
      expect(h["user-agent"]).toMatch(/^pulumi-sandbox\/\d+\.\d+\.\d+/);
      expect(h["e2b-sandbox-id"]).toBe(ID);
      expect(h["e2b-sandbox-port"]).toBe("49983");
    });

    it(`sends no keepalive or user header on a unary call, and ${rpcCodec} content`, async () => {
      await client.list();
      const h = peer.lastHeaders("/process.Process/List");
      expect(h["content-type"]).toBe(types.unary);
      expect(h["keepalive-ping-interval"]).toBeUndefined();
      expect(h.authorization).toBeUndefined();
      expect(h["connect-timeout-ms"]).toBe("60000");
    });

    it("sends no Connect-Timeout-Ms when timeoutMs is 0", async () => {
      await client.run("true", { timeoutMs: 0 });
      expect(peer.lastHeaders("/process.Process/Start")["connect-timeout-ms"]).toBeUndefined();
    });
  });

  describe("broken streams", () => {
    it("fails when the first message is not a start event", async () => {
      peer.options.startOverride = () => replies(stdout(new Uint8Array([104, 105])), end(0));
      try {
        await expect(client.run("x")).rejects.toMatchObject({
          code: "invalid_response",
          message: 'The process stream did not open with a start event: expected a start event, got "stdout".',
        });
      } finally {
        peer.options.startOverride = undefined;
      }
    });

    it("fails with process_failed, not success, when the stream ends without an end event", async () => {
      peer.options.startOverride = () => replies(start(77), stdout(new TextEncoder().encode("partial\n")));
      try {
        const err = await client.run("x").catch((e: unknown) => e);
        expect(err).toMatchObject({ code: "process_failed", pid: 77, stdoutTail: "partial\n" });
        expect((err as Error).message).toBe(
          `Process 77 in sandbox ${ID} ended without a result: the stream closed before an end event, so the exit code ` +
            "is unknown. The connection may have dropped or the sandbox stopped.",
        );
      } finally {
        peer.options.startOverride = undefined;
      }
    });

    it("fails with process_failed on an empty stream", async () => {
      peer.options.startOverride = () => replies();
      try {
        await expect(client.run("x")).rejects.toMatchObject({ code: "process_failed", message: expect.stringMatching(/^The process in sandbox/) });
      } finally {
        peer.options.startOverride = undefined;
      }
    });

    it("decodes a character split across chunks without breaking it, and treats a missing exitCode as 0", async () => {
      const euro = new TextEncoder().encode("€uro");
      peer.options.startOverride = () =>
        replies(start(5), stdout(euro.subarray(0, 1)), stdout(euro.subarray(1, 2)), stdout(euro.subarray(2)), {
          event: { event: { case: "end", value: { exited: true, status: "exit status 0" } } },
        });
      try {
        const chunks: string[] = [];
        const res = await client.run("x", { onStdout: (t) => chunks.push(t) });
        expect(chunks.join("")).toBe("€uro");
        expect(chunks.join("")).not.toContain("\uFFFD");
        expect(res).toMatchObject({ exitCode: 0, pid: 5, stdoutTail: "€uro", stdoutBytes: 6 });
      } finally {
        peer.options.startOverride = undefined;
      }
    });
  });

  describe("Connect errors (JSON under either codec: the unary error body, the end-of-stream message)", () => {
    it("maps a unary error to its code with the service's message", async () => {
      const err = (await client.sendSignal(424242, "SIGTERM").catch((e: unknown) => e)) as Error & { code: string; service: unknown };
      expect(err.code).toBe("not_found");
      expect(err.message).toBe(`SendSignal SIGTERM pid 424242 on sandbox ${ID} failed (not_found): process with pid 424242 not found`);
      expect(err.service).toEqual({ code: "not_found", message: "process with pid 424242 not found" });
      expect(await client.kill(424242)).toBe(false);
    });

    it("maps an error in the end-of-stream message after output to the command's error, output kept", async () => {
      async function* failing(): AsyncIterable<Reply> {
        yield start(8);
        yield stdout(new TextEncoder().encode("so far\n"));
        throw new ConnectError("context deadline exceeded", Code.DeadlineExceeded);
      }
      peer.options.startOverride = () => failing();
      try {
        const err = await client.run("x", { timeoutMs: 5000 }).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: "timeout", pid: 8, stdoutTail: "so far\n", service: { code: "deadline_exceeded", message: "context deadline exceeded" } });
        expect((err as Error).message).toMatch(/^The command did not finish within its timeout of 5000 ms/);
      } finally {
        peer.options.startOverride = undefined;
      }
    });
  });

  describe("answers that are not Connect errors", () => {
    it("maps envd's plain 401 to unauthenticated without leaking a token, on streams and unary calls", async () => {
      const wrong = other(ID, "wrong-token-abcdef");
      const none = other(ID);
      for (const call of [() => wrong.run("true"), () => none.run("true"), () => wrong.list()]) {
        const err = (await call().catch((e: unknown) => e)) as Error & { code: string };
        expect(err.code).toBe("unauthenticated");
        expect(err.message).toContain("the access token is missing or wrong");
        expect(err.message).toContain("envdAccessToken (sent as X-Access-Token)");
        expect(err.message).not.toContain("wrong-token-abcdef");
        expect(err.message).not.toContain(TOKEN);
      }
    });

    it("maps the proxy's 502 for an unknown sandbox to unavailable: not running anymore", async () => {
      const ghost = other("sbxghost");
      const err = (await ghost.run("true").catch((e: unknown) => e)) as Error & { code: string };
      expect(err.code).toBe("unavailable");
      expect(err.message).toMatch(/^Sandbox sbxghost is probably not running anymore\. /);
      expect(err.message).toContain("sandbox sbxghost is not running or was not found (the sandbox proxy answered 502)");
      await expect(ghost.list()).rejects.toMatchObject({ code: "unavailable", status: 502 });
    });

    it("reports a closed port as unavailable, naming the address", async () => {
      const closed = other(ID, undefined, "http://127.0.0.1:1");
      const err = (await closed.list().catch((e: unknown) => e)) as Error & { code: string };
      expect(err.code).toBe("unavailable");
      expect(err.message).toContain(`List could not reach the in-sandbox API of sandbox ${ID} at http://127.0.0.1:1`);
    });
  });

  describe("memory", () => {
    it("holds neither text nor bytes of a 50 MB output", async () => {
      const size = 50 * 1024 * 1024;
      await client.run("head -c 1000000 /dev/zero"); // warm up code paths and buffer pools
      const probe = memoryProbe();
      let chars = 0;
      const res = await client.run(`head -c ${size} /dev/zero | tr '\\0' y`, {
        onStdout: (t) => {
          chars += t.length;
          probe.sample(t.length);
        },
      });
      const growth = probe.growth();
      expect(chars).toBe(size);
      expect(res).toMatchObject({ exitCode: 0, stdoutBytes: size, stdoutTail: "y".repeat(65536) });
      expect(growth.samples).toBeGreaterThanOrEqual(9);
      expect(growth.heapUsed).toBeLessThan(size / 10);
      // In flight between child, peer, sockets and client: a few MB, more on a loaded machine (16 MB
      // was seen in CI), the same for 50 MB or 200 MB. A client that kept the chunks holds >= 50 MB.
      expect(growth.arrayBuffers).toBeLessThan(size / 2);
    });
  });
});

describe("throwIfFailed", () => {
  const base: RunResult = { exitCode: 0, stdoutTail: "", stderrTail: "", stdoutBytes: 0, stderrBytes: 0, durationMs: 1, pid: 9, status: "exit status 0" };

  it("returns a successful result", () => {
    expect(throwIfFailed(base)).toBe(base);
  });

  it("names a kill by signal, quotes the end of the output and scrubs secrets", () => {
    const killed = { ...base, exitCode: -1, status: "signal: killed", stdoutTail: `token=${TOKEN}\n` };
    expect(() => throwIfFailed(killed, [TOKEN])).toThrow(
      "The command (pid 9) was killed by a signal (signal: killed); its output ended with:\ntoken=[redacted]",
    );
    expect(() => throwIfFailed({ ...base, exitCode: 1 })).toThrow("The command (pid 9) exited with code 1.");
  });
});
