/**
 * `network.rules`: per-domain transforms of a sandbox's egress HTTP(S) requests, the headers to set.
 * A header value may refer to a team secret by name, `${e2b.secrets.<name>}`, which the service
 * resolves at egress, so the value never enters the sandbox or the program (docs/service.md#sandbox-egress-rules).
 * The checks and limits are the service's (its create handler's validateNetworkRules), so a bad rule
 * is refused at preview, before any sandbox is made.
 */
import { z } from "zod";

const SECRET = "${e2b.secrets.";
const IDENTITY = "${e2b.identity.tokens.";
/** The service's limits: domains, one transform rule per domain, and one rule's headers. */
const MAX_DOMAINS = 10;
const MAX_DOMAIN = 128;
const MAX_HEADER_NAME = 64;
const MAX_HEADER_VALUE = 2048;
const MAX_HEADERS = 20;
/** The service's limit on the secrets one domain's rules refer to. */
const MAX_SECRETS_PER_DOMAIN = 32;

/** The secret names a header value refers to (canonical: lower-case), or undefined when a reference is malformed. */
export function secretRefs(value: string): string[] | undefined {
  const names: string[] = [];
  for (let cursor = 0; ;) {
    const starts = [SECRET, IDENTITY].map((p) => ({ p, at: value.indexOf(p, cursor) })).filter((s) => s.at >= 0).sort((a, b) => a.at - b.at);
    const next = starts[0];
    if (!next) return names;
    const nameStart = next.at + next.p.length;
    const end = value.indexOf("}", nameStart);
    if (end < 0) return undefined;
    const name = value.slice(nameStart, end);
    if (name === "" || name.includes(SECRET) || name.includes(IDENTITY)) return undefined;
    if (next.p === SECRET) {
      const canonical = name.trim().toLowerCase();
      if (!/^[a-z0-9_-]{1,128}$/.test(canonical) || canonical.startsWith("sec_")) return undefined;
      names.push(canonical);
    }
    cursor = end + 1;
  }
}

const HeaderValue = z.string({ error: "must be a string" })
  .max(MAX_HEADER_VALUE, { error: `must be at most ${MAX_HEADER_VALUE} characters` })
  .refine((v) => secretRefs(v) !== undefined, {
    error: "a secret reference must be ${e2b.secrets.<name>}, the name of a team secret (letters, digits, '_' and '-', not starting with sec_)",
  });

const Rule = z.strictObject({
  transform: z.strictObject({
    headers: z.record(
      z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: "header names must be HTTP tokens" }).max(MAX_HEADER_NAME, { error: `header names must be at most ${MAX_HEADER_NAME} characters` }),
      HeaderValue,
      { error: "must be an object of header names to values" },
    ).refine((h) => Object.keys(h).length <= MAX_HEADERS, { error: `at most ${MAX_HEADERS} headers per rule` })
      .describe("Headers to set (replacing one of the same name) on matching requests. A value may contain `${e2b.secrets.<name>}`, which the service replaces with that team secret's value at egress."),
  }).describe("What to change in matching requests."),
});

/** A domain name as the service's check (govalidator's IsDNSName) takes one: labels of [A-Za-z0-9_-], not an IP. */
const DNS_NAME = /^[a-zA-Z0-9_][a-zA-Z0-9_-]{0,62}(\.[a-zA-Z0-9_][a-zA-Z0-9_-]{0,62})*[._]?$/;
/**
 * A domain name, or a leading wildcard and one (`*.example.com`: its subdomains at any depth, not
 * itself), as the newest SDKs state the service takes them (docs/service.md#sandbox-fields-of-the-newest-sdks).
 */
const isRuleDomain = (d: string) => {
  const name = d.startsWith("*.") ? d.slice(2) : d;
  return DNS_NAME.test(name) && !/^[\d.]+$/.test(name);
};
const Domain = z.string().min(1, { error: "domain must not be empty" }).max(MAX_DOMAIN, { error: `domains must be at most ${MAX_DOMAIN} characters` })
  .refine(isRuleDomain, { error: "keys must be domain names or a leading wildcard of one (*.example.com), not a bare * or an IP address" });

/** Keys that are one domain to the service, which lower-cases them: the first of each pair, or undefined. */
function repeatedDomain(rules: Record<string, unknown>): string | undefined {
  const seen = new Set<string>();
  for (const domain of Object.keys(rules)) {
    if (seen.has(domain.toLowerCase())) return domain;
    seen.add(domain.toLowerCase());
  }
  return undefined;
}

export const EgressRules = z.record(Domain, z.array(Rule, { error: "must be a list of rules" }).max(1, { error: "at most 1 rule per domain (the service's limit)" }), { error: "must be an object of domains to lists of rules" })
  .refine((rules) => Object.keys(rules).length <= MAX_DOMAINS, { error: `at most ${MAX_DOMAINS} domains` })
  .superRefine((rules, ctx) => {
    const repeated = repeatedDomain(rules);
    if (repeated !== undefined) ctx.addIssue({ code: "custom", message: `"${repeated}" repeats another key: the service compares domains in lower case` });
  })
  .refine((rules) => Object.values(rules).every((list) => new Set(list.flatMap((r) => Object.values(r.transform.headers).flatMap((v) => secretRefs(v) ?? []))).size <= MAX_SECRETS_PER_DOMAIN), {
    error: `a domain's rules may refer to at most ${MAX_SECRETS_PER_DOMAIN} secrets`,
  })
  .describe("Per-domain transforms of egress HTTP(S) requests (a domain listed here is not thereby allowed: see allowOut). A key is a domain name or a leading wildcard (`*.example.com`, its subdomains at any depth but not itself); a request takes the rule of its exact domain, else of the longest matching wildcard. Changed in place with the other egress rules.");
