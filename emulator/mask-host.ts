/**
 * The create rule for `network.maskRequestHost` (infra: api/internal/handlers/sandbox_create.go,
 * validateNetworkConfig): a host with an optional port, split as Go's net.SplitHostPort does (a
 * missing port is no error), whose host name is already what IDNA's Display profile makes of it
 * (golang.org/x/net/idna: STD3 ASCII rules and hyphen checks, case folded). A name that does not
 * split or breaks those rules is "not valid"; one that converts to a different (punycode) name is
 * "not ASCII". See docs/service.md#sandbox-ports.
 */
import { domainToASCII } from "node:url";
import { ApiError } from "./http";

/** Go's net.SplitHostPort, with a missing port allowed; undefined where Go gives another error. */
function hostOf(value: string): string | undefined {
  const last = value.lastIndexOf(":");
  if (last < 0) return value.includes("[") || value.includes("]") ? undefined : value;
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    if (end < 0) return undefined;
    // "[host]" alone: Go's "missing port" (no colon after the bracket), so the whole value is the host.
    if (end === value.length - 1) return value;
    if (end + 1 !== last) return undefined;
    const host = value.slice(1, end);
    return host.includes("[") || host.includes("]") ? undefined : host;
  }
  const host = value.slice(0, last);
  if (host.includes(":") || host.includes("[") || host.includes("]") || value.slice(last + 1).includes("]")) return undefined;
  return host;
}

/** STD3 ASCII rules and the hyphen checks, label by label. */
function validAsciiName(name: string): boolean {
  return name.split(".").every((label) => /^[A-Za-z0-9-]*$/.test(label) && !label.startsWith("-") && !label.endsWith("-") && label.slice(2, 4) !== "--");
}

/** Throws the service's 400 when `maskRequestHost` breaks the rule. */
export function checkMaskRequestHost(maskRequestHost: string | undefined): void {
  if (maskRequestHost === undefined) return;
  const invalid = () => new ApiError(400, `mask request host is not valid: ${maskRequestHost}`);
  const host = hostOf(maskRequestHost);
  if (host === undefined) throw invalid();
  if (/^[\x00-\x7f]*$/.test(host)) {
    if (!validAsciiName(host)) throw invalid();
    return;
  }
  const ascii = domainToASCII(host);
  if (ascii === "" || !validAsciiName(ascii)) throw invalid();
  throw new ApiError(400, `mask request host '${host}' is not ASCII. Please use ASCII characters only.`);
}
