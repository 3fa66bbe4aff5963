/**
 * The sandbox fields of the newest official SDKs (PyPI e2b 2.63.0, npm e2b 2.51.0), as the emulator
 * serves them (docs/service.md#sandbox-fields-of-the-newest-sdks): pause modes and `pauseMode`, the
 * guest agent that does not answer (`requireHealthyGuest`, `envdUnresponsiveAtPause`, the 409 with
 * `error_code`), `memory: false` snapshots, `httpsPorts`, `dnsServers`, wildcard rule domains,
 * `egressProxy.tls` and a null `allowPublicTraffic`. Through the official JS SDK (unmodified) where it
 * has the option (`keepMemory`, `onTimeout.keepMemory`, `onResume`, `network.httpsPorts`), raw HTTP
 * otherwise.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sandbox, SandboxError, ServiceBusyError } from "e2b";
import { afterAll, beforeAll, describe, expect, it, test } from "vitest";
import { ruleDomainFor } from "../../emulator/network-rules";
import { useOfficialEmulator } from "./official-helpers";
import { client, type Client, type Res } from "./platform-helpers";
import { get, urlOf } from "./ports-helpers";

const bench = useOfficialEmulator();
let c: Client;
beforeAll(() => {
  c = client(bench.emu);
});

async function sandbox(extra: Parameters<typeof Sandbox.create>[1] = {}): Promise<Sandbox> {
  const s = await Sandbox.create("base", { ...bench.opts, timeoutMs: 120_000, ...extra });
  bench.made.push(s);
  return s;
}

/** POST /sandboxes (v2, as the newest SDKs) with `body`; the sandbox made is killed after the file. */
async function create(body: Record<string, unknown>): Promise<Res> {
  const res = await c.post("/v2/sandboxes", { templateID: "base", timeout: 120, ...body });
  if (res.status === 201) bench.made.push(await Sandbox.connect(res.body.sandboxID, bench.opts));
  return res;
}

const detail = async (id: string) => (await c.get(`/sandboxes/${id}`)).body;
const markEnvd = (id: string, responsive: boolean) => c.post(`/_emulator/sandboxes/${id}/envd`, { responsive });
const bootId = async (s: Sandbox) => (await s.commands.run("cat /proc/sys/kernel/random/boot_id")).stdout.trim();

describe("pause modes", () => {
  it("a full pause: detail pauseMode full while paused, none once running again, processes kept", async () => {
    const s = await sandbox();
    const cmd = await s.commands.run("sleep 3600", { background: true });
    expect(await s.pause()).toBe(true);
    const paused = await detail(s.sandboxId);
    expect(paused.state).toBe("paused");
    expect(paused.pauseMode).toBe("full");
    expect(paused).not.toHaveProperty("envdUnresponsiveAtPause");
    await s.connect();
    expect(await detail(s.sandboxId)).not.toHaveProperty("pauseMode");
    expect((await s.commands.list()).map((p) => p.pid)).toContain(cmd.pid);
  });

  it("a filesystem pause (keepMemory: false): pauseMode filesystem; the resume cold-boots, processes gone, files kept", async () => {
    const s = await sandbox();
    const boot = await bootId(s);
    const cmd = await s.commands.run("sleep 3600", { background: true });
    await s.files.write("/home/user/kept.txt", "kept");
    expect(await s.pause({ keepMemory: false })).toBe(true);
    expect((await detail(s.sandboxId)).pauseMode).toBe("filesystem");
    await s.connect();
    expect((await s.commands.list()).map((p) => p.pid)).not.toContain(cmd.pid);
    expect((await s.commands.run("pgrep -c -f '^sleep 3600' || true")).stdout.trim()).toBe("0");
    expect(await s.files.read("/home/user/kept.txt")).toBe("kept");
    expect(await bootId(s)).not.toBe(boot);
    expect(await detail(s.sandboxId)).not.toHaveProperty("pauseMode");
  });

  it("lifecycle onTimeout {action: pause, keepMemory: false}: the timeout's pause saves the files only", async () => {
    const s = await sandbox({ timeoutMs: 1_000, lifecycle: { onTimeout: { action: "pause", keepMemory: false } } });
    const start = Date.now();
    let found: { state: string; pauseMode?: string } = await detail(s.sandboxId);
    while (found.pauseMode === undefined && Date.now() - start < 10_000) {
      await new Promise((r) => setTimeout(r, 50));
      found = await detail(s.sandboxId);
    }
    expect(found.state).toBe("paused");
    expect(found.pauseMode).toBe("filesystem");
    expect((await detail(s.sandboxId)).lifecycle).toEqual({ autoResume: false, onTimeout: "pause" });
  });

  test("the body's fields are checked: requireHealthyGuest must be a boolean", async () => {
    const s = await sandbox();
    const res = await c.post(`/sandboxes/${s.sandboxId}/pause`, { requireHealthyGuest: "yes" });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^validation error: request body has an error: .*requireHealthyGuest/);
    expect((await detail(s.sandboxId)).state).toBe("running");
  });
});

