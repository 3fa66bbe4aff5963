/**
 * The hand-written binary stream (sdk/transport/rpc-stream.ts) is the SandboxRpc's own path, as
 * connect-es's is: it runs the SandboxRpc's interceptors as unary calls do, and it goes over the
 * SandboxRpc's own connection pool, which `close()` closes, never over undici's global one. Against a
 * real Connect peer (test/sdk/envd-peer), under each codec where the codec matters.
 */
import type { Interceptor } from "@connectrpc/connect";
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RPC_CODECS } from "../../sdk/config";
import { ProcessClient } from "../../sdk/in-sandbox/process";
import { SandboxRpc } from "../../sdk/transport/rpc";
import { startPeer, type Peer } from "./envd-peer";

const ID = "sbxowned1";
const TOKEN = "owned-token-0123456789";
let peer: Peer;

beforeAll(async () => {
  peer = await startPeer({ sandboxID: ID, token: TOKEN });
});
afterAll(() => peer.close());

const rpcOf = (rpcCodec: "binary" | "json", interceptors?: Interceptor[]) =>
  new SandboxRpc({ sandboxID: ID, envdAccessToken: TOKEN, options: { sandboxUrl: peer.url, rpcCodec }, interceptors });

describe.each(RPC_CODECS)("codec %s", (rpcCodec) => {
  it("runs the caller's interceptors on a stream as on a unary call, after the sdk's own headers", async () => {
    const seen: string[] = [];
    const probe: Interceptor = (next) => async (req) => {
      seen.push(`${req.stream ? "stream" : "unary"} ${req.method.name} token=${req.header.get("x-access-token") === TOKEN}`);
      req.header.set("X-Probe", req.method.name);
      const res = await next(req);
      seen.push(`answered ${req.method.name}`);
      return res;
    };
    const rpc = rpcOf(rpcCodec, [probe]);
    try {
      const client = new ProcessClient(rpc);
      expect((await client.run("echo hi")).stdoutTail).toBe("hi\n");
      await client.list();
      expect(seen).toEqual(["stream Start token=true", "answered Start", "unary List token=true", "answered List"]);
      expect(peer.lastHeaders("/process.Process/Start")["x-probe"]).toBe("Start");
      expect(peer.lastHeaders("/process.Process/List")["x-probe"]).toBe("List");
    } finally {
      await rpc.close();
    }
  });

  it("fails a stream with the interceptor's own error, as connect-es does, before anything is sent", async () => {
    const before = peer.requests.length;
    const refuse: Interceptor = () => async () => {
      throw new Error("refused by the caller's interceptor");
    };
    const rpc = rpcOf(rpcCodec, [refuse]);
    try {
      await expect(new ProcessClient(rpc).run("true")).rejects.toMatchObject({
        code: "unknown",
        message: expect.stringContaining("refused by the caller's interceptor"),
      });
      expect(peer.requests.length).toBe(before);
    } finally {
      await rpc.close();
    }
  });
});

describe("codec binary: the stream's connection pool", () => {
  it("is the SandboxRpc's own: a stream works while undici's global pool refuses every connection", async () => {
    const global = getGlobalDispatcher();
    const refusing = new Agent({ connect: (_opts, callback) => callback(new Error("undici's global pool was used"), null) });
    setGlobalDispatcher(refusing);
    const rpc = rpcOf("binary");
    try {
      expect((await new ProcessClient(rpc).run("echo owned")).stdoutTail).toBe("owned\n");
    } finally {
      setGlobalDispatcher(global);
      await refusing.close();
      await rpc.close();
    }
  });

  it("is closed by close(): a stream after it fails without reaching the sandbox", async () => {
    const rpc = rpcOf("binary");
    const client = new ProcessClient(rpc);
    expect((await client.run("echo once")).stdoutTail).toBe("once\n");
    await rpc.close();
    const before = peer.requests.length;
    await expect(client.run("echo twice")).rejects.toMatchObject({ code: "unavailable" });
    expect(peer.requests.length).toBe(before);
  });
});
