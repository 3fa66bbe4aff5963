// Bench 8: `up` at the team's concurrent-sandbox limit. The team's limit is L; another user of the team
// holds all L slots when `pulumi up --parallel L` of N sandboxes starts, and their sandboxes end one
// every `gapMs` from `firstEndMs` on (killed by this bench, as that user would). Every create until a
// slot frees gets the service's 429 (docs/service.md#limits). The provider waits and asks again
// (provider/runtime/limit-wait.ts): the figures are how long the `up` took against when the last slot
// freed (the bound: nothing can finish sooner), the waits each resource reported on its row, the 429s
// it was answered, and that it made exactly N sandboxes and failed none. The e2b SDK script meets the
// same team: it does not wait, so its creates past the limit fail.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePulumi } from "../scripts/ensure-pulumi.mjs";
import { initStack, pulumiEnv, runPulumi } from "../scripts/pulumi-run.mjs";
import { timedPulumi } from "./engine.mjs";
import { fmt, median, runWorker, table } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { createEmulator } = require("pulumi-sandbox/emulator");

const serviceOf = (emu) => ({ apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl, apiKey: emu.apiKey, accessToken: emu.accessToken });

/** The other user's sandboxes: `count` made straight through the API, as any team member's are. */
async function othersHold(emu, count) {
  const made = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${emu.apiUrl}/sandboxes`, {
      method: "POST",
      headers: { "x-api-key": emu.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ templateID: "base", timeout: 3600 }),
    });
    if (res.status !== 201) throw new Error(`the other user's sandbox ${i + 1} was refused: ${res.status} ${await res.text()}`);
    made.push((await res.json()).sandboxID);
  }
  return made;
}

/** Ends the other user's sandboxes one every `gapMs` from `firstEndMs` on; resolves with when the last one ended (ms from the start). */
function othersEnd(emu, ids, { firstEndMs, gapMs }, t0) {
  const endOne = async (id) => {
    const res = await fetch(`${emu.apiUrl}/sandboxes/${id}`, { method: "DELETE", headers: { "x-api-key": emu.apiKey } });
    if (res.status !== 204) throw new Error(`killing the other user's sandbox answered ${res.status}`);
  };
  // On a fixed schedule, not one after the other: each kill takes the added latency itself.
  const ends = ids.map((id, i) => new Promise((resolve) => setTimeout(resolve, firstEndMs + i * gapMs)).then(() => endOne(id)));
  return Promise.all(ends).then(() => performance.now() - t0);
}

/** Seconds from the provider's "went through after waiting 1.2 s" lines, one per resource (the engine repeats a line in its summary). */
function reportedWaits(output) {
  const waits = new Map();
  for (const [, name, n, unit] of output.matchAll(/\[Sandbox ([^\]]+)\] create went through after waiting ([\d.]+) (ms|s)/g)) waits.set(name, unit === "s" ? Number(n) : Number(n) / 1000);
  return [...waits.values()];
}

/** A create: the SDK's `POST /v2/sandboxes` or the provider's `POST /sandboxes`. */
const isCreate = (c) => c.method === "POST" && /^(\/v\d+)?\/sandboxes$/.test(c.path);

