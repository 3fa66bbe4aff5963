/**
 * What the sandbox-port tests share: a request through a sandbox's URL as the official SDK's
 * `getHost(port)` gives it (the domain `localhost:<emulator port>`, and `*.localhost` resolved to
 * loopback, as browsers do by RFC 6761), and a small HTTP server started in a sandbox with the
 * SDK's `commands.run` in the background.
 */
import { request } from "node:http";
import type { LookupFunction } from "node:net";
import type { Sandbox } from "e2b";

export interface Answer {
  status: number;
  type: string;
  text: string;
}

/** Every name resolves to 127.0.0.1: the names are `*.localhost`, which is loopback by definition. */
export const loopback: LookupFunction = (_name, options, callback) => {
  if ((options as { all?: boolean }).all) return void (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: "127.0.0.1", family: 4 }]);
  callback(null, "127.0.0.1", 4);
};

/** GET (or `method`) `url` with `headers`; the Host is the URL's unless `headers.host` says otherwise. */
export function get(url: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, lookup: loopback }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => void (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** The sandbox's URL for `port`, from the SDK. */
export function urlOf(sandbox: Sandbox, port: number, path = "/"): string {
  return `http://${sandbox.getHost(port)}${path}`;
}

/**
 * Starts, in the background, a node server in the sandbox on `host:port` that answers JSON with
 * `label`, the Host it saw, its X-Forwarded-Host and the path; resolves once it answers through
 * the sandbox's URL (at most about 10 s).
 */
export async function serve(sandbox: Sandbox, port: number, label: string, host = "0.0.0.0", headers: Record<string, string> = {}): Promise<void> {
  const script =
    "require('http').createServer((q, s) => { s.setHeader('content-type', 'application/json');" +
    " s.end(JSON.stringify({ label: process.argv[1], host: q.headers.host, forwardedHost: q.headers['x-forwarded-host'] ?? null, path: q.url })); })" +
    ".listen(Number(process.argv[2]), process.argv[3])";
  await sandbox.commands.run(`node -e "${script}" ${label} ${port} ${host}`, { background: true });
  for (let i = 0; i < 100; i++) {
    const answer = await get(urlOf(sandbox, port), headers);
    if (answer.status !== 502) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server on ${host}:${port} in ${sandbox.sandboxId} never answered`);
}
