/**
 * The name a connection asks for, as the service's egress proxy reads it before deciding (infra:
 * packages/orchestrator/pkg/tcpfirewall, through inetaf/tcpproxy): the server name (SNI) of a TLS
 * ClientHello, or the Host header of a plain HTTP request. Read from the first bytes the sandbox
 * sends; nothing is sent on until the decision.
 */

/** Most bytes read before giving up on a name: a ClientHello or a request head fits easily. */
export const MAX_HEAD_BYTES = 16 * 1024;

/** The name; `undefined` when the bytes carry none; `"more"` while they may still. */
export type Sniffed = string | undefined | "more";

/** The SNI host name of a TLS ClientHello at the start of `head`. */
export function sniOf(head: Buffer): Sniffed {
  if (head.length < 5) return "more";
  // A TLS record of type handshake (22), holding a ClientHello (1).
  if (head[0] !== 22) return undefined;
  const recordEnd = 5 + head.readUInt16BE(3);
  if (head.length < Math.min(recordEnd, MAX_HEAD_BYTES)) return "more";
  if (head[5] !== 1) return undefined;
  const r = new Reader(head.subarray(0, recordEnd), 9);
  r.skip(2 + 32); // version, random
  r.skip(r.u8()); // session id
  r.skip(r.u16()); // cipher suites
  r.skip(r.u8()); // compression methods
  const extensionsEnd = r.at + r.u16();
  while (r.ok && r.at + 4 <= extensionsEnd) {
    const type = r.u16();
    const size = r.u16();
    if (type !== 0) {
      r.skip(size);
      continue;
    }
    // server_name: a list of (type, name); type 0 is a host name.
    const listEnd = r.at + r.u16();
    while (r.ok && r.at + 3 <= listEnd) {
      const kind = r.u8();
      const name = r.bytes(r.u16());
      if (kind === 0 && name) return name.toString("ascii").toLowerCase();
    }
    return undefined;
  }
  return undefined;
}

/** The Host header of an HTTP/1 request head at the start of `head`, without its port. */
export function httpHostOf(head: Buffer): Sniffed {
  const end = head.indexOf("\r\n\r\n");
  if (end < 0) return head.length < MAX_HEAD_BYTES ? "more" : undefined;
  const lines = head.subarray(0, end).toString("latin1").split("\r\n");
  if (!/^[A-Z]+ \S+ HTTP\/1\.[01]$/.test(lines[0] ?? "")) return undefined;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === "host") {
      const value = line.slice(colon + 1).trim().toLowerCase();
      return value.startsWith("[") ? value.slice(0, value.indexOf("]") + 1) : value.replace(/:\d+$/, "") || undefined;
    }
  }
  return undefined;
}

/** Whether `host` matches an `allowOut` domain: itself, `*` (any), or `*.suffix` (a subdomain). */
export function matchesDomain(host: string, pattern: string): boolean {
  const p = pattern.toLowerCase();
  if (p === "") return false;
  if (p === "*" || p === host) return true;
  return p.startsWith("*.") && host.endsWith(p.slice(1));
}

/** A bounds-checked reader: reading past the end leaves `ok` false and yields zeros. */
class Reader {
  ok = true;
  constructor(
    private readonly buf: Buffer,
    public at: number,
  ) {}

  u8(): number {
    return this.take(1)?.readUInt8(0) ?? 0;
  }

  u16(): number {
    return this.take(2)?.readUInt16BE(0) ?? 0;
  }

  bytes(n: number): Buffer | undefined {
    return this.take(n);
  }

  skip(n: number): void {
    this.take(n);
  }

  private take(n: number): Buffer | undefined {
    if (!this.ok || this.at + n > this.buf.length) {
      this.ok = false;
      return undefined;
    }
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
}
