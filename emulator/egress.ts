/**
 * The service's egress rules (network.allowOut / denyOut, on create and on PUT /sandboxes/{id}/network),
 * as its create handler enforces them: denied entries are IPs or CIDRs, never domains; allowed ones
 * may also be domains, but only with all other traffic denied (0.0.0.0/0); an address must name
 * something (0.0.0.0 alone does not; 0.0.0.0/0 is "all traffic"). The messages are the service's.
 */
import { isIP } from "node:net";
import { ApiError } from "./http";

export const ALL_TRAFFIC = "0.0.0.0/0";

/** An IP or a CIDR (IPv4 or IPv6), or undefined when `entry` is neither (then it is taken as a domain). */
function addressOf(entry: string): { ip: string; bits?: number } | undefined {
  const [ip = "", bits, extra] = entry.split("/");
  const version = isIP(ip);
  if (version === 0 || extra !== undefined) return undefined;
  if (bits === undefined) return { ip };
  const n = /^\d+$/.test(bits) ? Number(bits) : NaN;
  return n <= (version === 4 ? 32 : 128) ? { ip, bits: n } : undefined;
}

const unspecified = (ip: string) => ip === "0.0.0.0" || /^[0:]+$/.test(ip);

function specified(entry: string): boolean {
  const address = addressOf(entry);
  if (!address) return false;
  return entry === ALL_TRAFFIC || !unspecified(address.ip);
}

/** The `allowOut` entries that are domain names: neither an address nor a CIDR (nor digits and dots). */
export function domainsOf(allowOut: readonly string[]): string[] {
  return allowOut.filter((entry) => !entry.includes("/") && isIP(entry) === 0 && !/^[\d.]+$/.test(entry));
}

/** Throws the service's 400 for the first rule the entries break. */
export function checkEgress(allowOut: readonly string[] = [], denyOut: readonly string[] = []): void {
  for (const entry of denyOut) if (!specified(entry)) throw new ApiError(400, `invalid denied CIDR ${entry}`);
  const domains = domainsOf(allowOut);
  for (const entry of allowOut.filter((e) => !domains.includes(e))) {
    if (!specified(entry)) throw new ApiError(400, `invalid allowed address ${entry}`);
  }
  if (domains.length > 0 && !denyOut.includes(ALL_TRAFFIC)) {
    throw new ApiError(400, "When specifying allowed domains in allow out, you must include 'ALL_TRAFFIC' in deny out to block all other traffic.");
  }
}