async function stackAtLimit({ project, binDir, mode, scenario }) {
  const { limit, count, latencyMs } = scenario;
  const emu = await createEmulator({ faults: { latencyMs }, sandboxLimit: limit });
  const stateDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-bench-state-"));
  const env = pulumiEnv({ binDir, stateDir, extra: { E2B_API_KEY: emu.apiKey, E2B_API_URL: emu.apiUrl, E2B_SANDBOX_URL: emu.sandboxUrl } });
  const stack = `limit-${mode}`;
  try {
    await initStack({ cwd: project, env, stack, service: serviceOf(emu) });
    for (const [key, value] of [["count", count], ["mode", mode]]) await runPulumi(["config", "set", key, String(value), "--stack", stack], { cwd: project, env });
    const others = await othersHold(emu, limit);
    const seq = emu.calls().at(-1)?.seq ?? 0;
    const t0 = performance.now();
    const freed = othersEnd(emu, others, scenario, t0);
    const res = await timedPulumi(["up", "--yes", "--skip-preview", "--parallel", String(limit), "--stack", stack], { cwd: project, env });
    const ms = performance.now() - t0;
    const lastFreedMs = await freed;
    const calls = emu.calls(seq).filter(isCreate);
    const made = emu.state.sandboxes().filter((s) => !others.includes(s.sandboxID)).length;
    await runPulumi(["destroy", "--yes", "--skip-preview", "--stack", stack], { cwd: project, env });
    return { ms, lastFreedMs, refused: calls.filter((c) => c.status === 429).length, made, failed: count - made, code: res.code, waits: reportedWaits(res.output), tail: res.output.slice(-1500) };
  } finally {
    await runPulumi(["stack", "rm", "--yes", "--force", "--stack", stack], { cwd: project, env });
    await emu.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** The SDK script against the same full team: how many of its creates the service refused. */
async function sdkAtLimit(scenario) {
  const { limit, count, latencyMs } = scenario;
  const emu = await createEmulator({ faults: { latencyMs }, sandboxLimit: limit });
  try {
    const others = await othersHold(emu, limit);
    const seq = emu.calls().at(-1)?.seq ?? 0;
    const t0 = performance.now();
    const freed = othersEnd(emu, others, scenario, t0);
    const run = await runWorker("sdk-fleet.mjs", { count, concurrency: limit, service: serviceOf(emu), keepGoing: true, phases: ["up"] });
    const lastFreedMs = await freed;
    const refused = emu.calls(seq).filter((c) => isCreate(c) && c.status === 429).length;
    return { ms: run.up.ms, lastFreedMs, refused, made: count - run.up.failed, failed: run.up.failed, waits: [] };
  } finally {
    await emu.close();
  }
}

export async function atLimitBench({ project, log, scenario = { limit: 100, count: 100, latencyMs: 150, firstEndMs: 2000, gapMs: 50 } }) {
  const binDir = await ensurePulumi();
  const runs = {};
  for (const mode of ["package", "native"]) {
    runs[mode] = await stackAtLimit({ project: project.dir, binDir, mode, scenario });
    if (runs[mode].code !== 0) throw new Error(`pulumi up at the limit (${mode}) exited ${runs[mode].code}:\n${runs[mode].tail}`);
    log(`  at the limit, ${mode}: up ${fmt(runs[mode].ms / 1000, 2)} s, last slot freed at ${fmt(runs[mode].lastFreedMs / 1000, 2)} s, ${runs[mode].refused} refused creates`);
  }
  runs.sdk = await sdkAtLimit(scenario);
  const cols = ["package", "native", "sdk"];
  const row = (what, f, digits = 1) => [what, ...cols.map((c) => fmt(f(runs[c]), digits))];
  const waits = (r, pick) => (r.waits.length ? pick(r.waits) : undefined);
  return table(
    [`limit ${scenario.limit}, all held by another user; ${scenario.count} creates, ${scenario.latencyMs} ms added`, "pulumi-sandbox", "native plugin", "e2b SDK script"],
    [
      row("`up` wall (s)", (r) => r.ms / 1000, 2),
      row("the other user's last sandbox ended at (s)", (r) => r.lastFreedMs / 1000, 2),
      row("`up` finished after the last slot freed (s)", (r) => (r.ms - r.lastFreedMs) / 1000, 2),
      row("creates refused with 429", (r) => r.refused, 0),
      row("resources that waited (reported on their row)", (r) => r.waits.length, 0),
      row("their wait, median (s)", (r) => waits(r, median), 1),
      row("their wait, longest (s)", (r) => waits(r, (w) => Math.max(...w)), 1),
      row("sandboxes made (one per resource)", (r) => r.made, 0),
      row("failed resources / creates", (r) => r.failed, 0),
    ],
  );
}
