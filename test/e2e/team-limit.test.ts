/**
 * The team's concurrent-sandbox limit through the real engine (docs/service.md#limits): another user
 * of the team holds 2 of its 3 slots when `pulumi up --parallel 2` makes 3 sandboxes. The creates past
 * the limit wait, saying so on their rows, and go through once the other user's sandboxes end: the
 * `up` succeeds with one sandbox per resource, and never more creates in flight than `--parallel`.
 * And Ctrl-C ends those waits: the engine's Cancel reaches the dynamic provider's host (in a process
 * group of its own, it gets no SIGINT), and no sandbox is made when slots free later.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { lastSeq, startStack, type E2eStack } from "./harness";
import { endPluginsOf, until } from "./kill";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { ensurePulumi } from "../../scripts/ensure-pulumi.mjs";
// @ts-expect-error: plain ESM scripts, shared with npm start
import { pulumiEnv } from "../../scripts/pulumi-run.mjs";

const FIXTURE = join(__dirname, "fixtures", "sandbox-count");
let s: E2eStack;

beforeAll(async () => {
  s = await startStack(FIXTURE, "e2e-team-limit", { sandboxLimit: 3, latency: { createMs: 300 } });
  await s.ok("config", "set", "count", "3");
}, 300_000);

afterAll(async () => {
  await s?.close();
});

/** Another user of the team: a sandbox made straight through the API. */
async function outsideSandbox(): Promise<string> {
  const res = await fetch(`${s.emulator.apiUrl}/sandboxes`, {
    method: "POST",
    headers: { "x-api-key": s.emulator.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ templateID: "base", timeout: 600 }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { sandboxID: string }).sandboxID;
}

/** A create: POST /sandboxes, or POST /v2/sandboxes. */
const isCreate = (method: string, path: string) => method === "POST" && /^(\/v2)?\/sandboxes$/.test(path);

/** The most requests matching `pick` that were being handled at one moment. */
function mostAtOnce(since: number, pick: (method: string, path: string) => boolean): number {
  const edges = s.emulator.calls(since).filter((c) => pick(c.method, c.path)).flatMap((c) => {
    const start = Date.parse(c.time);
    return [{ at: start, step: 1 }, { at: start + c.ms, step: -1 }];
  });
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.step));
  return most;
}

test("creates past the limit wait on their rows and go through when slots free; up succeeds, one sandbox each", async () => {
  const outside = [await outsideSandbox(), await outsideSandbox()];
  const since = lastSeq(s.emulator);
  let settled = false;
  const up = s.ok("up", "--yes", "--skip-preview", "--parallel", "2").finally(() => (settled = true));
  // The other user's sandboxes end once the stack's creates have been refused for a while (an `up` that ended first fails below).
  while (!settled) {
    const refused = s.emulator.calls(since).filter((c) => isCreate(c.method, c.path) && c.status === 429);
    if (refused.length >= 2) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 1_000));
  for (const id of outside) await fetch(`${s.emulator.apiUrl}/sandboxes/${id}`, { method: "DELETE", headers: { "x-api-key": s.emulator.apiKey } });
  const { output } = await up;
  expect(output).toMatch(/\+ 4 created/); // the stack too
  // On the waiting resource's own row (`sandbox:index:Sandbox box-2 creating (3s) [Sandbox box-2] …`), not the stack's.
  expect(output).toMatch(/Sandbox box-(\d) creating \(\d+s\) \[Sandbox box-\1\] waiting for the team's concurrent-sandbox limit \(you have reached the maximum number of concurrent E2B sandboxes \(3\)\. If you need more, please visit 'https:\/\/e2b\.dev\/docs\/billing'\); the create made nothing and is tried again/);
  expect(output).toMatch(/Sandbox box-(\d) creating \(\d+s\) \[Sandbox box-\1\] create went through after waiting [\d.]+ m?s for the team's concurrent-sandbox limit/);
  expect(output).not.toMatch(/pulumi:pulumi:Stack \S+ creating \(\d+s\) \[Sandbox/);
  const ids = (await s.outputs()).ids as string[];
  expect(s.emulator.state.sandboxes().map((x) => x.sandboxID).sort()).toEqual([...ids].sort());
  const created = s.emulator.calls(since).filter((c) => isCreate(c.method, c.path) && c.status === 201);
  expect(created).toHaveLength(3);
  expect(mostAtOnce(since, isCreate)).toBeLessThanOrEqual(2);
  await s.ok("destroy", "--yes", "--skip-preview");
  expect(s.emulator.state.sandboxes()).toEqual([]);
}, 300_000);

test("Ctrl-C (SIGINT to pulumi up) ends the waits at once: up fails saying so, and no sandbox is made when slots free", async () => {
  const outside = [await outsideSandbox(), await outsideSandbox(), await outsideSandbox()];
  const about = JSON.parse((await s.ok("about", "--output", "json")).stdout) as { backend: { url: string } };
  const stateDir = new URL(about.backend.url).pathname;
  const env = pulumiEnv({ binDir: await ensurePulumi(), stateDir, extra: { PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase" } });
  const since = lastSeq(s.emulator);
  // Only the CLI gets the SIGINT, as from a terminal: the engine starts its plugins in process groups of their own.
  const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "2", "--stack", s.stack], { cwd: FIXTURE, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  let code: number | null | undefined;
  const exited = new Promise<void>((resolve) => child.on("close", (c) => resolve(void (code = c))));
  try {
    // Both waiting in earnest: each refused, and refused again.
    await until("both creates to be refused twice", () => code !== undefined || s.emulator.calls(since).filter((c) => isCreate(c.method, c.path) && c.status === 429).length >= 4, 60_000);
    const interrupted = Date.now();
    child.kill("SIGINT");
    await until("up to end after Ctrl-C", () => code !== undefined, 15_000).catch(() => undefined);
    const tookMs = Date.now() - interrupted;
    expect(code, output).not.toBe(0);
    expect(code, output).not.toBeUndefined();
    expect(tookMs, output).toBeLessThan(10_000);
    expect(output).toMatch(/Stopped waiting for a free slot at the team's concurrent-sandbox limit after [\d.]+ m?s: the engine cancelled the operation \(Ctrl-C, or the deployment was stopped\)\. The create made nothing/);
  } finally {
    // An `up` Ctrl-C did not end: killed, with the provider host it leaves behind.
    if (code === undefined) {
      child.kill("SIGKILL");
      await exited;
      endPluginsOf(stateDir);
    }
  }
  const after = lastSeq(s.emulator);
  for (const id of outside) await fetch(`${s.emulator.apiUrl}/sandboxes/${id}`, { method: "DELETE", headers: { "x-api-key": s.emulator.apiKey } });
  await new Promise((r) => setTimeout(r, 2_500));
  expect(s.emulator.calls(after).filter((c) => isCreate(c.method, c.path))).toEqual([]);
  expect(s.emulator.state.sandboxes()).toEqual([]);
  expect(((await s.exported()).match(/pulumi-nodejs:dynamic\/sandbox:Sandbox/g) ?? [])).toEqual([]);
}, 120_000);