describe("a guest agent that does not answer", () => {
  it("requireHealthyGuest: a 503 and the sandbox keeps running; without it the pause goes on and says so", async () => {
    const s = await sandbox();
    expect((await markEnvd(s.sandboxId, false)).status).toBe(204);
    const refused = await c.post(`/sandboxes/${s.sandboxId}/pause`, { requireHealthyGuest: true });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      code: 503,
      message: `Sandbox '${s.sandboxId}' cannot be paused: its guest agent is not responding and requireHealthyGuest was set; the sandbox keeps running, retry later`,
    });
    expect((await detail(s.sandboxId)).state).toBe("running");
    expect((await c.post(`/sandboxes/${s.sandboxId}/pause`, {})).status).toBe(204);
    const paused = await detail(s.sandboxId);
    expect(paused.envdUnresponsiveAtPause).toBe(true);
    expect(paused.pauseMode).toBe("full");
    const listed = (await c.get("/v2/sandboxes?state=paused")).body as { sandboxID: string; envdUnresponsiveAtPause?: boolean }[];
    expect(listed.find((l) => l.sandboxID === s.sandboxId)?.envdUnresponsiveAtPause).toBe(true);
  });

  it("a filesystem-only pause is refused (503) whatever requireHealthyGuest says; the SDK raises ServiceBusyError", async () => {
    const s = await sandbox();
    await markEnvd(s.sandboxId, false);
    const refused = await c.post(`/sandboxes/${s.sandboxId}/pause`, { memory: false, requireHealthyGuest: false });
    expect(refused.status).toBe(503);
    expect(refused.body.message).toBe(
      `Sandbox '${s.sandboxId}' cannot be paused: its guest agent is not responding and a filesystem-only pause needs it; the sandbox keeps running, retry later`,
    );
    await expect(s.pause({ keepMemory: false })).rejects.toBeInstanceOf(ServiceBusyError);
    expect((await detail(s.sandboxId)).state).toBe("running");
  });

  it("a plain resume is a 409 with error_code sandbox_snapshot_guest_agent_unresponsive; memory: false cold-boots it", async () => {
    const s = await sandbox();
    const cmd = await s.commands.run("sleep 3600", { background: true });
    await markEnvd(s.sandboxId, false);
    expect(await s.pause()).toBe(true);
    const body = {
      code: 409,
      message: `Sandbox '${s.sandboxId}' was paused while its guest agent was not responding; resume it without memory (memory: false)`,
      error_code: "sandbox_snapshot_guest_agent_unresponsive",
    };
    for (const [path, req] of [
      [`/v2/sandboxes/${s.sandboxId}/connect`, { timeout: 60 }],
      [`/sandboxes/${s.sandboxId}/connect`, { timeout: 60 }],
      [`/sandboxes/${s.sandboxId}/resume`, { timeout: 60, memory: true }],
    ] as const) {
      const res = await c.post(path, req);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 409, body });
    }
    const plain = await Sandbox.connect(s.sandboxId, bench.opts).catch((err: unknown) => err);
    expect(plain).toBeInstanceOf(SandboxError);
    expect((plain as SandboxError).message).toBe(`409: ${body.message}`);
    expect((await detail(s.sandboxId)).state).toBe("paused");
    // The SDK's rescue path: onResume "reboot" sends memory: false.
    const back = await Sandbox.connect(s.sandboxId, { ...bench.opts, onResume: "reboot" });
    expect((await back.commands.list()).map((p) => p.pid)).not.toContain(cmd.pid);
    const running = await detail(s.sandboxId);
    expect(running.state).toBe("running");
    expect(running).not.toHaveProperty("envdUnresponsiveAtPause");
    // The cold boot started an agent that answers: a filesystem pause now goes through.
    expect(await back.pause({ keepMemory: false })).toBe(true);
    expect((await detail(s.sandboxId)).pauseMode).toBe("filesystem");
  });

  it("auto-resume leaves such a sandbox paused (502), as a plain resume would be refused", async () => {
    const s = await sandbox({ lifecycle: { onTimeout: "pause", autoResume: true } });
    await markEnvd(s.sandboxId, false);
    await s.pause();
    const res = await fetch(`${bench.emu.sandboxUrl}/process.Process/List`, {
      method: "POST",
      headers: { "content-type": "application/json", "connect-protocol-version": "1", "e2b-sandbox-id": s.sandboxId },
      body: "{}",
    });
    expect(res.status).toBe(502);
    expect((await detail(s.sandboxId)).state).toBe("paused");
  });

  test("the switch: 404 for no such sandbox, 409 for a paused one, 400 for a body without responsive", async () => {
    expect((await markEnvd("inosuchsandbox000000", false)).status).toBe(404);
    const s = await sandbox();
    expect((await c.post(`/_emulator/sandboxes/${s.sandboxId}/envd`, {})).status).toBe(400);
    await s.pause();
    const paused = await markEnvd(s.sandboxId, false);
    expect(paused.status).toBe(409);
    expect(paused.body.message).toBe(`Sandbox '${s.sandboxId}' is paused: only a running sandbox's guest agent can be marked`);
  });
});

