/**
 * Every start of a sandbox takes a slot of the team's concurrent-sandbox limit, not only a create
 * (docs/service.md#limits), through E2B's official SDK (`e2b`, unmodified): an auto-resume at the
 * limit is the proxy's 429 with the API's message and the sandbox stays paused
 * (docs/service.md#sandbox-proxy); a fork at the limit is that fork's 429 in the 201; `count` at
 * the limit or above is a 400 (docs/service.md#sandbox-fork). The limit is never passed.
 */
import { RateLimitError, Sandbox } from "e2b";
import { afterEach, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { get, urlOf } from "./ports-helpers";

const LIMIT_MESSAGE = "you have reached the maximum number of concurrent E2B sandboxes (2). If you need more, please visit 'https://e2b.dev/docs/billing'";

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** An emulator with a limit of 2, and the SDK's options for it (the domain names it for getHost). */
async function limitOfTwo() {
  emu = await createEmulator({ sandboxLimit: 2 });
  const { apiKey, apiUrl, sandboxUrl } = emu;
  const opts = { apiKey, apiUrl, sandboxUrl, domain: `localhost:${new URL(apiUrl).port}` };
  const create = (extra: Parameters<typeof Sandbox.create>[1] = {}) => Sandbox.create("base", { ...opts, timeoutMs: 120_000, ...extra });
  return { emu, opts, create };
}

const autoResume = { lifecycle: { onTimeout: "pause", autoResume: true } } as const;
const running = (e: Emulator) => e.state.sandboxes().filter((s) => s.state === "running").map((s) => s.sandboxID).sort();

describe("auto-resume at the limit", () => {
  it("an in-sandbox call to a paused sandbox is the proxy's 429 and it stays paused; once a slot is free it resumes", async () => {
    const { emu, opts, create } = await limitOfTwo();
    const paused = await create(autoResume);
    await paused.pause();
    const others = [await create(), await create()];
    const err = await paused.files.read("/etc/hostname").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toBe(`${LIMIT_MESSAGE}: The requests are being rate limited.`);
    expect((await Sandbox.getInfo(paused.sandboxId, opts)).state).toBe("paused");
    expect(running(emu)).toEqual(others.map((s) => s.sandboxId).sort());
    await others[0]!.kill();
    expect((await paused.commands.run("echo back")).stdout).toBe("back\n");
    expect(running(emu)).toEqual([paused.sandboxId, others[1]!.sandboxId].sort());
  });

  it("a request to a port of a paused sandbox is the same 429 (JSON, or the page for a browser)", async () => {
    const { emu, create } = await limitOfTwo();
    const paused = await create(autoResume);
    await paused.pause();
    await create();
    await create();
    const answer = await get(urlOf(paused, 8000), { accept: "application/json" });
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.text)).toEqual({ sandboxId: paused.sandboxId, message: LIMIT_MESSAGE, code: 429 });
    const page = await get(urlOf(paused, 8000), { "user-agent": "Mozilla/5.0" });
    expect([page.status, page.type]).toEqual([429, "text/html; charset=utf-8"]);
    expect(page.text).toContain("Sandbox Limit Reached");
    expect(running(emu)).toHaveLength(2);
  });

  it("two paused sandboxes called at once for the last slot: one resumes, the other is refused", async () => {
    const { emu, create } = await limitOfTwo();
    const [a, b] = [await create(autoResume), await create(autoResume)];
    await a.pause();
    await b.pause();
    await create();
    const outcomes = await Promise.allSettled([a, b].map((s) => s.files.read("/etc/hostname")));
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason] : []))[0]).toBeInstanceOf(RateLimitError);
    expect(running(emu)).toHaveLength(2);
  });
});

describe("fork at the limit", () => {
  it("a fork that would pass the limit is its own 429 in the answer, and makes nothing", async () => {
    const { emu, create } = await limitOfTwo();
    const parent = await create();
    await create();
    const forks = await parent.fork();
    expect(forks).toHaveLength(1);
    expect(forks[0]).toBeInstanceOf(RateLimitError);
    expect((forks[0] as Error).message).toBe(`Rate limit exceeded, please try again later - ${LIMIT_MESSAGE}`);
    expect(running(emu)).toHaveLength(2);
    expect(emu.state.sandboxes()).toHaveLength(2);
  });

  it("`count` at the limit is the service's 400 before anything is checkpointed", async () => {
    const { emu, opts, create } = await limitOfTwo();
    const parent = await create();
    const asked = await fetch(`${opts.apiUrl}/sandboxes/${parent.sandboxId}/fork`, {
      method: "POST",
      headers: { "x-api-key": opts.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ count: 2 }),
    });
    expect(asked.status).toBe(400);
    expect(await asked.json()).toEqual({ code: 400, message: "Count must be lower than the maximum number of concurrent sandboxes (2)" });
    expect(emu.state.sandboxes()).toHaveLength(1);
  });
});
