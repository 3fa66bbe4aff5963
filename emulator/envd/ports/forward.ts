/**
 * Passes one HTTP request to a server in a sandbox over a stream already connected to it, as the
 * service's reverse proxy does (infra: packages/shared/pkg/proxy/pool/client.go): the server sees
 * the Host the client asked for, or the sandbox's `maskRequestHost` (its `${PORT}` replaced by the
 * port) with the asked-for Host in `X-Forwarded-Host`. The proxy adds no other `X-Forwarded-*`
 * header and drops those the client sent (Go's ReverseProxy with a Rewrite function does), and the
 * hop-by-hop headers go no further in either direction. A failure before the server answered is
 * the closed-port answer, as the service's error handler gives it. An upgrade request keeps its
 * `Connection: Upgrade` and `Upgrade`, and a server that switches gets the client's socket joined
 * to its own.
 */
import { request, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { sendRefusal } from "./answers";
import { isUpgrade, switchHead } from "./upgrade";

/** Never forwarded: hop-by-hop (RFC 9110 7.6.1) and the forwarding headers the proxy owns. */
const DROPPED = new Set([
  "connection", "proxy-connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
  "transfer-encoding", "upgrade", "host", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto",
]);

/** Placeholder of `maskRequestHost` that stands for the requested port. */
const PORT_PLACEHOLDER = "${PORT}";

/** The Host the server sees and the X-Forwarded-Host it gets with it, if any. */
export function hostSeen(askedHost: string, port: number, maskRequestHost: string | undefined): { host: string; forwardedHost?: string } {
  if (!maskRequestHost) return { host: askedHost };
  return { host: maskRequestHost.replaceAll(PORT_PLACEHOLDER, String(port)), forwardedHost: askedHost };
}

function kept(raw: string[], extra: string[] = []): string[] {
  const named = new Set(extra);
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (DROPPED.has(lower) || named.has(lower)) continue;
    out.push(name, raw[i + 1] as string);
  }
  return out;
}

/** Headers named in `Connection` are hop-by-hop too. */
function connectionNames(value: string | string[] | undefined): string[] {
  return [value ?? []].flat().flatMap((v) => v.split(",")).map((v) => v.trim().toLowerCase()).filter(Boolean);
}

export interface ForwardTarget {
  sandboxID: string;
  port: number;
  maskRequestHost?: string | undefined;
}

/** Forwards `req` over `socket` and streams the server's answer back. */
export function forward(req: IncomingMessage, res: ServerResponse, socket: Socket, target: ForwardTarget): void {
  const asked = req.headers.host ?? "";
  const seen = hostSeen(asked, target.port, target.maskRequestHost);
  const upgrade = isUpgrade(req) ? ["Connection", "Upgrade", "Upgrade", String(req.headers.upgrade)] : [];
  const passed = kept(req.rawHeaders, connectionNames(req.headers.connection));
  const headers = ["Host", seen.host, ...(seen.forwardedHost !== undefined ? ["X-Forwarded-Host", seen.forwardedHost] : []), ...upgrade, ...passed];
  const out = request({ method: req.method ?? "GET", path: req.url ?? "/", headers, createConnection: () => socket, setHost: false });
  out.on("response", (answer) => {
    const names = connectionNames(answer.headers.connection);
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, kept(answer.rawHeaders, names));
    answer.pipe(res);
    answer.on("error", () => res.destroy());
  });
  out.on("upgrade", (answer, upstream, head) => {
    const client = res.socket;
    if (!client) return void upstream.destroy();
    client.write(switchHead(answer));
    if (head.length > 0) client.write(head);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    upstream.pipe(client).on("close", () => upstream.destroy());
    client.pipe(upstream);
  });
  out.on("error", () => {
    if (res.headersSent) return void res.destroy();
    sendRefusal(req, res, target.sandboxID, { kind: "portClosed", port: target.port });
  });
  // A client gone (or a sandbox stopped, which cuts the response) ends the server's side too.
  res.on("close", () => {
    if (!res.writableFinished) out.destroy();
    socket.destroy();
  });
  if (upgrade.length > 0) out.end();
  else req.pipe(out);
}