describe("snapshots with memory: false", () => {
  it("is taken (201), the sandbox keeps running, and a sandbox from it has the files and none of the processes", async () => {
    const s = await sandbox();
    await s.files.write("/home/user/snap.txt", "from-snapshot");
    await s.commands.run("sleep 4343", { background: true });
    const res = await c.post(`/sandboxes/${s.sandboxId}/snapshots`, { memory: false });
    expect(res.status).toBe(201);
    expect(res.body.snapshotID).toMatch(/^[a-z0-9]{20}:default$/);
    expect((await detail(s.sandboxId)).state).toBe("running");
    const child = await Sandbox.create(res.body.snapshotID, { ...bench.opts, timeoutMs: 60_000 });
    bench.made.push(child);
    expect(await child.files.read("/home/user/snap.txt")).toBe("from-snapshot");
    expect((await child.commands.run("pgrep -c -f '^sleep 4343' || true")).stdout.trim()).toBe("0");
  });

  test("memory must be a boolean", async () => {
    const s = await sandbox();
    const res = await c.post(`/sandboxes/${s.sandboxId}/snapshots`, { memory: "no" });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^validation error: request body has an error: .*memory/);
  });
});

describe("network.httpsPorts", () => {
  let certDir: string;
  beforeAll(() => {
    certDir = mkdtempSync(join(tmpdir(), "https-port-"));
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=self-signed",
      "-keyout", join(certDir, "key.pem"), "-out", join(certDir, "cert.pem")], { stdio: "ignore" });
  });
  afterAll(() => rmSync(certDir, { recursive: true, force: true }));

  /** Starts a self-signed HTTPS server on `port` in the sandbox, answering `label`. */
  async function serveHttps(s: Sandbox, port: number, label: string): Promise<void> {
    await s.files.write("/home/user/key.pem", readFileSync(join(certDir, "key.pem"), "utf8"));
    await s.files.write("/home/user/cert.pem", readFileSync(join(certDir, "cert.pem"), "utf8"));
    const script =
      "const fs = require('fs'); require('https').createServer({ key: fs.readFileSync('/home/user/key.pem'), cert: fs.readFileSync('/home/user/cert.pem') }," +
      " (q, r) => r.end(process.argv[1])).listen(Number(process.argv[2]), '0.0.0.0')";
    await s.commands.run(`node -e "${script}" ${label} ${port}`, { background: true });
    await s.commands.run(`for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && exit 0; sleep 0.1; done; exit 1`);
  }

  it("the proxy reaches a listed port over TLS (a self-signed certificate is fine); the SDK reads them back", async () => {
    const s = await sandbox({ network: { httpsPorts: [8443] } });
    await serveHttps(s, 8443, "over-tls");
    const answer = await get(urlOf(s, 8443));
    expect({ status: answer.status, text: answer.text }).toEqual({ status: 200, text: "over-tls" });
    expect((await Sandbox.getInfo(s.sandboxId, bench.opts)).network?.httpsPorts).toEqual([8443]);
  });

  it("a port not listed is reached in plain HTTP, which a TLS server does not answer: the closed-port 502", async () => {
    const s = await sandbox({ network: { httpsPorts: [9443] } });
    await serveHttps(s, 8443, "not-listed");
    expect((await get(urlOf(s, 8443))).status).toBe(502);
  });

  test("envd's port 49983 is a 400 naming it; a port out of range is a 400; nothing is made", async () => {
    const before = bench.emu.state.sandboxes().length;
    const envd = await create({ network: { httpsPorts: [443, 49983] } });
    expect(envd.status).toBe(400);
    expect(envd.body).toEqual({ code: 400, message: "httpsPorts cannot include 49983: it is envd's port, which the proxy always reaches itself" });
    expect((await create({ network: { httpsPorts: [0] } })).body).toEqual({ code: 400, message: "httpsPorts entry 0 is not a port (1-65535)" });
    expect((await create({ network: { httpsPorts: [65_536] } })).body).toEqual({ code: 400, message: "httpsPorts entry 65536 is not a port (1-65535)" });
    expect(bench.emu.state.sandboxes().length).toBe(before);
  });

  test("PUT .../network keeps them (they are fixed at creation)", async () => {
    const made = await create({ network: { httpsPorts: [8443], allowOut: ["1.1.1.1"] } });
    const id = made.body.sandboxID as string;
    expect((await c.call("PUT", `/sandboxes/${id}/network`, { denyOut: ["10.0.0.0/8"], httpsPorts: [1234] })).status).toBe(204);
    expect((await detail(id)).network).toEqual({ httpsPorts: [8443], denyOut: ["10.0.0.0/8"] });
  });
});

