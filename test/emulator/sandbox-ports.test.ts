/**
 * Sandboxes serve their own ports, through the emulator as through the service's proxy
 * (docs/service.md#sandbox-ports): servers started with the official SDK are reached at the URL its
 * `getHost(port)` gives, and at the emulator's one URL with routing headers; each sandbox has its own
 * network, so two of them serve the same port; the proxy's own answers (closed port, unknown
 * sandbox, traffic token) come as JSON to a program and as a page to a browser; `maskRequestHost` is
 * the Host the server sees.
 */
import { request } from "node:http";
import type { Socket } from "node:net";
import { Sandbox, type ConnectionOpts } from "e2b";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { get, loopback, serve, urlOf } from "./ports-helpers";

const BROWSER = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0" };

let emu: Emulator;
let opts: ConnectionOpts;
let a: Sandbox;
let b: Sandbox;
beforeAll(async () => {
  emu = await createEmulator();
  opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl, domain: `localhost:${new URL(emu.apiUrl).port}` };
  [a, b] = await Promise.all([Sandbox.create("base", { ...opts, timeoutMs: 120_000 }), Sandbox.create("base", { ...opts, timeoutMs: 120_000 })]);
  await Promise.all([serve(a, 8000, "a"), serve(b, 8000, "b")]);
}, 60_000);
afterAll(async () => {
  await Promise.all([a, b].map((s) => s?.kill().catch(() => undefined)));
  await emu?.close();
});

