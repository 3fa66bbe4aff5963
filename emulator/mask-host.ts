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

/**
 * The hyphen checks, label by label: none starts or ends with `-`, nor has `--` as its 3rd and 4th
 * characters, except an `xn--` (punycode) label, which IDNA checks once decoded.
 */
function hyphensOk(name: string): boolean {
  const ok = (label: string) => !label.startsWith("-") && !label.endsWith("-") && (label.slice(2, 4) !== "--" || /^xn--/i.test(label));
  return name.split(".").every(ok);
}

/** STD3 ASCII rules: letters, digits and `-` in dot-separated labels (an IPv6 literal's `:` fails them too). */
const std3 = (name: string) => /^[A-Za-z0-9.-]*$/.test(name);

/** Throws the service's 400 when `maskRequestHost` breaks the rule. */
export function checkMaskRequestHost(maskRequestHost: string | undefined): void {
  if (maskRequestHost === undefined) return;
  const invalid = () => new ApiError(400, `mask request host is not valid: ${maskRequestHost}`);
  const host = hostOf(maskRequestHost);
  if (host === undefined || !hyphensOk(host)) throw invalid();
  if (/^[\x00-\x7f]*$/.test(host)) {
    if (!std3(host)) throw invalid();
    return;
  }
  const ascii = domainToASCII(host);
  if (ascii === "" || !std3(ascii)) throw invalid();
  throw new ApiError(400, `mask request host '${host}' is not ASCII. Please use ASCII characters only.`);
}