describe("network.dnsServers", () => {
  test("IPv4 addresses are kept; an empty list is kept; anything else is a 400 naming the entry", async () => {
    const made = await create({ network: { allowOut: ["example.com"], denyOut: ["0.0.0.0/0"], dnsServers: ["1.1.1.1", "9.9.9.9"] } });
    expect(made.status).toBe(201);
    expect((await detail(made.body.sandboxID)).network.dnsServers).toEqual(["1.1.1.1", "9.9.9.9"]);
    const none = await create({ network: { dnsServers: [] } });
    expect((await detail(none.body.sandboxID)).network).toEqual({ dnsServers: [] });
    for (const bad of ["2001:4860:4860::8888", "1.1.1.1/32", "dns.google", "256.1.1.1"]) {
      expect((await create({ network: { dnsServers: ["8.8.8.8", bad] } })).body, bad).toEqual({ code: 400, message: `dnsServers entry "${bad}" is not an IPv4 address` });
    }
  });

  test("PUT .../network replaces them, and leaving them out goes back to the default (none kept)", async () => {
    const made = await create({ network: { dnsServers: ["1.1.1.1"] } });
    const id = made.body.sandboxID as string;
    expect((await c.call("PUT", `/sandboxes/${id}/network`, { dnsServers: ["8.8.4.4"] })).status).toBe(204);
    expect((await detail(id)).network).toEqual({ dnsServers: ["8.8.4.4"] });
    expect((await c.call("PUT", `/sandboxes/${id}/network`, { dnsServers: ["::1"] })).body).toEqual({ code: 400, message: 'dnsServers entry "::1" is not an IPv4 address' });
    expect((await c.call("PUT", `/sandboxes/${id}/network`, {})).status).toBe(204);
    expect((await detail(id)).network).toBeUndefined();
  });
});

