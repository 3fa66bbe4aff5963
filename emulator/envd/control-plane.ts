/**
 * envd's control-plane routes (/init, the freeze and snapshot hooks, /upgrade) are the
 * orchestrator's, reached at the sandbox's own address and never through the sandbox URL. The
 * proxy answers a request for one with 404 "reserved for the E2B control plane", whatever the
 * method and before it looks the sandbox up, so the answer says nothing of which sandboxes exist
 * (infra: packages/orchestrator/pkg/proxy/proxy.go; the paths from
 * packages/orchestrator/pkg/sandbox/envd/internal_routes.go and internal_routes.gen.go; the body
 * from packages/shared/pkg/proxy/template/internal_route.go).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { posix } from "node:path";
import { ENVD_PORT, sendJson, type SandboxTarget } from "./gate";

/** The envd paths the proxy keeps for the control plane. */
export const CONTROL_PLANE_PATHS: readonly string[] = ["/collapse", "/freeze", "/fsfreeze", "/fsthaw", "/init", "/unfreeze", "/upgrade"];
export const CONTROL_PLANE_MESSAGE = "This endpoint is reserved for the E2B control plane and is not reachable through the sandbox URL";

/** Answers 404 when the request is for a control-plane route of envd; returns true when it did. */
export function refuseControlPlane(req: IncomingMessage, res: ServerResponse, target: SandboxTarget): boolean {
  if (target.port !== ENVD_PORT) return false;
  const path = decodedPath(req.url ?? "/");
  // Cleaned as Go's path.Clean does, so /init/, //init and /files/../init are refused too.
  const cleaned = posix.normalize(path).replace(/(.)\/+$/, "$1").replace(/^\/+/, "/");
  if (!CONTROL_PLANE_PATHS.includes(cleaned)) return false;
  sendJson(res, 404, { message: CONTROL_PLANE_MESSAGE, path, code: 404 });
  return true;
}

function decodedPath(url: string): string {
  const raw = url.split("?")[0] ?? "/";
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
