/**
 * envd's plain HTTP operations (its envd.yaml) besides /health (gate.ts) and /files (files.ts):
 * GET /envs answers the sandbox's environment variables, envd's own included (./sandbox-env.ts); the operations the emulator does not serve
 * answer 501 naming the operation, in envd's error shape, so a client learns "not in the emulator"
 * rather than chi's "404 page not found". The control-plane routes (init, freeze, snapshots) never
 * get here: the proxy refuses them (control-plane.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SandboxRuntime } from "../types";
import { sendError, sendJson } from "./gate";
import { sandboxEnv } from "./sandbox-env";

/** `METHOD /path` of each envd.yaml operation the emulator does not serve. */
export const UNSERVED_ENVD_OPERATIONS: readonly string[] = [
  "GET /metrics",
  "POST /files/compose",
];

/** Paths of the Connect services, which are not envd.yaml's. */
export function isConnectPath(path: string): boolean {
  return /^\/(process\.Process|filesystem\.Filesystem)\//.test(path);
}

/** Answers GET /envs and the unserved operations; returns false for anything else. */
export function serveEnvdHttp(req: IncomingMessage, res: ServerResponse, runtime: SandboxRuntime): boolean {
  const operation = `${req.method ?? "GET"} ${(req.url ?? "/").split("?")[0]}`;
  if (operation === "GET /envs") {
    sendJson(res, 200, sandboxEnv(runtime));
    return true;
  }
  if (UNSERVED_ENVD_OPERATIONS.includes(operation)) {
    sendError(res, 501, `${operation} is not implemented by the emulator`);
    return true;
  }
  return false;
}