describe("wildcard rule domains", () => {
  const rule = { transform: { headers: { "X-Key": "v" } } };

  test("a leading *. is accepted on create and PUT; domains are kept lower-cased", async () => {
    const made = await create({ network: { rules: { "*.Example.com": [rule], "API.example.com": [rule] } } });
    expect(made.status).toBe(201);
    expect(Object.keys((await detail(made.body.sandboxID)).network.rules)).toEqual(["*.example.com", "api.example.com"]);
    const put = await c.call("PUT", `/sandboxes/${made.body.sandboxID}/network`, { rules: { "*.COM": [rule] } });
    expect(put.status).toBe(204);
    expect((await detail(made.body.sandboxID)).network.rules).toEqual({ "*.com": [rule] });
  });

  test("a bare *, a * inside a name and *.*. are not domain names; two keys equal in lower case are a 400", async () => {
    for (const bad of ["*", "*.", "a.*.com", "*example.com", "*.*.example.com"]) {
      expect((await create({ network: { rules: { [bad]: [rule] } } })).body, bad).toEqual({ code: 400, message: `Rule domain "${bad}" is not a valid domain name.` });
    }
    expect((await create({ network: { rules: { "a.example.com": [rule], "A.example.com": [rule] } } })).body)
      .toEqual({ code: 400, message: 'Rule domain "A.example.com" is given twice (domains are compared in lower case).' });
  });

  test("which rule applies to a host: the exact domain, else the longest wildcard; a wildcard never matches its apex", () => {
    const domains = ["*.com", "*.example.com", "api.example.com", "*.eu.example.com"];
    expect(ruleDomainFor(domains, "api.example.com")).toBe("api.example.com");
    expect(ruleDomainFor(domains, "API.Example.com.")).toBe("api.example.com");
    expect(ruleDomainFor(domains, "x.api.example.com")).toBe("*.example.com");
    expect(ruleDomainFor(domains, "a.b.eu.example.com")).toBe("*.eu.example.com");
    expect(ruleDomainFor(domains, "example.com")).toBe("*.com");
    expect(ruleDomainFor(domains, "eu.example.com")).toBe("*.example.com");
    expect(ruleDomainFor(domains, "example.org")).toBeUndefined();
    expect(ruleDomainFor(["*.example.com"], "example.com")).toBeUndefined();
  });
});

describe("egressProxy.tls and allowPublicTraffic null", () => {
  test("tls with enabled false and another field is a 400; a valid one meets the team's gate (403)", async () => {
    const proxy = (tls: unknown) => ({ network: { egressProxy: { address: "proxy.example.com:1080", tls } } });
    expect((await create(proxy({ enabled: false, serverName: "proxy" }))).body)
      .toEqual({ code: 400, message: "egressProxy.tls: with enabled false, no other field (serverName, caCert) may be set" });
    expect((await create(proxy({ enabled: "yes" }))).status).toBe(400);
    const gated = { code: 403, message: "Egress proxy (egressProxy) is not enabled for this team." };
    expect((await create(proxy({ enabled: true, serverName: "proxy", caCert: "-----BEGIN CERTIFICATE-----" }))).body).toEqual(gated);
    expect((await create(proxy(null))).body).toEqual(gated);
    const made = await create({});
    const put = await c.call("PUT", `/sandboxes/${made.body.sandboxID}/network`, { egressProxy: { address: "p:1080", tls: { enabled: false, caCert: "x" } } });
    expect(put.body).toEqual({ code: 400, message: "egressProxy.tls: with enabled false, no other field (serverName, caCert) may be set" });
  });

  test("a null allowPublicTraffic is the default (public): no traffic token, nothing kept", async () => {
    const made = await create({ network: { allowPublicTraffic: null, maskRequestHost: "x.test" } });
    expect(made.status).toBe(201);
    expect(made.body.trafficAccessToken).toBeNull();
    expect((await detail(made.body.sandboxID)).network).toEqual({ maskRequestHost: "x.test" });
  });
});
