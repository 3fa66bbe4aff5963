/**
 * The URL of a port a sandbox serves, as a browser or curl opens it (no routing headers): the host
 * `{port}-{sandboxID}.{domain}` the service's proxy routes by (docs/service.md#sandbox-ports; the
 * official SDK's `getHost(port)` gives the same host). The sandbox's own domain, when the service
 * reports one (custom clusters), wins over the client's (docs/service.md#hosts-and-ports).
 */
import type { ResolvedOptions } from "../config";

/** Hosts that are this machine: a name under them cannot be made, but `*.localhost` names it too (RFC 6761). */
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * `https://{port}-{sandboxID}.{domain}`; with `sandboxUrl` set (a proxy or the emulator, which take
 * the sandbox from headers a plain URL cannot carry) the per-sandbox host under that URL's own host,
 * scheme and port instead: `sandbox.<d>` (the service's shared host) gives `{port}-{id}.<d>`, and a
 * loopback address `{port}-{id}.localhost`, which browsers and curl resolve to this machine.
 */
export function portUrl(
  sandboxID: string,
  port: number,
  opts: Pick<ResolvedOptions, "domain" | "sandboxUrl">,
  sandboxDomain?: string | null,
): string {
  if (!opts.sandboxUrl) return `https://${port}-${sandboxID}.${sandboxDomain ?? opts.domain}`;
  const base = new URL(opts.sandboxUrl);
  const host = LOOPBACK.has(base.hostname) ? "localhost" : base.hostname.replace(/^sandbox\./, "");
  return `${base.protocol}//${port}-${sandboxID}.${host}${base.port ? `:${base.port}` : ""}`;
}
