/**
 * A small real HTTP server for tests: a peer that answers as a test scripts it (429s, 503s, hangs,
 * dropped sockets), listening on 127.0.0.1 port 0 and recording every request it receives.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface Peer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** `handler` gets the request (body read), the response and the 1-based request count. */
export type PeerHandler = (req: SeenRequest, res: ServerResponse, n: number) => void;

export async function startPeer(handler: PeerHandler): Promise<Peer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const seen = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      requests.push(seen);
      handler(seen, res, requests.length);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** A port on 127.0.0.1 where nothing listens (a server was bound there and closed). */
export async function closedPort(): Promise<number> {
  const peer = await startPeer(() => undefined);
  const port = Number(new URL(peer.url).port);
  await peer.close();
  return port;
}
