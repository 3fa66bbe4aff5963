/**
 * A sandbox's egress rules as the service's firewall applies them, written for iptables-restore and
 * loaded into the sandbox's network namespace (uplink.ts), which the host's root owns: the sandbox's
 * own root has no CAP_NET_ADMIN there and cannot undo them. The order is the service's (e2b-dev/infra:
 * packages/orchestrator/pkg/sandbox/network/firewall.go, installRules; pkg/tcpfirewall/handlers.go,
 * isEgressAllowed):
 *
 * 1. the sandbox's own loopback, and established and related traffic, pass, so a changed rule
 *    applies to new connections only;
 * 2. the uplink's resolver (DNS) passes;
 * 3. private, loopback, link-local and shared ranges are denied whatever the rules say
 *    (packages/shared/pkg/sandbox-network/firewall.go, DeniedSandboxCIDRs);
 * 4. `allowOut` addresses pass; 5. `denyOut` addresses are refused; 6. everything else passes.
 *
 * `allowInternetAccess: false` denies all (0.0.0.0/0), `allowOut` still winning over it. Domain
 * entries of `allowOut` are matched on a connection's TLS SNI or HTTP Host (egress-proxy.ts): with
 * any, a TCP connection to port 80 or 443 that no address rule allows is redirected to that proxy,
 * which decides by name; other ports are decided by address alone.
 * A refused TCP connection is reset (connect fails at once); other traffic gets an ICMP
 * port-unreachable.
 */
import { isIP } from "node:net";
import { domainsOf } from "../../egress";

/** The ports the egress proxy listens on in the sandbox's namespace (egress-proxy.ts), for redirected port-80 and port-443 connections. */
export const PROXY_PORTS = { http: 49980, tls: 49981 } as const;

/** What a sandbox may reach, from its create (and PUT /sandboxes/{id}/network). */
export interface Egress {
  allowOut: readonly string[];
  denyOut: readonly string[];
  /** `allow_internet_access`; false denies all traffic not allowed by `allowOut`. */
  internet: boolean;
}

/** No rule of the sandbox's own: a build sandbox's, or a sandbox created with none. */
export const OPEN_EGRESS: Egress = { allowOut: [], denyOut: [], internet: true };

/** The uplink's resolver (slirp4netns's built-in DNS forwarder). */
export const UPLINK_DNS = "10.0.2.3";

/** Denied to every sandbox (DeniedSandboxCIDRs; IPv4: the uplink carries no IPv6). */
export const ALWAYS_DENIED = ["10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.168.0.0/16"];

/** IPv4 addresses and CIDRs of `entries`; IPv6 ones and domains are left out (no IPv6 route exists). */
function ipv4(entries: readonly string[]): string[] {
  return entries.filter((e) => isIP(e.split("/")[0] ?? "") === 4);
}

/** The iptables-restore text of the sandbox's filter and nat tables. */
export function egressRules(egress: Egress): string {
  const denied = egress.internet ? ipv4(egress.denyOut) : ["0.0.0.0/0"];
  return `${filterTable(egress, denied)}${natTable(egress)}`;
}

/** With domains in `allowOut`: what no address rule decides, on ports 80 and 443, goes to the proxy. */
function natTable(egress: Egress): string {
  const redirect = domainsOf(egress.allowOut).length > 0;
  return [
    "*nat",
    ":PREROUTING ACCEPT [0:0]",
    ":INPUT ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ":POSTROUTING ACCEPT [0:0]",
    ...(redirect
      ? [
          "-A OUTPUT -o lo -j RETURN",
          ...[...ALWAYS_DENIED, ...ipv4(egress.allowOut)].map((cidr) => `-A OUTPUT -d ${cidr} -j RETURN`),
          `-A OUTPUT -p tcp --dport 80 -j REDIRECT --to-ports ${PROXY_PORTS.http}`,
          `-A OUTPUT -p tcp --dport 443 -j REDIRECT --to-ports ${PROXY_PORTS.tls}`,
        ]
      : []),
    "COMMIT",
    "",
  ].join("\n");
}

function filterTable(egress: Egress, denied: readonly string[]): string {
  return [
    "*filter",
    ":INPUT ACCEPT [0:0]",
    ":FORWARD ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ":DENY - [0:0]",
    "-A DENY -p tcp -j REJECT --reject-with tcp-reset",
    "-A DENY -j REJECT --reject-with icmp-port-unreachable",
    // The namespace's own loopback is the sandbox's (the service's always-denied 127/8 is the host's).
    // By address, not `-o lo`: a connection the nat table redirected to the proxy still has its
    // first route's interface in this hook.
    "-A OUTPUT -d 127.0.0.0/8 -j ACCEPT",
    "-A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
    `-A OUTPUT -d ${UPLINK_DNS}/32 -p udp --dport 53 -j ACCEPT`,
    `-A OUTPUT -d ${UPLINK_DNS}/32 -p tcp --dport 53 -j ACCEPT`,
    ...ALWAYS_DENIED.map((cidr) => `-A OUTPUT -d ${cidr} -j DENY`),
    ...ipv4(egress.allowOut).map((cidr) => `-A OUTPUT -d ${cidr} -j ACCEPT`),
    ...denied.map((cidr) => `-A OUTPUT -d ${cidr} -j DENY`),
    "COMMIT",
    "",
  ].join("\n");
}
