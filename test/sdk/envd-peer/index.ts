/**
 * A small REAL Connect server standing in for envd in the sdk's wire tests: the generated service
 * descriptors served by connectNodeAdapter, commands run as real child processes, files in a temp
 * dir. In front of it, the two non-Connect answers of the real service: the proxy's 502 for an
 * unknown sandbox and envd's plain-JSON 401 for a wrong access token. It records every request's
 * headers, and a test can replace Start's reply to produce broken streams.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Filesystem } from "../../../sdk/gen/filesystem/filesystem_pb";
import { Process } from "../../../sdk/gen/process/process_pb";
import { filesystemService } from "./filesystem";
import { processService, ProcessTable, type StartOverride } from "./process";

export type { Reply } from "./process";

export interface PeerOptions {
  /** The one sandbox ID the "proxy" knows; any other gets the 502 body. */
  sandboxID: string;
  /** When set, requests need `X-Access-Token: token` or get envd's plain 401. */
  token?: string;
  /** Replaces Start's reply for one test (broken streams). */
  startOverride?: StartOverride;
}

export interface Peer {
  /** Base URL to use as `sandboxUrl`. */
  url: string;
  /** Host dir standing for the sandbox's `/`. */
  root: string;
  /** Path and headers of every request, in arrival order. */
  requests: { path: string; headers: IncomingHttpHeaders }[];
  options: PeerOptions;
  /** Headers of the latest request to `path`; throws if there was none. */
  lastHeaders(path: string): IncomingHttpHeaders;
  close(): Promise<void>;
}

/** Starts the peer on 127.0.0.1:0. */
export async function startPeer(options: PeerOptions): Promise<Peer> {
  const root = await mkdtemp(join(tmpdir(), "envd-peer-"));
  const procs = new ProcessTable();
  const handler = connectNodeAdapter({
    routes: (router: ConnectRouter) => {
      router.service(Process, processService(procs, (req) => options.startOverride?.(req)));
      router.service(Filesystem, filesystemService(root));
    },
  });
  const requests: Peer["requests"] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ path: req.url ?? "", headers: req.headers });
    if (!refused(options, req, res)) handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    root,
    requests,
    options,
    lastHeaders(path) {
      const hit = requests.filter((r) => r.path === path).at(-1);
      if (!hit) throw new Error(`no request to ${path}`);
      return hit.headers;
    },
    close: async () => {
      procs.killAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The proxy's and envd's own refusals, in the order the real service applies them; true if one was sent. */
function refused(options: PeerOptions, req: IncomingMessage, res: ServerResponse): boolean {
  const id = req.headers["e2b-sandbox-id"];
  if (id !== options.sandboxID) {
    res.writeHead(502, { "content-type": "application/json" });
    res.end(JSON.stringify({ sandboxId: id, message: "The sandbox was not found", code: 502 }));
    return true;
  }
  if (options.token && req.headers["x-access-token"] !== options.token) {
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ code: 401, message: "unauthorized access, please provide a valid access token or method signing if supported" }));
    return true;
  }
  return false;
}
