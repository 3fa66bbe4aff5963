/**
 * The in-sandbox ("envd") API of the emulator. STUB until the in-sandbox issue lands: every
 * in-sandbox request answers 501, so the platform server can already route to it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SandboxDirectory } from "../types";

export interface EnvdOptions {
  directory: SandboxDirectory;
}

export interface EnvdHandler {
  /** True when the request is for the in-sandbox API (routing header, host label or RPC path). */
  matches(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Ends every process; called when the emulator stops. */
  close(): Promise<void>;
}

export function createEnvdHandler(_options: EnvdOptions): EnvdHandler {
  return {
    matches: (req) => req.headers["e2b-sandbox-id"] !== undefined || /^\d+-[a-z0-9]+\./.test(req.headers.host ?? ""),
    handle: (_req, res) => {
      res.writeHead(501, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: 501, message: "the emulator's in-sandbox API is not built yet" }));
    },
    close: async () => {},
  };
}
