/**
 * A webhook receiver on loopback for the webhook tests: it records every request (headers and the
 * raw body) and answers each as `answer` says: a status, or `hang` (never answers).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the n-th request (0-based) gets; default 200 for all. */
  answer: (n: number) => number | "hang";
  close(): Promise<void>;
}

export async function startReceiver(answer: (n: number) => number | "hang" = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const receiver = { received, answer } as Receiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const n = received.length;
      received.push({ path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const reply = receiver.answer(n);
      if (reply !== "hang") res.writeHead(reply).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return receiver;
}
