/**
 * The emulator's domain mode (emulator/domain/): one https listener serving `api.<domain>` and
 * `<port>-<sandboxID>.<domain>` with certificates from a CA made at start. Reached as the service is:
 * by curl (which resolves `*.localhost` to loopback itself, RFC 6761) trusting only the CA file, and
 * by the official SDK, unmodified, in its own process with nothing but E2B_DOMAIN, E2B_API_KEY and
 * NODE_EXTRA_CA_CERTS (its fixture says the one thing it adds: `*.localhost` name resolution).
 * Clients run as child processes, asynchronously: the emulator answers from this process.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { connect, type PeerCertificate } from "node:tls";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { parseDomain } from "../../emulator/domain/server";

const run = promisify(execFile);
const REPO = join(__dirname, "..", "..");
let emu: Emulator;

beforeAll(async () => {
  emu = await createEmulator({ domain: "localhost", buildDelayMs: 50 });
});

afterAll(async () => {
  await emu?.close();
});

/** curl's exit code, body and stderr; `-w` appends the status on a line of its own. */
async function curl(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run("curl", ["-sS", "-w", "\n%{http_code}", ...args], { encoding: "utf8" });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

/** The certificate the server shows for `servername`, verified against the CA file only. */
function certificateFor(servername: string): Promise<{ authorized: boolean; cert: PeerCertificate }> {
  const port = Number(emu.domain!.split(":")[1]);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, servername, ca: [readFileSync(emu.caFile!)] }, () => {
      resolve({ authorized: socket.authorized, cert: socket.getPeerCertificate() });
      socket.end();
    });
    socket.on("error", reject);
  });
}

describe("domain mode", () => {
  test("the domain carries the listener's port; the API is https at api.<domain>", () => {
    expect(emu.domain).toMatch(/^localhost:\d+$/);
    expect(emu.apiUrl).toBe(`https://api.${emu.domain}`);
    expect(existsSync(emu.caFile!)).toBe(true);
  });

  test("curl trusting the CA reaches the platform API at api.<domain> and the sandbox proxy at <port>-<id>.<domain>", async () => {
    expect(await curl("--cacert", emu.caFile!, `${emu.apiUrl}/health`)).toEqual({ code: 0, out: "Health check successful\n200", err: "" });
    const proxy = await curl("--cacert", emu.caFile!, `https://49983-nosuchsandbox.${emu.domain}/`);
    expect(proxy.out).toBe('{"sandboxId":"nosuchsandbox","message":"The sandbox was not found","code":502}\n502');
    // Without the CA the certificate is refused: the https is real.
    expect((await curl(`${emu.apiUrl}/health`)).code).toBe(60);
  });

  test("a build's upload link is on the origin asked, https, and takes the upload (a plain-http link would be refused)", async () => {
    const auth = ["--cacert", emu.caFile!, "-H", `X-API-Key: ${emu.apiKey}`, "-H", "Content-Type: application/json"];
    const made = await curl(...auth, "-X", "POST", "-d", '{"name":"by-domain"}', `${emu.apiUrl}/v3/templates`);
    const { templateID } = JSON.parse(made.out.slice(0, made.out.lastIndexOf("\n"))) as { templateID: string };
    const link = await curl(...auth, `${emu.apiUrl}/templates/${templateID}/files/${"a".repeat(64)}`);
    const { url } = JSON.parse(link.out.slice(0, link.out.lastIndexOf("\n"))) as { url: string };
    expect(url.startsWith(`${emu.apiUrl}/_uploads/`)).toBe(true);
    expect((await curl("--cacert", emu.caFile!, "-X", "PUT", "--data-binary", "archive", url)).out).toMatch(/\n200$/);
  });

  test("each host gets a certificate for its own name, which verifies against the CA (no *.localhost wildcard, which Node refuses)", async () => {
    for (const name of ["api.localhost", "49983-abc123.localhost", "8080-abc123-client9.localhost"]) {
      const { authorized, cert } = await certificateFor(name);
      expect([name, authorized, cert.subjectaltname]).toEqual([name, true, `DNS:${name}`]);
    }
  });

  test("the official SDK, given only E2B_DOMAIN, E2B_API_KEY and NODE_EXTRA_CA_CERTS: create, run, write, read, list, getHost, kill during a command", async () => {
    const since = emu.calls().at(-1)?.seq ?? 0;
    const env = { PATH: process.env.PATH ?? "", E2B_DOMAIN: emu.domain!, E2B_API_KEY: emu.apiKey, NODE_EXTRA_CA_CERTS: emu.caFile! };
    const { stdout } = await run(process.execPath, [join(__dirname, "fixtures", "official-sdk-by-domain.mjs")], { cwd: REPO, env, encoding: "utf8" });
    const seen = JSON.parse(stdout) as { sandboxId: string; stdout: string; read: string; listed: string[]; host: string; killedWait: string };
    expect(seen).toEqual({
      sandboxId: expect.stringMatching(/^[a-z0-9]+$/), stdout: "from-domain\nok\n", read: "written over https",
      listed: [seen.sandboxId], host: `8080-${seen.sandboxId}.${emu.domain}`, killedWait: expect.stringMatching(/Error$/),
    });
    // The kill cut a streaming TLS connection, as a dying sandbox's is cut (a reset): the emulator still answers.
    expect((await curl("--cacert", emu.caFile!, `${emu.apiUrl}/health`)).out).toBe("Health check successful\n200");
    const areas = new Set(emu.calls(since).map((c) => `${c.area} ${c.method} ${c.path.split("?")[0]}`));
    expect(areas).toContain("platform POST /v2/sandboxes");
    expect(areas).toContain("sandbox POST /process.Process/Start");
    expect(emu.state.sandboxes()).toEqual([]);
  });
});

describe("the domain option", () => {
  test("a host name with an optional port; anything else is refused with the rule", () => {
    expect(parseDomain("localhost")).toEqual({ host: "localhost", port: undefined });
    expect(parseDomain("E2B.localhost:8443")).toEqual({ host: "e2b.localhost", port: 8443 });
    for (const bad of ["https://localhost", "localhost/x", "127.0.0.1", "", "a..b", "localhost:99999"]) {
      expect(() => parseDomain(bad), bad).toThrow(
        `domain must be a host name with an optional port, as E2B_DOMAIN takes it (e.g. localhost or localhost:8443), got '${bad}'`,
      );
    }
  });

  test("a port in both the domain and the port option must agree; close() removes the CA", async () => {
    await expect(createEmulator({ domain: "localhost:1234", port: 1235 })).rejects.toThrow(
      "the domain's port 1234 and the port option 1235 differ: give the port in one of them",
    );
    const other = await createEmulator({ domain: "e2b.localhost" });
    const caFile = other.caFile!;
    expect(other.apiUrl).toMatch(/^https:\/\/api\.e2b\.localhost:\d+$/);
    await other.close();
    expect(existsSync(caFile)).toBe(false);
  });
});
