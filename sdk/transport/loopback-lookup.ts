/**
 * Name resolution of every connection the sdk opens. `localhost` and any name under it
 * (`api.localhost`, `49983-<id>.localhost`) are this machine's loopback, as RFC 6761 §6.3 lets a
 * resolver answer without asking DNS. Browsers and curl do so; glibc's getaddrinfo (Node's
 * `dns.lookup`) does only with nss-myhostname, so without this a domain such as `localhost:<port>`
 * (the emulator's `--domain`) would give every endpoint but the API an ENOTFOUND. Every other name is
 * `dns.lookup`'s, as before (docs/service.md#hosts-and-ports).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";

type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family: number) => void;

/** Loopback addresses, IPv4 first: the emulator listens on 127.0.0.1 by default. */
const LOOPBACK: LookupAddress[] = [{ address: "127.0.0.1", family: 4 }, { address: "::1", family: 6 }];

/** True for `localhost` and names under it (a trailing dot, as in `localhost.`, included). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** A `lookup` for `net.connect`/undici's `connect` options: loopback for localhost names, else `dns.lookup`. */
export function loopbackLookup(hostname: string, options: LookupOptions, callback: Callback): void {
  if (!isLocalhostName(hostname)) {
    dnsLookup(hostname, options, callback);
    return;
  }
  const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family;
  const addresses = LOOPBACK.filter((a) => !family || a.family === family);
  if (options.all) return process.nextTick(callback, null, addresses, 0);
  const first = addresses[0]!;
  process.nextTick(callback, null, first.address, first.family);
}
