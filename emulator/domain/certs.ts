/**
 * The certificates of the emulator's `domain` mode: a CA made at startup, and a server certificate
 * per host name, issued by it the first time a client names that host (SNI). The official SDKs speak
 * https to `api.<domain>` and `<port>-<sandboxID>.<domain>` (docs/service.md#hosts-and-ports), so a
 * client trusts the CA file (`NODE_EXTRA_CA_CERTS`, `SSL_CERT_FILE`) and every host is served.
 *
 * Why one certificate per name and not one `*.localhost`: Node's `tls.checkServerIdentity` and
 * OpenSSL's host check refuse a wildcard directly under a single-label name (`*.tld`), and `localhost`
 * is one. Why the `openssl` command: node:crypto makes keys but no X.509 certificate; the command is
 * on every machine the emulator's isolation needs (Linux with util-linux), and one issue takes a few
 * milliseconds. The CA lives only as long as the emulator: its key is in a private temp dir removed
 * by `close()`.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Extensions of the two kinds of certificate; strict verifiers (Python 3.13's default) want every one. */
const CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = sandbox-emulator
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

/** Validity of every certificate, in days: longer than any emulator runs. */
const DAYS = "30";

/** A CA and the one key of every server certificate it issues. */
export interface LocalCa {
  /** PEM file of the CA certificate, for clients to trust. */
  caFile: string;
  /** PEM of the CA certificate. */
  caPem: string;
  /** PEM of the server key (every issued certificate is for this key). */
  keyPem: string;
  /** A server certificate (PEM) for `names` (DNS names), signed by the CA. */
  issue(names: string[]): Promise<string>;
  /** Removes the temp dir (the CA's key with it). */
  remove(): Promise<void>;
}

/** Makes a CA (EC P-256) and a server key in a fresh private temp dir; fails when `openssl` cannot run. */
export async function createLocalCa(): Promise<LocalCa> {
  const dir = await mkdtemp(join(tmpdir(), "sandbox-emulator-tls-"));
  const file = (name: string) => join(dir, name);
  try {
    await writeFile(file("openssl.cnf"), CONFIG, { mode: 0o600 });
    await openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", file("ca.key"), "-out", file("ca.pem"),
      "-subj", "/CN=sandbox-emulator local CA", "-days", DAYS, "-config", file("openssl.cnf"), "-extensions", "ca");
    await openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", file("server.key"));
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const issue = async (names: string[]) => {
    const { stdout } = await openssl("req", "-new", "-x509", "-key", file("server.key"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"),
      "-subj", `/CN=${names[0]}`, "-days", DAYS, "-config", file("openssl.cnf"), "-extensions", "leaf",
      "-addext", `subjectAltName=${names.map((n) => `DNS:${n}`).join(",")}`);
    return stdout;
  };
  return {
    caFile: file("ca.pem"),
    caPem: await readFile(file("ca.pem"), "utf8"),
    keyPem: await readFile(file("server.key"), "utf8"),
    issue,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

async function openssl(...args: string[]): Promise<{ stdout: string }> {
  try {
    return await run("openssl", args, { encoding: "utf8" });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    const why = e.code === "ENOENT" ? "the openssl command was not found on PATH" : (e.stderr?.trim() || e.message);
    throw new Error(`the domain mode's certificates could not be made (openssl ${args[0]}): ${why}`);
  }
}
