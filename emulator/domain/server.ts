/**
 * The emulator's `domain` mode: its one listener speaks https and answers every host the official
 * SDKs derive from a domain (docs/service.md#hosts-and-ports): `api.<domain>` (the platform API, and
 * the volume content API) and `<port>-<sandboxID>[-<clientID>].<domain>` (envd and sandbox ports,
 * which envd/gate.ts already routes by the Host's first label). A client given only `E2B_DOMAIN` (or
 * `sandbox:domain`) and the CA file reaches all of it.
 */
import { createServer as createHttpsServer } from "node:https";
import type { RequestListener, Server, ServerOptions } from "node:http";
import { createSecureContext, type SecureContext } from "node:tls";
import { createLocalCa, type LocalCa } from "./certs";

/** A domain as the SDKs take it: a host name, and the port when it is not https's 443. */
export interface DomainName {
  host: string;
  port?: number | undefined;
}

// Lower-case DNS labels: the names a certificate and a Host header can carry.
const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** `localhost`, `localhost:8443`, `e2b.test:0`; anything else (a scheme, a path, an IP) is refused with the rule. */
export function parseDomain(text: string): DomainName {
  const m = /^([^:]*)(?::(\d{1,5}))?$/.exec(text.trim().toLowerCase());
  const host = m?.[1] ?? "";
  const port = m?.[2] === undefined ? undefined : Number(m[2]);
  if (!m || !HOST.test(host) || /^[\d.]+$/.test(host) || (port !== undefined && port > 65535)) {
    throw new Error(`domain must be a host name with an optional port, as E2B_DOMAIN takes it (e.g. localhost or localhost:8443), got '${text}'`);
  }
  return { host, port };
}

/** True when `name` is the domain's host or one label under it: the names the emulator issues certificates for. */
export function servesName(host: string, name: string): boolean {
  const lower = name.toLowerCase();
  return lower === host || (lower.endsWith(`.${host}`) && !lower.slice(0, -host.length - 1).includes("."));
}

/** The https server of domain mode and its CA (removed with `ca.remove()` once the server closed). */
export interface DomainServer {
  server: Server;
  ca: LocalCa;
}

/**
 * An https server for `host`'s names. The certificate for the name a client asks for (SNI) is issued
 * once and kept; a client that sends no name, or one outside the domain, gets the default one
 * (`host`, `api.<host>` and `*.<host>`, which verifiers accept under a name of two labels or more).
 */
export async function createDomainServer(host: string, options: ServerOptions, listener: RequestListener): Promise<DomainServer> {
  const ca = await createLocalCa();
  // The chain sent is the certificate and the CA, so a client that trusts the CA file has the whole path.
  const contextOf = async (names: string[]) => createSecureContext({ key: ca.keyPem, cert: (await ca.issue(names)) + ca.caPem });
  try {
    const fallbackCert = (await ca.issue([host, `api.${host}`, `*.${host}`])) + ca.caPem;
    const fallback = createSecureContext({ key: ca.keyPem, cert: fallbackCert });
    const issued = new Map<string, Promise<SecureContext>>();
    const SNICallback = (name: string, done: (err: Error | null, ctx?: SecureContext) => void) => {
      if (!servesName(host, name)) return done(null, fallback);
      const key = name.toLowerCase();
      let context = issued.get(key);
      if (!context) issued.set(key, (context = contextOf([key])));
      context.then((ctx) => done(null, ctx), (err: Error) => {
        issued.delete(key);
        done(err);
      });
    };
    const server = createHttpsServer({ ...options, SNICallback, key: ca.keyPem, cert: fallbackCert }, listener);
    return { server, ca };
  } catch (err) {
    await ca.remove();
    throw err;
  }
}
