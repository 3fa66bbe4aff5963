import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { client, readyTemplate, startEmulator, useEmulator } from "./platform-helpers";

const lines: string[] = [];
const env = useEmulator({ apiKey: "e2b_admin_test_key", accessToken: "sk_e2b_admin_test_token", log: (l) => lines.push(l) });

describe("/_emulator/ admin endpoints", () => {
  test("need the API key", async () => {
    for (const path of ["/_emulator/inventory", "/_emulator/calls", "/_emulator/faults"]) {
      const res = await env.c.get(path, "none");
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/^Invalid API key, please visit https:\/\/e2b.dev\/docs\/api-key/);
    }
  });

  test("GET /_emulator/inventory shows sandboxes (running and paused, with metadata), templates and volumes", async () => {
    await readyTemplate(env.c, "inv");
    const running = (await env.c.post("/sandboxes", { templateID: "inv", metadata: { k: "v" } })).body.sandboxID;
    const paused = (await env.c.post("/sandboxes", { templateID: "base" })).body.sandboxID;
    await env.c.post(`/sandboxes/${paused}/pause`);
    const volumeID = (await env.c.post("/volumes", { name: "inv-vol" })).body.volumeID;
    const res = await env.c.get("/_emulator/inventory");
    expect(res.status).toBe(200);
    const byID = Object.fromEntries(res.body.sandboxes.map((s: { sandboxID: string }) => [s.sandboxID, s]));
    expect(byID[running]).toMatchObject({ state: "running", metadata: { k: "v" }, rootDir: join(env.emu.dataDir, "sandboxes", running) });
    expect(byID[paused]).toMatchObject({ state: "paused" });
    expect(res.body.templates.map((t: { aliases: string[] }) => t.aliases[0])).toEqual(["base", "inv"]);
    expect(res.body.volumes).toEqual([{ volumeID, name: "inv-vol", hostDir: join(env.emu.dataDir, "volumes", volumeID) }]);
    expect(env.emu.state.inventory()).toEqual(res.body);
  });

  test("GET /_emulator/calls logs requests with a since cursor, itself excluded", async () => {
    const start = (await env.c.get("/_emulator/calls")).body.last;
    await fetch(`${env.emu.apiUrl}/health`);
    await env.c.get("/sandboxes/inope");
    const res = await env.c.get(`/_emulator/calls?since=${start}`);
    expect(res.body.calls).toEqual([
      { seq: start + 1, time: expect.any(String), method: "GET", path: "/health", area: "platform", status: 200, ms: expect.any(Number) },
      { seq: start + 2, time: expect.any(String), method: "GET", path: "/sandboxes/inope", area: "platform", status: 404, ms: expect.any(Number) },
    ]);
    expect(res.body.last).toBe(start + 2);
    expect(env.emu.calls(start).map((r) => r.path)).toEqual(["/health", "/sandboxes/inope"]);
  });

  test("POST /_emulator/faults validates and replaces the settings", async () => {
    const bad = await env.c.post("/_emulator/faults", { rate429: 2 });
    expect(bad.body).toEqual({ code: 400, message: "rate429 must be between 0 and 1" });
    expect((await env.c.post("/_emulator/faults", { nope: 1 })).body.message).toMatch(/^unknown fault setting 'nope'/);
    expect((await env.c.post("/_emulator/faults", { latencyMs: 1, faultSeed: 7 })).body).toEqual({ faults: { latencyMs: 1, faultSeed: 7 } });
    expect((await env.c.post("/_emulator/faults", {})).body).toEqual({ faults: {} });
    expect(() => env.emu.setFaults({ dropRate: -1 })).toThrow("dropRate must be between 0 and 1");
  });
});

describe("server composition", () => {
  test("requests with the E2b-Sandbox-Id header go to the in-sandbox handler, not the platform router", async () => {
    const start = env.emu.calls().at(-1)?.seq ?? 0;
    await fetch(`${env.emu.sandboxUrl}/filesystem.Filesystem/ListDir`, {
      method: "POST",
      headers: { "e2b-sandbox-id": "inope", "e2b-sandbox-port": "49983", "content-type": "application/json" },
      body: "{}",
    });
    expect(env.emu.calls(start)).toEqual([expect.objectContaining({ area: "sandbox", path: "/filesystem.Filesystem/ListDir" })]);
  });

  test("the log sink gets one line per request and never the credentials", async () => {
    await fetch(`${env.emu.apiUrl}/health`);
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/health 200 [\d.]+ms$/));
    expect(lines.join("\n")).not.toContain("e2b_admin_test_key");
    expect(lines.join("\n")).not.toContain("sk_e2b_admin_test_token");
  });

  test("a default data dir is removed on close; a given one is kept; close is idempotent", async () => {
    const temp = await startEmulator();
    await client(temp).post("/sandboxes", { templateID: "base" });
    expect(existsSync(join(temp.dataDir, "sandboxes"))).toBe(true);
    await temp.close();
    await temp.close();
    expect(existsSync(temp.dataDir)).toBe(false);
    const mine = mkdtempSync(join(tmpdir(), "emu-given-"));
    const kept = await startEmulator({ dataDir: mine });
    expect(kept.dataDir).toBe(mine);
    await kept.close();
    expect(existsSync(join(mine, "sandboxes"))).toBe(true);
    rmSync(mine, { recursive: true, force: true });
  });

  test("bad options are refused at start", async () => {
    await expect(startEmulator({ buildDelayMs: -1 })).rejects.toThrow("buildDelayMs must be 0 or more milliseconds, got -1");
    await expect(startEmulator({ faults: { rate503: 1.5 } })).rejects.toThrow("rate503 must be between 0 and 1");
  });
});
