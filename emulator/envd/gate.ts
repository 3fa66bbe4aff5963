/**
 * What stands in front of envd in the real service: the sandbox proxy and envd's own token check.
 * A request is for a sandbox when it carries `E2b-Sandbox-Id` (port from `E2b-Sandbox-Port`,
 * default 49983) or its Host's first label is `{port}-{sandboxID}`, or `{port}-{sandboxID}-{more}`
 * (the service's proxy takes the first two dash fields of the first label: infra
 * packages/shared/pkg/proxy/host.go). The answers are the proxy's and envd's, bodies included:
 * 502 for a sandbox that is not running (ports/answers.ts, HTML to a browser), 403 for a port
 * other than envd's without the sandbox's traffic access token when it has one, 401 plain JSON
 * (not a Connect error) for a missing or wrong envd access token.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { sameSecret } from "../auth";
import type { ResumeRequest, SandboxRuntime } from "../types";
import { sendRefusal, TRAFFIC_TOKEN_HEADER } from "./ports/answers";

/** envd's port inside every sandbox. */
export const ENVD_PORT = 49983;

export interface SandboxTarget {
  sandboxID: string;
  port: number;
}

/** A request header's (first) value. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The sandbox and port a request is addressed to, or undefined when it is not for a sandbox. */
export function targetOf(req: IncomingMessage): SandboxTarget | undefined {
  const byHeader = header(req, "e2b-sandbox-id");
  if (byHeader !== undefined) {
    const port = Number(header(req, "e2b-sandbox-port") ?? ENVD_PORT);
    return { sandboxID: byHeader, port: Number.isInteger(port) ? port : ENVD_PORT };
  }
  const label = /^(\d+)-([a-z0-9]+)(?:-[^.]*)?\./i.exec(header(req, "host") ?? "");
  if (!label?.[1] || !label[2]) return undefined;
  return { sandboxID: label[2], port: Number(label[1]) };
}

/** Sends a JSON body as envd and the proxy do. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Sends envd's own JSON error `{code, message}` (Go's json.Encoder ends it with a newline). */
export function sendError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "x-content-type-options": "nosniff" });
  res.end(`${JSON.stringify({ code: status, message })}\n`);
}

/**
 * Answers the request if the sandbox proxy would before reaching the port (502: not running; 403:
 * the traffic token, which guards every port but envd's, whose own token guards it); returns true
 * when it did. `runtime` is the directory's answer for the target (undefined: not running).
 */
export function refuseAtProxy(req: IncomingMessage, res: ServerResponse, target: SandboxTarget, runtime: SandboxRuntime | undefined): boolean {
  if (!runtime) {
    sendRefusal(req, res, target.sandboxID, { kind: "notFound" });
    return true;
  }
  const token = runtime.trafficAccessToken;
  if (!token || target.port === ENVD_PORT) return false;
  const given = header(req, TRAFFIC_TOKEN_HEADER);
  if (given && sameSecret(given, token)) return false;
  sendRefusal(req, res, target.sandboxID, { kind: given ? "tokenInvalid" : "tokenMissing" });
  return true;
}

/** The credentials a request shows, for the auto-resume of a paused sandbox (types.ts). */
export function resumeRequestOf(req: IncomingMessage, target: SandboxTarget): ResumeRequest {
  return { port: target.port, envdAccessToken: header(req, "x-access-token"), trafficAccessToken: header(req, TRAFFIC_TOKEN_HEADER) };
}

/**
 * The proxy's answer when a paused sandbox is not resumed for the request: its credentials do not
 * allow it, or the team is at its concurrent-sandbox limit.
 */
export function refuseResume(req: IncomingMessage, res: ServerResponse, target: SandboxTarget, why: "denied" | { kind: "limit"; message: string }): void {
  sendRefusal(req, res, target.sandboxID, why === "denied" ? { kind: "resumeDenied" } : { kind: "teamLimit", message: why.message });
}

/** Answers the request if envd's middleware would (health, token check); returns true when it did. */
export function refuseAtEnvd(req: IncomingMessage, res: ServerResponse, runtime: SandboxRuntime): boolean {
  const path = (req.url ?? "/").split("?")[0];
  if (req.method === "GET" && path === "/health") {
    res.writeHead(204).end();
    return true;
  }
  // /files checks its own signed URLs or token (./signing.ts), as envd's authExcludedPaths say.
  if ((req.method === "GET" || req.method === "POST") && path === "/files") return false;
  const token = runtime.envdAccessToken;
  if (runtime.secure && (token === null || !sameSecret(header(req, "x-access-token"), token))) {
    sendError(res, 401, "unauthorized access, please provide a valid access token or method signing if supported");
    return true;
  }
  return false;
}

/** The part of an HTTP/1 or HTTP/2 response notFound writes to. */
interface PlainResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(text: string): unknown;
}

/** envd's answer for a path it does not serve (chi's plain-text 404). */
export function notFound(_req: unknown, res: PlainResponse): void {
  res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
  res.end("404 page not found\n");
}
