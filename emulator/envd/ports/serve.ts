/**
 * A request for a sandbox port other than envd's, past the proxy's checks (../gate.ts): forwarded
 * to the server listening there in the sandbox, or the closed-port answer when none does after the
 * service's retries (dial-retry.ts). A port in the sandbox's `network.httpsPorts` is reached over
 * TLS, its certificate not verified (so a self-signed one works); the client's side stays as it was
 * (docs/service.md#sandbox-fields-of-the-newest-sdks).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { SandboxRuntime } from "../../types";
import type { SandboxState } from "../sandboxes";
import { sendRefusal } from "./answers";
import { isOwnDial } from "./dial";
import { dialWithRetries } from "./dial-retry";
import { forward } from "./forward";

export function servePort(req: IncomingMessage, res: ServerResponse, port: number, runtime: SandboxRuntime, state: SandboxState): void {
  const { sandboxID } = runtime;
  if (isOwnDial(req.socket)) return sendRefusal(req, res, sandboxID, { kind: "portClosed", port });
  state.track(res);
  const closed = () => sendRefusal(req, res, sandboxID, { kind: "portClosed", port });
  // The client gone, or the sandbox stopped (which closes the tracked response), ends the retries.
  let gone = false;
  res.once("close", () => void (gone = true));
  void dialWithRetries(() => state.ports.dial(runtime, port), () => gone).then(
    (socket) => {
      if (res.destroyed) return void socket?.destroy();
      if (!socket) return closed();
      const upstream: Socket = runtime.httpsPorts?.includes(port) ? tlsConnect({ socket, rejectUnauthorized: false }) : socket;
      forward(req, res, upstream, { sandboxID, port, maskRequestHost: runtime.maskRequestHost });
    },
    () => (res.headersSent ? res.destroy() : closed()),
  );
}
