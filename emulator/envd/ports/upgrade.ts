/**
 * Upgrades (WebSocket and the like) to a sandbox's port, which the service's proxy passes through
 * (Go's httputil.ReverseProxy switches protocols when the server answers 101). node:http hands an
 * upgrade request to the server's `upgrade` event with the bare socket; a ServerResponse is put on
 * that socket so the request then takes the same path as any other (the proxy's checks and answers,
 * then forward.ts, which joins the two streams once the server switched). Node 24.9 and later ask
 * `shouldUpgradeCallback` first, so only these requests become upgrades; older versions send every
 * upgrade request here, and the ones not for a sandbox's port are then served as plain requests.
 */
import { ServerResponse, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Socket } from "node:net";

/** True when the request asks to switch protocols (`Connection: upgrade` and an `Upgrade` header). */
export function isUpgrade(req: IncomingMessage): boolean {
  const connection = [req.headers.connection ?? []].flat().join(",").toLowerCase();
  return req.headers.upgrade !== undefined && connection.split(",").some((v) => v.trim() === "upgrade");
}

/** A response written onto an upgrade request's own socket; the socket closes after it. */
export function responseOn(req: IncomingMessage, socket: Duplex, head: Buffer): ServerResponse {
  if (head.length > 0) socket.unshift(head);
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.once("finish", () => socket.end());
  return res;
}

/** The server's 101 as raw HTTP (status line and headers as it sent them), for the client's socket. */
export function switchHead(answer: IncomingMessage): string {
  const lines = [`HTTP/1.1 ${answer.statusCode ?? 101} ${answer.statusMessage ?? "Switching Protocols"}`];
  for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}
