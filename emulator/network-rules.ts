/**
 * The service's checks of `network.rules` (per-domain header transforms of egress requests), on create
 * and on PUT /sandboxes/{id}/network, in its order and with its messages (infra:
 * handlers/sandbox_create.go validateNetworkRules; the references' syntax:
 * shared/pkg/networktransform/placeholders.go). docs/service.md#sandbox-egress-rules. A domain may
 * also be a leading wildcard (`*.example.com`), and domains are lower-cased on write, as the newest
 * SDKs state (docs/service.md#sandbox-fields-of-the-newest-sdks).
 */
import { ApiError } from "./http";

type Rules = Record<string, unknown[]>;
interface Rule { transform?: { headers?: Record<string, string> } }

const DNS_NAME = /^[a-zA-Z0-9_][a-zA-Z0-9_-]{0,62}(\.[a-zA-Z0-9_][a-zA-Z0-9_-]{0,62})*[._]?$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const REFS = ["${e2b.secrets.", "${e2b.identity.tokens."];

/** Prefix of a wildcard domain: it matches every subdomain (at any depth), never the apex. */
const WILDCARD = "*.";

/** A DNS name, or `*.` and one (a bare `*`, a `*` inside a name and `*.*.x` are not). */
function isRuleDomain(domain: string): boolean {
  const name = domain.startsWith(WILDCARD) ? domain.slice(WILDCARD.length) : domain;
  return DNS_NAME.test(name) && !/^[\d.]+$/.test(name);
}

/** Throws the service's 400 for the first rule it would refuse. */
export function checkNetworkRules(rules: Rules | undefined): void {
  if (rules === undefined) return;
  if (Object.keys(rules).length > 10) throw new ApiError(400, "Network rules can have at most 10 domains.");
  const seen = new Set<string>();
  for (const [domain, list] of Object.entries(rules)) {
    if (domain === "") throw new ApiError(400, "Rule domain must not be empty.");
    if (domain.length > 128) throw new ApiError(400, `Rule domain "${domain}" exceeds maximum length of 128 characters.`);
    if (!isRuleDomain(domain)) throw new ApiError(400, `Rule domain "${domain}" is not a valid domain name.`);
    // Keys are lower-cased on write: two that differ only in case would be one domain (the emulator's rule).
    const lower = domain.toLowerCase();
    if (seen.has(lower)) throw new ApiError(400, `Rule domain "${domain}" is given twice (domains are compared in lower case).`);
    seen.add(lower);
    if (list.length > 1) throw new ApiError(400, `Domain "${domain}" can have at most 1 transform rule.`);
    const secrets = new Set<string>();
    for (const rule of list as Rule[]) {
      const headers = Object.entries(rule.transform?.headers ?? {});
      if (headers.length > 20) throw new ApiError(400, `Domain "${domain}" can have at most 20 headers per rule.`);
      for (const [name, value] of headers) {
        checkHeader(domain, name, value);
        for (const secret of secretNames(value)) secrets.add(secret);
      }
      if (secrets.size > 32) throw new ApiError(400, `Rule domain "${domain}" references more than 32 secrets.`);
    }
  }
}

function checkHeader(domain: string, name: string, value: string): void {
  if (name === "") throw new ApiError(400, `Header name in rule for domain "${domain}" must not be empty.`);
  if (!TOKEN.test(name)) throw new ApiError(400, `Header name "${name}" in rule for domain "${domain}" must contain only valid HTTP token characters.`);
  if (name.length > 64) throw new ApiError(400, `Header name "${name}" in rule for domain "${domain}" exceeds maximum length of 64 characters.`);
  // A header value is visible ASCII, spaces and tabs (Go's httpguts.ValidHeaderFieldValue, which also lets obs-text through).
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) throw new ApiError(400, `Value for header "${name}" in rule for domain "${domain}" contains invalid characters.`);
  if (value.length > 2048) throw new ApiError(400, `Value for header "${name}" in rule for domain "${domain}" exceeds maximum length of 2048 characters.`);
}

/** The secrets a value refers to, by canonical name; a malformed reference is the service's 400. */
function secretNames(value: string): string[] {
  const malformed = () => new ApiError(400, "Network transform header contains a malformed E2B placeholder.");
  const names: string[] = [];
  let cursor = 0;
  for (;;) {
    const found = REFS.map((prefix) => ({ prefix, at: value.indexOf(prefix, cursor) })).filter((f) => f.at >= 0).sort((a, b) => a.at - b.at)[0];
    if (!found) return names;
    const from = found.at + found.prefix.length;
    const end = value.indexOf("}", from);
    if (end < 0) throw malformed();
    const name = value.slice(from, end);
    if (name === "" || REFS.some((prefix) => name.includes(prefix))) throw malformed();
    if (found.prefix === REFS[0]) {
      const canonical = name.trim().toLowerCase();
      if (!/^[a-z0-9_-]{1,128}$/.test(canonical) || canonical.startsWith("sec_")) throw malformed();
      names.push(canonical);
    }
    cursor = end + 1;
  }
}

/** The rules as the service keeps them: each domain lower-cased (checked first: no two collide). */
export function normalizedRules<T>(rules: Record<string, T> | undefined): Record<string, T> | undefined {
  return rules === undefined ? undefined : Object.fromEntries(Object.entries(rules).map(([domain, list]) => [domain.toLowerCase(), list]));
}

/**
 * The rule domain that applies to a request to `host`: the exact one first, else the longest
 * wildcard whose suffix the host ends with (a subdomain at any depth, never the apex); rule sets are
 * not merged. Undefined when none applies. Host and domains are compared in lower case.
 */
export function ruleDomainFor(domains: readonly string[], host: string): string | undefined {
  const name = host.toLowerCase().replace(/\.$/, "");
  const lower = domains.map((d) => d.toLowerCase());
  if (lower.includes(name)) return domains[lower.indexOf(name)];
  let best: number | undefined;
  lower.forEach((domain, i) => {
    if (!domain.startsWith(WILDCARD)) return;
    const suffix = domain.slice(1); // ".example.com"
    if (name.length > suffix.length && name.endsWith(suffix) && (best === undefined || domain.length > lower[best]!.length)) best = i;
  });
  return best === undefined ? undefined : domains[best];
}
