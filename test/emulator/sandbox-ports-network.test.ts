/**
 * The create request's `network` options as the sandbox proxy applies them
 * (docs/service.md#sandbox-ports): `maskRequestHost` is the Host a server in the sandbox sees (a
 * malformed one is refused at create), and without public traffic every port but envd's needs the
 * traffic access token, checked before the port. Then the fallback without namespaces.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sandbox, type ConnectionOpts } from "e2b";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { get, serve, urlOf } from "./ports-helpers";

const TOKEN_HEADER = "e2b-traffic-access-token";

let emu: Emulator;
let opts: ConnectionOpts;
const made: Sandbox[] = [];
beforeAll(async () => {
  emu = await createEmulator();
  opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl, domain: `localhost:${new URL(emu.apiUrl).port}` };
});
afterAll(async () => {
  await Promise.all(made.map((s) => s.kill().catch(() => undefined)));
  await emu?.close();
});

async function create(network: NonNullable<Parameters<typeof Sandbox.create>[1]>["network"]): Promise<Sandbox> {
  const sandbox = await Sandbox.create("base", { ...opts, network });
  made.push(sandbox);
  return sandbox;
}

/** A raw create, for the service's exact 400 message. */
async function createRaw(network: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${emu.apiUrl}/sandboxes`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": emu.apiKey },
    body: JSON.stringify({ templateID: "base", network }),
  });
  return { status: res.status, body: await res.json() };
}

describe("maskRequestHost", () => {
  it("is the Host the server sees, its ${PORT} the port, with the asked Host in X-Forwarded-Host", async () => {
    const sandbox = await create({ maskRequestHost: "app.internal:${PORT}" });
    await serve(sandbox, 8000, "masked");
    const answer = JSON.parse((await get(urlOf(sandbox, 8000))).text) as Record<string, unknown>;
    expect(answer).toMatchObject({ host: "app.internal:8000", forwardedHost: sandbox.getHost(8000) });
    // envd's own port is never masked: the SDK's calls still reach it.
    expect((await sandbox.commands.run("echo envd")).stdout).toBe("envd\n");
  });

  it.each([
    ["a:b:c", "mask request host is not valid: a:b:c"],
    ["[::1", "mask request host is not valid: [::1"],
    ["bad_name.example", "mask request host is not valid: bad_name.example"],
    ["-dash.example:80", "mask request host is not valid: -dash.example:80"],
    // The host name passes IDNA's STD3 rules, which have no `:`: an IPv6 literal is refused.
    ["[::1]:8080", "mask request host is not valid: [::1]:8080"],
    ["bücher.example", "mask request host 'bücher.example' is not ASCII. Please use ASCII characters only."],
  ])("%s is refused at create with 400", async (mask, message) => {
    expect(await createRaw({ maskRequestHost: mask })).toEqual({ status: 400, body: { code: 400, message } });
  });

  it.each(["Example.COM", "localhost:${PORT}", "10.0.0.1", "xn--bcher-kva.example"])("%s is accepted", async (mask) => {
    const res = await createRaw({ maskRequestHost: mask });
    expect(res.status).toBe(201);
    await fetch(`${emu.apiUrl}/sandboxes/${(res.body as { sandboxID: string }).sandboxID}`, { method: "DELETE", headers: { "x-api-key": emu.apiKey } });
  });
});

describe("allowPublicTraffic: false", () => {
  let secured: Sandbox;
  beforeAll(async () => {
    secured = await create({ allowPublicTraffic: false });
  });

  it("every port but envd's needs the traffic access token: 403 missing, 403 invalid, then through", async () => {
    expect(secured.trafficAccessToken).toMatch(/^[0-9a-f]{32,}$/);
    const token = { [TOKEN_HEADER]: secured.trafficAccessToken ?? "" };
    await serve(secured, 8000, "secured", "0.0.0.0", token);
    const missing = await get(urlOf(secured, 8000));
    expect(missing.status).toBe(403);
    expect(JSON.parse(missing.text)).toEqual({
      sandboxId: secured.sandboxId,
      message: "Sandbox is secured with traffic access token. Token header 'e2b-traffic-access-token' is missing",
      code: 403,
    });
    const wrong = await get(urlOf(secured, 8000), { [TOKEN_HEADER]: "0".repeat(64) });
    expect(wrong.status).toBe(403);
    expect(JSON.parse(wrong.text)).toMatchObject({ message: "Sandbox is secured with traffic access token. Provided token in header 'e2b-traffic-access-token' is invalid" });
    const right = await get(urlOf(secured, 8000), token);
    expect(JSON.parse(right.text)).toMatchObject({ label: "secured" });
  });

  it("is checked before the port: a closed port without the token is 403, with it 502", async () => {
    expect((await get(urlOf(secured, 3999))).status).toBe(403);
    expect((await get(urlOf(secured, 3999), { [TOKEN_HEADER]: secured.trafficAccessToken ?? "" })).status).toBe(502);
  });

  it("a browser without the token gets the page", async () => {
    const page = await get(urlOf(secured, 8000), { "user-agent": "Mozilla/5.0" });
    expect(page).toMatchObject({ status: 403, type: "text/html; charset=utf-8" });
    expect(page.text).toContain("<title>Missing Traffic Access Token</title>");
  });
});

describe("without namespaces", () => {
  it("a sandbox's port is the host's loopback port, still reached through the sandbox's URL", async () => {
    const closed = mkdtempSync(join(tmpdir(), "ports-closed-")); // 0700: no namespaces under it
    const plain = await createEmulator({ dataDir: join(closed, "data") });
    try {
      expect(plain.isolation.mode).toBe("none");
      const plainOpts = { apiKey: plain.apiKey, apiUrl: plain.apiUrl, sandboxUrl: plain.sandboxUrl, domain: `localhost:${new URL(plain.apiUrl).port}` };
      const sandbox = await Sandbox.create("base", plainOpts);
      await serve(sandbox, 8090, "plain", "127.0.0.1");
      expect(JSON.parse((await get(urlOf(sandbox, 8090))).text)).toMatchObject({ label: "plain" });
      expect(JSON.parse((await get("http://127.0.0.1:8090/")).text)).toMatchObject({ label: "plain" });
      // The emulator's own port is no sandbox's server: a closed port, not a request to itself again.
      const own = Number(new URL(plain.apiUrl).port);
      expect(JSON.parse((await get(urlOf(sandbox, own))).text)).toMatchObject({ message: "The sandbox is running but port is not open", port: own });
      // A port no socket can have is closed too.
      const beyond = await get(`${plain.sandboxUrl}/`, { "E2b-Sandbox-Id": sandbox.sandboxId, "E2b-Sandbox-Port": "70000" });
      expect(JSON.parse(beyond.text)).toMatchObject({ message: "The sandbox is running but port is not open", port: 70000 });
      await sandbox.kill();
    } finally {
      await plain.close();
      rmSync(closed, { recursive: true, force: true });
    }
  });
});
