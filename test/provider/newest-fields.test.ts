/**
 * The inputs for the newest SDKs' fields (docs/service.md#sandbox-fields-of-the-newest-sdks), through
 * the provider's methods against the emulator: what a Sandbox with `network.httpsPorts`,
 * `network.dnsServers`, a wildcard rule domain, `lifecycle.onTimeout` and `pauseMode` sends at create
 * and at update, and what a Snapshot's `mode` sends. The request bodies are read from the emulator's
 * exchanges, exactly.
 */
import { beforeEach, describe, expect, test } from "vitest";
import type { Exchange } from "../../emulator/exchanges";
import { callsSince, checked, emulatorForFile, lastSeq, runtime } from "./harness";

const exchanges: Exchange[] = [];
const emu = emulatorForFile({ onExchange: (e) => void exchanges.push(e) });
beforeEach(() => void (exchanges.length = 0));

/** The request bodies of `method path` since the test began, in order. */
const bodiesOf = (method: string, path: string) => exchanges.filter((e) => e.method === method && e.path === path).map((e) => e.requestBody);
const record = (id: string) => emu().state.sandboxes().find((s) => s.sandboxID === id)!;

const rule = { "*.example.com": [{ transform: { headers: { "X-Key": "v" } } }] };

describe("Sandbox", () => {
  test("create sends httpsPorts, dnsServers, the wildcard rule and lifecycle; state paused pauses with pauseMode's body", async () => {
    const inputs = await checked("Sandbox", {
      templateID: "base", timeoutSeconds: 120, state: "paused", pauseMode: "filesystem",
      lifecycle: { onTimeout: { action: "pause", mode: "filesystem" } },
      network: { httpsPorts: [8443], dnsServers: ["1.1.1.1"], allowOut: ["*.example.com"], denyOut: ["0.0.0.0/0"], rules: rule },
      __resource: "proj/dev/newest",
    });
    const made = await runtime.create("Sandbox", inputs);
    const [body] = bodiesOf("POST", "/v2/sandboxes") as Record<string, unknown>[];
    expect({ network: body?.network, autoPause: body?.autoPause, autoPauseMemory: body?.autoPauseMemory }).toEqual({
      network: { httpsPorts: [8443], dnsServers: ["1.1.1.1"], allowOut: ["*.example.com"], denyOut: ["0.0.0.0/0"], rules: rule },
      autoPause: true,
      autoPauseMemory: false,
    });
    expect(bodiesOf("POST", `/sandboxes/${made.id}/pause`)).toEqual([{ memory: false }]);
    expect(record(made.id)).toMatchObject({
      state: "paused", pauseMode: "filesystem", lifecycle: { autoResume: false, onTimeout: "pause" },
      network: { httpsPorts: [8443], dnsServers: ["1.1.1.1"] },
    });
    expect(made.outs).toMatchObject({ state: "paused", pauseMode: "filesystem", network: { httpsPorts: [8443], dnsServers: ["1.1.1.1"] } });

    // A change of pauseMode while paused makes no call: it applies at the next pause.
    const full = await checked("Sandbox", { ...inputs, pauseMode: "full" }, made.outs);
    expect(await runtime.diff("Sandbox", made.id, made.outs, full)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    let since = lastSeq(emu());
    const kept = await runtime.update("Sandbox", made.id, made.outs, full);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([]);
    expect(record(made.id).pauseMode).toBe("filesystem");

    // Running, then paused again: the pause's body is the new mode's; dnsServers change through PUT .../network.
    const running = await checked("Sandbox", { ...full, state: "running", pauseMode: undefined }, kept.outs);
    const resumed = await runtime.update("Sandbox", made.id, kept.outs, running);
    const pausedAgain = await checked("Sandbox", { ...full, network: { ...(full.network as object), dnsServers: ["9.9.9.9", "8.8.8.8"] } }, resumed.outs);
    exchanges.length = 0;
    since = lastSeq(emu());
    await runtime.update("Sandbox", made.id, resumed.outs, pausedAgain);
    expect(callsSince(emu(), since, { writesOnly: true })).toEqual([`PUT /sandboxes/${made.id}/network`, `POST /sandboxes/${made.id}/pause`]);
    expect(bodiesOf("PUT", `/sandboxes/${made.id}/network`)).toEqual([
      { allowOut: ["*.example.com"], denyOut: ["0.0.0.0/0"], dnsServers: ["9.9.9.9", "8.8.8.8"], rules: rule, allow_internet_access: true },
    ]);
    expect(bodiesOf("POST", `/sandboxes/${made.id}/pause`)).toEqual([{ memory: true }]);
    expect(record(made.id)).toMatchObject({ state: "paused", pauseMode: "full", network: { httpsPorts: [8443], dnsServers: ["9.9.9.9", "8.8.8.8"] } });
    await runtime.remove("Sandbox", made.id, made.outs);
  });

  test("without pauseMode a pause sends no body, as before; a change of httpsPorts or lifecycle replaces", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", state: "paused", network: { httpsPorts: [8443] }, __resource: "proj/dev/plain-pause" });
    const made = await runtime.create("Sandbox", inputs);
    expect(exchanges.filter((e) => e.path === `/sandboxes/${made.id}/pause`).map((e) => ({ status: e.status, body: e.requestBody }))).toEqual([{ status: 204, body: undefined }]);
    expect(record(made.id).pauseMode).toBe("full");
    const ports = await checked("Sandbox", { ...inputs, network: { httpsPorts: [8443, 9443] } }, made.outs);
    expect(await runtime.diff("Sandbox", made.id, made.outs, ports)).toEqual({ changes: true, replaces: ["network.httpsPorts"], deleteBeforeReplace: false });
    const lifecycle = await checked("Sandbox", { ...inputs, lifecycle: { onTimeout: { action: "kill" } } }, made.outs);
    expect(await runtime.diff("Sandbox", made.id, made.outs, lifecycle)).toEqual({ changes: true, replaces: ["lifecycle"], deleteBeforeReplace: false });
    await runtime.remove("Sandbox", made.id, made.outs);
  });
});

