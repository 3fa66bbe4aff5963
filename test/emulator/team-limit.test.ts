/**
 * The team's concurrent-sandbox limit and the per-operation latency (docs/service.md#limits): what a
 * create past the limit answers, that it made nothing, that starts in flight hold their slot, that a
 * resume takes one, and that the added times apply to their own operations only.
 */
import { Sandbox } from "e2b";
import { afterEach, describe, expect, test } from "vitest";
import type { Emulator } from "../../emulator";
import { parseArgs } from "../../emulator/cli-args";
import { client, createSandbox, startEmulator } from "./platform-helpers";

const LIMIT_MESSAGE = "you have reached the maximum number of concurrent E2B sandboxes (2). If you need more, please visit 'https://e2b.dev/docs/billing'";

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe("the concurrent-sandbox limit", () => {
  test("a create past it is the service's 429, with no Retry-After, and makes nothing; a kill frees a slot", async () => {
    emu = await startEmulator({ sandboxLimit: 2 });
    const c = client(emu);
    const first = await createSandbox(c);
    await createSandbox(c, { metadata: { n: "2" } });
    const refused = await c.post("/sandboxes", { templateID: "base", metadata: { n: "3" } });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: 429, message: LIMIT_MESSAGE });
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(emu.state.sandboxes().map((s) => s.metadata.n ?? "1").sort()).toEqual(["1", "2"]);
    expect((await c.del(`/sandboxes/${first}`)).status).toBe(204);
    expect((await c.post("/sandboxes", { templateID: "base" })).status).toBe(201);
  });

  test("the official SDK reports the service's message", async () => {
    emu = await startEmulator({ sandboxLimit: 2 });
    const opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl };
    await Sandbox.create("base", opts);
    await Sandbox.create("base", opts);
    await expect(Sandbox.create("base", opts)).rejects.toThrow(/RateLimit|rate limit/i);
    await expect(Sandbox.create("base", opts)).rejects.toThrow(/maximum number of concurrent E2B sandboxes \(2\)/);
  });

  test("creates in flight hold their slots: of 5 at once, 2 are made", async () => {
    emu = await startEmulator({ sandboxLimit: 2, latency: { createMs: 150 } });
    const c = client(emu);
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => c.post("/sandboxes", { templateID: "base" })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 429, 429, 429]);
    expect(emu.state.sandboxes()).toHaveLength(2);
  });

  test("paused sandboxes do not count; resuming one takes a slot", async () => {
    emu = await startEmulator({ sandboxLimit: 2 });
    const c = client(emu);
    const paused = await createSandbox(c);
    expect((await c.post(`/sandboxes/${paused}/pause`)).status).toBe(204);
    await createSandbox(c);
    await createSandbox(c);
    const resume = await c.post(`/sandboxes/${paused}/connect`, { timeout: 60 });
    expect(resume.status).toBe(429);
    expect(resume.body.message).toBe(LIMIT_MESSAGE);
    expect(emu.state.sandboxes().find((s) => s.sandboxID === paused)?.state).toBe("paused");
  });
});

describe("per-operation latency", () => {
  test("create, connect and kill take their own added time; a get takes none of it", async () => {
    emu = await startEmulator({ latency: { createMs: 200, connectMs: 120, killMs: 160 } });
    const c = client(emu);
    const id = await createSandbox(c);
    await c.get(`/sandboxes/${id}`);
    await c.post(`/sandboxes/${id}/connect`, { timeout: 60 });
    await c.del(`/sandboxes/${id}`);
    const ms = Object.fromEntries(emu.calls().map((call) => [`${call.method} ${call.path.replace(id, "ID")}`, call.ms]));
    expect(ms["POST /sandboxes"]).toBeGreaterThanOrEqual(200);
    expect(ms["POST /sandboxes/ID/connect"]).toBeGreaterThanOrEqual(120);
    expect(ms["DELETE /sandboxes/ID"]).toBeGreaterThanOrEqual(160);
    expect(ms["GET /sandboxes/ID"]).toBeLessThan(100);
  });

  test("a build's steps each take the added time", async () => {
    emu = await startEmulator({ buildDelayMs: 0, latency: { buildStepMs: 100 } });
    const c = client(emu);
    const asked = await c.post("/v3/templates", { name: "slow-steps", cpuCount: 1, memoryMB: 512 });
    const { templateID, buildID } = asked.body;
    const started = Date.now();
    expect((await c.post(`/v2/templates/${templateID}/builds/${buildID}`, { fromImage: "ubuntu:22.04", steps: [{ type: "ENV", args: ["A", "1"] }] })).status).toBe(202);
    for (;;) {
      const status = (await c.get(`/templates/${templateID}/builds/${buildID}/status`)).body.status;
      if (status === "ready") break;
      expect(status).not.toBe("error");
      await new Promise((r) => setTimeout(r, 20));
    }
    // base, one step, finalize and the two ends: at least 4 steps of 100 ms before ready.
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });
});

describe("flags", () => {
  test("--sandbox-limit and the per-operation times become options; a limit of 0 is refused", () => {
    expect(parseArgs(["--sandbox-limit", "100", "--create-ms=150", "--connect-ms", "80", "--kill-ms", "40", "--build-step-ms", "500"])).toEqual({
      kind: "run",
      options: { sandboxLimit: 100, latency: { createMs: 150, connectMs: 80, killMs: 40, buildStepMs: 500 } },
    });
    expect(parseArgs(["--sandbox-limit", "0"])).toEqual({ kind: "error", message: "option '--sandbox-limit' needs an integer from 1 to 2147483647, got '0'" });
  });
});
