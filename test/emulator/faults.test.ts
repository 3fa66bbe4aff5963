import { beforeEach, describe, expect, test } from "vitest";
import { startEmulator, useEmulator } from "./platform-helpers";

const env = useEmulator();
beforeEach(() => env.emu.setFaults({}));

/** A request's status, or "dropped" when the connection closed without an answer. */
async function attempt(path: string, init: RequestInit = {}): Promise<number | "dropped"> {
  try {
    const res = await fetch(`${env.emu.apiUrl}${path}`, { ...init, headers: { "x-api-key": env.emu.apiKey, "content-type": "application/json" } });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return "dropped";
  }
}

async function statuses(n: number, path = "/sandboxes/inope"): Promise<(number | "dropped")[]> {
  const out: (number | "dropped")[] = [];
  for (let i = 0; i < n; i++) out.push(await attempt(path));
  return out;
}

const count = <T>(xs: T[], x: T) => xs.filter((y) => y === x).length;

describe("rates with a seed", () => {
  test("rate429 answers about that share with the real body and Retry-After: 1; a seed repeats the sequence", async () => {
    env.emu.setFaults({ rate429: 0.3, faultSeed: 42 });
    const first = await statuses(200);
    expect(count(first, 429)).toBeGreaterThan(40);
    expect(count(first, 429)).toBeLessThan(80);
    expect(count(first, 429) + count(first, 404)).toBe(200);
    env.emu.setFaults({ rate429: 0.3, faultSeed: 42 });
    expect(await statuses(200)).toEqual(first);
    env.emu.setFaults({ rate429: 1, faultSeed: 1 });
    const res = await fetch(`${env.emu.apiUrl}/sandboxes/inope`, { headers: { "x-api-key": env.emu.apiKey } });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await res.json()).toEqual({ code: 429, message: "Rate limit exceeded" });
  });

  test("rate503 answers about that share with 503", async () => {
    env.emu.setFaults({ rate503: 0.5, faultSeed: 9 });
    const got = await statuses(200);
    expect(count(got, 503)).toBeGreaterThan(70);
    expect(count(got, 503)).toBeLessThan(130);
    env.emu.setFaults({ rate503: 1 });
    expect((await env.c.get("/sandboxes/inope")).body).toEqual({ code: 503, message: "Service Unavailable" });
  });

  test("refused requests are logged with a fault marker", async () => {
    const start = env.emu.calls().at(-1)?.seq ?? 0;
    env.emu.setFaults({ rate429: 1 });
    await attempt("/volumes");
    expect(env.emu.calls(start)).toEqual([expect.objectContaining({ path: "/volumes", status: 429, fault: "rate429" })]);
  });
});

describe("dropped connections", () => {
  test("dropRate: the request has no effect", async () => {
    const start = env.emu.calls().at(-1)?.seq ?? 0;
    env.emu.setFaults({ dropRate: 0.5, faultSeed: 3 });
    const outcomes: (number | "dropped")[] = [];
    for (let i = 0; i < 40; i++) outcomes.push(await attempt("/volumes", { method: "POST", body: JSON.stringify({ name: `drop-${i}` }) }));
    env.emu.setFaults({});
    expect(count(outcomes, "dropped")).toBeGreaterThan(8);
    expect(count(outcomes, 201)).toBeGreaterThan(8);
    expect(count(outcomes, 201) + count(outcomes, "dropped")).toBe(40);
    const made = new Set(env.emu.state.volumes().map((v) => v.name));
    outcomes.forEach((o, i) => expect(made.has(`drop-${i}`)).toBe(o === 201));
    const dropped = env.emu.calls(start).filter((r) => r.fault === "drop");
    expect(dropped.length).toBe(count(outcomes, "dropped"));
    expect(dropped.every((r) => r.status === null)).toBe(true);
  });

  test("dropAfterRate: the request takes effect but the client gets no answer", async () => {
    env.emu.setFaults({ dropAfterRate: 1 });
    const outcome = await attempt("/volumes", { method: "POST", body: JSON.stringify({ name: "after" }) });
    env.emu.setFaults({});
    expect(outcome).toBe("dropped");
    expect(env.emu.state.volumes().map((v) => v.name)).toContain("after");
    expect(env.emu.calls().at(-1)).toMatchObject({ path: "/volumes", status: 201, fault: "dropAfter" });
  });
});

describe("exemptions and latency", () => {
  test("/health and /_emulator/ are never faulted", async () => {
    env.emu.setFaults({ dropRate: 1 });
    expect(await attempt("/sandboxes/inope")).toBe("dropped");
    expect(await attempt("/health")).toBe(200);
    expect(await attempt("/_emulator/inventory")).toBe(200);
    env.emu.setFaults({ rate503: 1 });
    expect(await attempt("/health")).toBe(200);
    expect(await attempt("/_emulator/calls")).toBe(200);
    const reset = await attempt("/_emulator/faults", { method: "POST", body: "{}" });
    expect(reset).toBe(200);
    expect(await attempt("/sandboxes/inope")).toBe(404);
  });

  test("latencyMs delays platform requests by at least that much", async () => {
    env.emu.setFaults({ latencyMs: 150 });
    const started = performance.now();
    expect(await attempt("/sandboxes/inope")).toBe(404);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  test("fault settings can be given at start", async () => {
    const faulty = await startEmulator({ faults: { rate429: 1 } });
    try {
      const res = await fetch(`${faulty.apiUrl}/sandboxes/inope`, { headers: { "x-api-key": faulty.apiKey } });
      expect(res.status).toBe(429);
    } finally {
      await faulty.close();
    }
  });
});
