/**
 * The network fields of the newest SDKs (docs/service.md#sandbox-fields-of-the-newest-sdks), on
 * create and, where the service takes them, on PUT /sandboxes/{id}/network: `httpsPorts` (ports the
 * proxy reaches over TLS; never envd's), `dnsServers` (IPv4 addresses only) and `egressProxy.tls`.
 * The packages state the rules; the messages are the emulator's, each naming the field and the value.
 */
import { isIP } from "node:net";
import { z } from "zod";
import { ApiError } from "./http";

/** envd's port in every sandbox, which the proxy always reaches with envd's own protocol. */
const ENVD_PORT = 49983;

/** `egressProxy` with its `tls` (the schema the service's validator applies; `tls` may be null). */
export const EgressProxySchema = z.object({
  address: z.string(),
  username: z.string().max(255).optional(),
  password: z.string().max(255).optional(),
  tls: z.object({ enabled: z.boolean(), serverName: z.string().optional(), caCert: z.string().optional() }).nullable().optional(),
}).nullable().optional();
export type EgressProxy = z.infer<typeof EgressProxySchema>;

/** `httpsPorts`: each a port (1–65535), none of them envd's (49983). */
export function checkHttpsPorts(ports: readonly number[] | undefined): void {
  for (const port of ports ?? []) {
    if (port === ENVD_PORT) throw new ApiError(400, `httpsPorts cannot include ${ENVD_PORT}: it is envd's port, which the proxy always reaches itself`);
    if (port < 1 || port > 65_535) throw new ApiError(400, `httpsPorts entry ${port} is not a port (1-65535)`);
  }
}

/** `dnsServers`: each an IPv4 address (no CIDR, no IPv6, no name); an empty list is allowed (no DNS server). */
export function checkDnsServers(servers: readonly string[] | undefined): void {
  for (const server of servers ?? []) {
    if (isIP(server) !== 4) throw new ApiError(400, `dnsServers entry "${server}" is not an IPv4 address`);
  }
}

/**
 * `egressProxy`: with `tls.enabled` false no other `tls` field may be set (a 400); then the team's
 * gate, since the emulator's one team does not have the proxy (a 403, as on the service).
 */
export function checkEgressProxy(proxy: EgressProxy): void {
  if (!proxy) return;
  const tls = proxy.tls;
  if (tls && !tls.enabled && (tls.serverName !== undefined || tls.caCert !== undefined)) {
    throw new ApiError(400, "egressProxy.tls: with enabled false, no other field (serverName, caCert) may be set");
  }
  throw new ApiError(403, "Egress proxy (egressProxy) is not enabled for this team.");
}