describe("a server in a sandbox", () => {
  it("is reached at the SDK's URL for its port, and sees the Host it was asked for", async () => {
    const answer = await get(urlOf(a, 8000, "/some/path?x=1"));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ label: "a", host: a.getHost(8000), forwardedHost: null, path: "/some/path?x=1" });
  });

  it("is reached at the emulator's one URL with the routing headers", async () => {
    const answer = await get(`${emu.sandboxUrl}/by-header`, { "E2b-Sandbox-Id": a.sandboxId, "E2b-Sandbox-Port": "8000" });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ label: "a", path: "/by-header" });
  });

  it("is reached at the host form that carries a client ID, as the service's proxy reads it", async () => {
    const answer = await get(urlOf(a, 8000).replace(`${a.sandboxId}.`, `${a.sandboxId}-6532622b.`));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ label: "a" });
  });

  it.each([
    ["::", 8001],
    ["localhost", 8002],
    ["127.0.0.1", 8003],
    ["::1", 8004],
  ])("listening on %s is reached", async (host, port) => {
    await serve(a, port, `on-${port}`, host);
    const answer = await get(urlOf(a, port));
    expect(JSON.parse(answer.text)).toMatchObject({ label: `on-${port}` });
  });

  it("of each of two sandboxes answers on the same port: each sandbox has its own network", async () => {
    expect(emu.isolation.mode).toBe("namespaces");
    const [fromA, fromB] = await Promise.all([get(urlOf(a, 8000)), get(urlOf(b, 8000))]);
    expect(JSON.parse(fromA.text)).toMatchObject({ label: "a" });
    expect(JSON.parse(fromB.text)).toMatchObject({ label: "b" });
    // Nor does a sandbox's server show on the host's own loopback.
    await expect(get("http://127.0.0.1:8000/")).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe("an upgrade (WebSocket and the like)", () => {
  /** A server in the sandbox that switches to echoing what it gets, telling the Host it saw. */
  const ECHO =
    "const s = require('http').createServer((q, r) => r.end('plain'));" +
    " s.on('upgrade', (q, c) => { c.write('HTTP/1.1 101 Switching Protocols\\r\\nConnection: Upgrade\\r\\nUpgrade: echo\\r\\nX-Seen-Host: ' + q.headers.host + '\\r\\n\\r\\n'); c.pipe(c); });" +
    " s.listen(8100)";

  it("switches protocols through the sandbox's URL, and the two streams are joined", async () => {
    await a.commands.run(`node -e "${ECHO}"`, { background: true });
    for (let i = 0; i < 100 && (await get(urlOf(a, 8100))).status === 502; i++) await new Promise((r) => setTimeout(r, 100));
    const { status, seenHost, socket } = await new Promise<{ status: number; seenHost: unknown; socket: Socket }>((resolve, reject) => {
      const req = request(urlOf(a, 8100, "/ws"), { headers: { Connection: "Upgrade", Upgrade: "echo" }, lookup: loopback });
      req.on("upgrade", (res, socket) => resolve({ status: res.statusCode ?? 0, seenHost: res.headers["x-seen-host"], socket }));
      req.on("response", (res) => reject(new Error(`no switch: ${res.statusCode}`)));
      req.on("error", reject);
      req.end();
    });
    expect({ status, seenHost }).toEqual({ status: 101, seenHost: a.getHost(8100) });
    const echoed = new Promise<string>((resolve) => socket.once("data", (d: Buffer) => resolve(d.toString())));
    socket.write("ping");
    expect(await echoed).toBe("ping");
    socket.destroy();
  });

  it("to a closed port gets the proxy's 502, and the platform API still serves a request that asks to upgrade", async () => {
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(urlOf(a, 3000), { headers: { Connection: "Upgrade", Upgrade: "echo" }, lookup: loopback });
      req.on("response", (res) => {
        let body = "";
        res.on("data", (d: Buffer) => void (body += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("upgrade", () => reject(new Error("switched")));
      req.on("error", reject);
      req.end();
    });
    expect(refused).toEqual({ status: 502, body: JSON.stringify({ sandboxId: a.sandboxId, message: "The sandbox is running but port is not open", port: 3000, code: 502 }) });
    const list = await get(`${emu.apiUrl}/sandboxes`, { Connection: "Upgrade", Upgrade: "echo", "x-api-key": emu.apiKey });
    expect(list.status).toBe(200);
    expect((JSON.parse(list.text) as { sandboxID: string }[]).map((s) => s.sandboxID)).toContain(a.sandboxId);
  });
});

describe("the proxy's own answers", () => {
  it("a closed port: 502 JSON to a program, the HTML page to a browser, JSON to a browser's script", async () => {
    const json = await get(urlOf(a, 3000));
    expect(json).toEqual({
      status: 502,
      type: "application/json; charset=utf-8",
      text: JSON.stringify({ sandboxId: a.sandboxId, message: "The sandbox is running but port is not open", port: 3000, code: 502 }),
    });
    const page = await get(urlOf(a, 3000), BROWSER);
    expect(page).toMatchObject({ status: 502, type: "text/html; charset=utf-8" });
    expect(page.text).toContain("<title>Closed Port Error</title>");
    expect(page.text).toContain(`${a.sandboxId}</span> is running but there&#39s no service running on port <span class="highlight" id="port-number">3000</span>.`);
    expect(page.text).toContain(a.getHost(3000));
    const fromScript = await get(urlOf(a, 3000), { ...BROWSER, "sec-fetch-mode": "cors" });
    expect(fromScript).toMatchObject({ status: 502, type: "application/json; charset=utf-8" });
    const asksJson = await get(urlOf(a, 3000), { ...BROWSER, accept: "application/json" });
    expect(asksJson.type).toBe("application/json; charset=utf-8");
    const xhr = await get(urlOf(a, 3000), { ...BROWSER, "x-requested-with": "XMLHttpRequest" });
    expect(xhr.type).toBe("application/json; charset=utf-8");
    // A navigation says so outright, and wins over a header a script could set.
    const navigation = await get(urlOf(a, 3000), { ...BROWSER, "x-requested-with": "XMLHttpRequest", "sec-fetch-mode": "navigate", accept: "text/html,application/json" });
    expect(navigation.type).toBe("text/html; charset=utf-8");
  });

  it("an unknown sandbox: 502 JSON, and the page to a browser", async () => {
    const host = `8000-inosuchsandbox.localhost:${new URL(emu.apiUrl).port}`;
    const json = await get(`http://${host}/`);
    expect(json.status).toBe(502);
    expect(JSON.parse(json.text)).toEqual({ sandboxId: "inosuchsandbox", message: "The sandbox was not found", code: 502 });
    const page = await get(`http://${host}/`, BROWSER);
    expect(page).toMatchObject({ status: 502, type: "text/html; charset=utf-8" });
    expect(page.text).toContain("<title>Sandbox Not Found</title>");
    expect(page.text).toContain('The sandbox <span class="highlight" id="sandbox-id">inosuchsandbox</span> wasn\'t found.');
  });

  it("a killed sandbox's port is an unknown sandbox's", async () => {
    const c = await Sandbox.create("base", opts);
    await serve(c, 8000, "c");
    await c.kill();
    const answer = await get(urlOf(c, 8000));
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text)).toMatchObject({ message: "The sandbox was not found" });
  });
});
