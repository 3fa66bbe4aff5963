/**
 * The `ports` input of a Sandbox and its `urls` output. Declaring a port changes nothing in the
 * sandbox (the service's proxy reaches any port a server listens on: docs/service.md#sandbox-ports),
 * so a change of `ports` is an update with no call: only the URLs the stack reports change.
 */
import { z } from "zod";
import { resolveOptions } from "../../../sdk/config";
import { ENVD_PORT } from "../../../sdk/transport/sandbox-host";
import { portUrl } from "../../../sdk/transport/port-url";
import { clientOptions } from "../../runtime/configured";

const Port = z.number({ error: "must be a port number" }).int({ error: "must be a whole port number" })
  .min(1, { error: "must be a port from 1 to 65535" }).max(65_535, { error: "must be a port from 1 to 65535" })
  .refine((p) => p !== ENVD_PORT, { error: `${ENVD_PORT} is the in-sandbox API's own port (envd); serve on another one` });

export const PortsInput = z.array(Port, { error: "must be a list of port numbers" })
  .refine((ports) => new Set(ports).size === ports.length, { error: "must not list a port twice" });

export const PortUrls = z.record(z.string(), z.string())
  .describe("URL of each port in `ports`, by port number. When public traffic is off, requests need the header `e2b-traffic-access-token: <trafficAccessToken>`.");

/**
 * The URL of each declared port, for the service (or emulator) the provider is configured for; the
 * sandbox's own domain (`domain` of its detail) when the service reports one.
 */
export function urlsOf(sandboxID: string, ports: readonly number[] | undefined, sandboxDomain?: string | null): Record<string, string> {
  const opts = resolveOptions(clientOptions());
  return Object.fromEntries((ports ?? []).map((port) => [String(port), portUrl(sandboxID, port, opts, sandboxDomain)]));
}
