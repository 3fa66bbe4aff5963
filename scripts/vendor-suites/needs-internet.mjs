/**
 * The one rule that classes a vendor test as "needs internet": this machine, CI's and the emulator's
 * sandboxes (which share the host's network) reach no public host. It is fixed here, not judged per run,
 * so a reader can check every classing: a test needs the internet when the source of its own body
 * (from its `test(`/`def test_` line to the next test's) matches one of these patterns.
 */
export const INTERNET_RULES = [
  {
    id: "public-ip",
    pattern: /\b(?:8\.8\.8\.8|1\.1\.1\.1)\b/,
    why: "reaches a public DNS server's address (8.8.8.8, 1.1.1.1) from the sandbox",
  },
  {
    id: "public-host",
    pattern: /\b(?:connectivitycheck\.gstatic\.com|github\.com|gitlab\.com|pypi\.org|registry\.npmjs\.org)\b/,
    why: "reaches a public host (GitHub, a connectivity check, a package registry)",
  },
  {
    id: "httpbin",
    pattern: /httpbin/i,
    why: "uses the vendor's `httpbin` template, a sidecar reached through the service's public domain",
  },
  {
    id: "sandbox-host",
    pattern: /\b\w*(?:sandbox|httpbin)\.(?:getHost|get_host)\(/i,
    // The emulator serves sandbox ports (by that Host, or by the E2b-Sandbox-Id/-Port headers), but
    // these tests never ask it: the SDK builds `https://<port>-<id>.<domain>` with no port, and under
    // the three variables <domain> is E2B_DOMAIN's default, e2b.app (the emulator reports no domain).
    // Answering it locally would take a wildcard DNS name for this machine, a TLS certificate the
    // client trusts and port 443, none of which the three variables give.
    why: "reaches a sandbox's port at `https://<port>-<id>.e2b.app` (the SDK's URL: public DNS, TLS, port 443), never the emulator",
  },
  {
    id: "package-install",
    pattern: /\b(?:pip3?|npm|pnpm|yarn|bun)\s+(?:install|add|i)\b|\bapt(?:-get)?\s+install\b/,
    why: "installs packages from a public registry inside the sandbox",
  },
];

/** The rule a test body matches, or undefined when it needs no public network. */
export function internetRule(body) {
  return INTERNET_RULES.find((rule) => rule.pattern.test(body));
}

/**
 * The source of the test whose report points at `line` (1-based; pytest points at the first
 * decorator): from there through its own start, as `startsTest` recognises it, up to the next
 * test's start or the end of the file.
 */
export function testBody(lines, line, startsTest) {
  const start = Math.max(0, line - 1);
  let own = start;
  while (own < lines.length && !startsTest(lines[own])) own++;
  let end = own + 1;
  while (end < lines.length && !startsTest(lines[end])) end++;
  return lines.slice(start, end).join("\n");
}