describe("Snapshot", () => {
  test("mode filesystem sends memory: false, mode full memory: true, none no memory field", async () => {
    const box = await runtime.create("Sandbox", await checked("Sandbox", { templateID: "base", timeoutSeconds: 120, __resource: "proj/dev/snap-source" }));
    const path = `/sandboxes/${box.id}/snapshots`;
    const made = [];
    for (const mode of ["filesystem", "full", undefined]) {
      const inputs = await checked("Snapshot", { sandboxID: box.id, ...(mode ? { mode } : {}), __resource: `proj/dev/snap-${mode ?? "none"}` });
      made.push(await runtime.create("Snapshot", inputs));
    }
    // Each also carries the name its create gives it (an auto-name, by which a lost answer is found).
    const bodies = bodiesOf("POST", path) as Record<string, unknown>[];
    expect(bodies.map(({ name: _, ...rest }) => rest)).toEqual([{ memory: false }, { memory: true }, {}]);
    expect(bodies.map((b) => typeof b.name)).toEqual(["string", "string", "string"]);
    expect(exchanges.filter((e) => e.path === path).map((e) => e.status)).toEqual([201, 201, 201]);
    expect(made.map((m) => m.outs.mode)).toEqual(["filesystem", "full", undefined]);
    for (const m of made) await runtime.remove("Snapshot", m.id, m.outs);
    await runtime.remove("Sandbox", box.id, box.outs);
  });

  test("a change of mode takes a new snapshot", async () => {
    const inputs = { sandboxID: "i1", mode: "full", snapshotID: "x:default", names: [] };
    expect(await runtime.diff("Snapshot", "x:default", inputs, { sandboxID: "i1", mode: "filesystem" }))
      .toEqual({ changes: true, replaces: ["mode"], deleteBeforeReplace: false });
  });
});
