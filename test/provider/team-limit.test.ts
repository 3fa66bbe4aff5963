/**
 * The provider at the team's concurrent-sandbox limit (docs/service.md#limits), against an emulator
 * with a limit of 2: creates past it wait on their own row and go through as slots free, with one
 * sandbox each (no duplicate, none left over), and a wait that never ends fails with what to do.
 */
import { describe, expect, test } from "vitest";
import { waitingForLimit } from "../../provider/runtime/limit-wait";
import { platform } from "../../provider/runtime/context";
import { capturedStderr, checked, emulatorForFile, lastSeq, runtime } from "./harness";

const emu = emulatorForFile({ sandboxLimit: 2, latency: { createMs: 30 } });

/** What the provider printed for the engine's log (its stderr) while a test ran. */
const stderr = capturedStderr();
const linesOf = (name: string) => stderr.text().split("\n").filter((l) => l.startsWith(`[Sandbox ${name}] `));
const LIMIT = "you have reached the maximum number of concurrent E2B sandboxes (2)";

describe("creates past the limit", () => {
  test("5 creates at a limit of 2 all succeed as slots free, each waiting on its own row, one sandbox each", async () => {
    const since = lastSeq(emu());
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, emu().state.sandboxes().length)), 5);
    const made = await Promise.all([1, 2, 3, 4, 5].map(async (n) => {
      const inputs = await checked("Sandbox", { templateID: "base", __resource: `proj/dev/box-${n}` });
      const { id, outs } = await runtime.create("Sandbox", inputs);
      // Each sandbox lives a moment, then ends, as other sandboxes of a busy team do: its slot frees.
      await new Promise((r) => setTimeout(r, 200));
      await runtime.remove("Sandbox", id, outs);
      return id;
    }));
    clearInterval(watch);
    expect(new Set(made).size).toBe(5);
    expect(most).toBeLessThanOrEqual(2);
    expect(emu().state.sandboxes()).toEqual([]);
    const creates = emu().calls(since).filter((c) => c.method === "POST" && c.path === "/v2/sandboxes");
    expect(creates.filter((c) => c.status === 201)).toHaveLength(5);
    expect(creates.filter((c) => c.status === 429).length).toBeGreaterThan(0);
    const waited = [1, 2, 3, 4, 5].map((n) => linesOf(`box-${n}`)).filter((lines) => lines.length > 0);
    expect(waited.length).toBeGreaterThanOrEqual(3);
    for (const lines of waited) {
      expect(lines[0]).toMatch(/^\[Sandbox box-\d\] waiting for the team's concurrent-sandbox limit \(you have reached the maximum number of concurrent E2B sandboxes \(2\)\. .*\); the create made nothing and is tried again/);
      expect(lines.at(-1)).toMatch(/^\[Sandbox box-\d\] create went through after waiting [\d.]+ m?s for the team's concurrent-sandbox limit$/);
    }
  });

  test("a fleet's member past the limit waits for a slot as a Sandbox does, on the fleet's row, and the fleet is made once one frees", async () => {
    const held = await runtime.create("Sandbox", await checked("Sandbox", { templateID: "base", __resource: "proj/dev/holder" }));
    const key = "inst/urn:pulumi:dev::proj::pulumi-nodejs:dynamic/sandbox:SandboxFleet::pool";
    const inputs = await checked("SandboxFleet", { sandbox: { templateID: "base" }, count: 2, __resource: key });
    const fleet = runtime.create("SandboxFleet", inputs);
    // The holder's slot frees once a member has waited: then both members are made.
    while (!/\[Sandbox pool\/members\/[01]\] waiting for the team's concurrent-sandbox limit/.test(stderr.text())) await new Promise((r) => setTimeout(r, 20));
    await runtime.remove("Sandbox", held.id, held.outs);
    const { id, outs } = await fleet;
    expect(Object.keys(outs.sandboxes as object).sort()).toEqual(["0", "1"]);
    const waited = ["0", "1"].filter((k) => linesOf(`pool/members/${k}`).length > 0);
    expect(waited).toHaveLength(1);
    expect(linesOf(`pool/members/${waited[0]}`).at(-1)).toMatch(/^\[Sandbox pool\/members\/[01]\] create went through after waiting [\d.]+ m?s for the team's concurrent-sandbox limit$/);
    await runtime.remove("SandboxFleet", id, outs);
    expect(emu().state.sandboxes()).toEqual([]);
  });

  test("a paused sandbox's resume waits for a slot too", async () => {
    const inputs = await checked("Sandbox", { templateID: "base", state: "paused", __resource: "proj/dev/sleeper" });
    const paused = await runtime.create("Sandbox", inputs);
    const others = await Promise.all([1, 2].map(async (n) => runtime.create("Sandbox", await checked("Sandbox", { templateID: "base", __resource: `proj/dev/other-${n}` }))));
    setTimeout(() => void runtime.remove("Sandbox", others[0]!.id, others[0]!.outs), 300);
    const news = await checked("Sandbox", { templateID: "base", state: "running", __resource: "proj/dev/sleeper" }, paused.outs);
    await runtime.update("Sandbox", paused.id, paused.outs, news);
    expect(emu().state.sandboxes().find((s) => s.sandboxID === paused.id)?.state).toBe("running");
    expect(linesOf("sleeper").join("\n")).toMatch(/waiting for the team's concurrent-sandbox limit .*; the resume made nothing and is tried again/);
    await runtime.remove("Sandbox", paused.id, paused.outs);
    await runtime.remove("Sandbox", others[1]!.id, others[1]!.outs);
  });

  test("a limit that stays reached fails the create with what to do, and leaves nothing", async () => {
    const held = await Promise.all([1, 2].map(async (n) => runtime.create("Sandbox", await checked("Sandbox", { templateID: "base", __resource: `proj/dev/held-${n}` }))));
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    const started = Date.now();
    const err = await waitingForLimit("create", () => platform().sandboxes.create({ templateID: "base" }), log, { maxWaitMs: 1_500 }).catch((e: Error) => e);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((err as Error).message).toMatch(new RegExp(
      `^The create waited [\\d.]+ s for the team's concurrent-sandbox limit and gave up: ${LIMIT.replace(/[()]/g, "\\$&")}\\. If you need more, please visit 'https://e2b.dev/docs/billing'\\. ` +
        "Nothing was made\\. Kill or pause sandboxes the team no longer needs, run fewer at once \\(`pulumi up --parallel`\\), or raise the limit, then run `pulumi up` again\\.$",
    ));
    expect(lines[0]).toMatch(/^waiting for the team's concurrent-sandbox limit \(you have reached the maximum number of concurrent E2B sandboxes \(2\)/);
    expect(emu().state.sandboxes()).toHaveLength(2);
    for (const { id, outs } of held) await runtime.remove("Sandbox", id, outs);
  });
});
