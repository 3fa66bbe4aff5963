/**
 * A port not open yet: the proxy dials it again, 100, 200, 300 and 400 ms apart, before its 502
 * (docs/service.md#sandbox-ports), so a server that starts listening just after the request was
 * sent still gets it, and a port that never opens is the 502 after about a second.
 */
import { Sandbox } from "e2b";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { get, urlOf } from "./ports-helpers";

/** The service's waits between its 5 dials, in all (infra: packages/shared/pkg/proxy/pool/client.go). */
const TOTAL_WAIT_MS = 100 + 200 + 300 + 400;

let emu: Emulator;
let sandbox: Sandbox;
beforeAll(async () => {
  emu = await createEmulator();
  const opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl, domain: `localhost:${new URL(emu.apiUrl).port}` };
  sandbox = await Sandbox.create("base", { ...opts, timeoutMs: 120_000 });
}, 30_000);
afterAll(async () => {
  await sandbox?.kill().catch(() => undefined);
  await emu?.close();
});

/**
 * Starts a node server on `port` that, once the file `go` exists, waits `delayMs` and then listens,
 * answering with the time it started listening; resolves once node runs and waits for `go`.
 */
async function lateServer(port: number, go: string, delayMs: number): Promise<void> {
  const ready = `${go}.ready`;
  const script =
    `const fs = require('fs'); fs.writeFileSync('${ready}', '');` +
    ` const wait = setInterval(() => { if (!fs.existsSync('${go}')) return; clearInterval(wait);` +
    ` setTimeout(() => { const at = Date.now(); require('http').createServer((q, s) => s.end(String(at))).listen(${port}); }, ${delayMs}); }, 10);`;
  await sandbox.commands.run(`node -e "${script}"`, { background: true });
  for (let i = 0; i < 100 && !(await sandbox.files.exists(ready)); i++) await new Promise((r) => setTimeout(r, 50));
}

describe("a port not open yet", () => {
  it("a server that starts listening 300 ms after the request was sent gets it", async () => {
    await lateServer(8300, "/tmp/go-8300", 300);
    // The bridge to the sandbox's ports starts at its first request; this one only warms it.
    expect((await get(urlOf(sandbox, 8399), { accept: "application/json" })).status).toBe(502);
    await sandbox.files.write("/tmp/go-8300", "");
    const sentAt = Date.now();
    const answer = await get(urlOf(sandbox, 8300));
    expect(answer.status).toBe(200);
    // It was not listening yet when the request was sent: only a later dial reached it.
    expect(Number(answer.text) - sentAt).toBeGreaterThanOrEqual(100);
  });

  it("one that never opens is the 502 after the service's second of retries", async () => {
    const started = performance.now();
    const answer = await get(urlOf(sandbox, 8301), { accept: "application/json" });
    const tookMs = performance.now() - started;
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text)).toEqual({ sandboxId: sandbox.sandboxId, message: "The sandbox is running but port is not open", port: 8301, code: 502 });
    expect(tookMs).toBeGreaterThanOrEqual(TOTAL_WAIT_MS);
    expect(tookMs).toBeLessThan(TOTAL_WAIT_MS + 4_000);
  });
});
