// The three ways to create a sandbox, run `echo hi` in it and kill it: our sdk, the official `e2b` SDK,
// and bare requests (the bound: undici with a keep-alive pool, exactly three requests, no parsing
// beyond what the answer needs).
import { createRequire } from "node:module";
import { Agent, request } from "undici";

const require = createRequire(import.meta.url);
const SANDBOX_SECONDS = 300;

/** Our sdk: one PlatformClient for the whole run, one ProcessClient per sandbox. */
export function ours(svc) {
  const { PlatformClient, ProcessClient } = require("pulumi-sandbox/sdk");
  const platform = new PlatformClient({ apiKey: svc.apiKey, apiUrl: svc.apiUrl, sandboxUrl: svc.sandboxUrl });
  return {
    create: (templateID = "base") => platform.sandboxes.create({ templateID, timeout: SANDBOX_SECONDS }),
    run: async (sbx, command, opts = {}) => {
      const proc = new ProcessClient({ sandboxID: sbx.sandboxID, envdAccessToken: sbx.envdAccessToken, options: { sandboxUrl: svc.sandboxUrl } });
      const r = await proc.run(command, { timeoutMs: 0, ...opts });
      return { exitCode: r.exitCode, stdoutBytes: r.stdoutBytes };
    },
    kill: (sbx) => platform.sandboxes.kill(sbx.sandboxID),
    close: () => platform.close(),
  };
}

/** The official SDK as its README shows it: Sandbox.create, sandbox.commands.run, sandbox.kill. */
export async function official(svc) {
  const { Sandbox } = await import("e2b");
  const conn = { apiKey: svc.apiKey, apiUrl: svc.apiUrl, sandboxUrl: svc.sandboxUrl };
  return {
    create: (templateID = "base") => Sandbox.create(templateID, { ...conn, timeoutMs: SANDBOX_SECONDS * 1000 }),
    run: async (sbx, command, opts = {}) => {
      const r = await sbx.commands.run(command, { timeoutMs: 0, ...opts });
      return { exitCode: r.exitCode, stdoutBytes: Buffer.byteLength(r.stdout) };
    },
    kill: (sbx) => sbx.kill(),
    close: async () => undefined,
  };
}

/** Bare requests: POST /sandboxes, one Connect server-stream call to process.Process/Start, DELETE. */
export function bare(svc) {
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  const json = async (res) => (res.statusCode === 204 ? undefined : res.body.json());
  const ok = (res, what) => {
    if (res.statusCode >= 300) throw new Error(`${what}: HTTP ${res.statusCode}`);
    return res;
  };
  return {
    create: async (templateID = "base") => {
      const body = JSON.stringify({ templateID, timeout: SANDBOX_SECONDS });
      const headers = { "x-api-key": svc.apiKey, "content-type": "application/json" };
      return json(ok(await request(`${svc.apiUrl}/sandboxes`, { method: "POST", headers, body, dispatcher: agent }), "create"));
    },
    run: async (sbx, command) => {
      const msg = Buffer.from(JSON.stringify({ process: { cmd: "/bin/bash", args: ["-l", "-c", command] }, stdin: false }));
      const envelope = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), msg]);
      envelope.writeUInt32BE(msg.length, 1);
      const headers = {
        "content-type": "application/connect+json",
        "connect-protocol-version": "1",
        "e2b-sandbox-id": sbx.sandboxID,
        "e2b-sandbox-port": "49983",
        ...(sbx.envdAccessToken ? { "x-access-token": sbx.envdAccessToken } : {}),
      };
      const res = ok(await request(`${svc.sandboxUrl}/process.Process/Start`, { method: "POST", headers, body: envelope, dispatcher: agent }), "run");
      return readProcessStream(res.body);
    },
    kill: async (sbx) => {
      const headers = { "x-api-key": svc.apiKey };
      await json(ok(await request(`${svc.apiUrl}/sandboxes/${sbx.sandboxID}`, { method: "DELETE", headers, dispatcher: agent }), "kill"));
    },
    close: () => agent.close(),
  };
}

/** Reads Connect envelopes (5-byte header + JSON) to the end; counts stdout bytes, returns the exit code. */
async function readProcessStream(body) {
  let buf = Buffer.alloc(0);
  let exitCode;
  let stdoutBytes = 0;
  for await (const chunk of body) {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (buf.length >= 5 && buf.length >= 5 + buf.readUInt32BE(1)) {
      const len = buf.readUInt32BE(1);
      const ev = JSON.parse(buf.subarray(5, 5 + len).toString()).event;
      buf = buf.subarray(5 + len);
      if (ev?.data?.stdout) stdoutBytes += Buffer.byteLength(ev.data.stdout, "base64");
      if (ev?.end) exitCode = ev.end.exitCode ?? 0;
    }
  }
  return { exitCode, stdoutBytes };
}

export const CLIENTS = { ours, official, bare };
