// Bench 7: how cost grows with the work. `pulumi up`, a no-op `preview`, `refresh` and `destroy` of N
// sandboxes through the real engine, with pulumi-sandbox as installed (the dynamic provider), its native
// plugin, the inline provider and a provider that calls nothing (the engine's floor), beside a plain
// script on the official SDK making the same sandboxes with the same concurrency
// (bench/workers/sdk-fleet.mjs), at each added latency. The engine runs with `--parallel C` and the
// script with C creates in flight, C = min(N, 100). The bound is the critical path the service
// allows: ceil(N / C) creates one after the other, each as long as the emulator's median create.
//
// The team's limit is set to N: sandboxes stay running through an `up`, so a limit below N could
// never be met by one stack (docs/service.md#limits); what C bounds is the creates in flight.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePulumi } from "../scripts/ensure-pulumi.mjs";
import { initStack, pulumiEnv, runPulumi } from "../scripts/pulumi-run.mjs";
import { timedPulumi } from "./engine.mjs";
import { fmt, median, ratio, runWorker, table } from "./lib.mjs";
import { watchPeakRss } from "./peak-rss.mjs";

const require = createRequire(import.meta.url);
const { createEmulator } = require("pulumi-sandbox/emulator");

/** Creates in flight at most: the engine's `--parallel` and the script's pool. */
const MAX_CONCURRENCY = 100;
const OPS = ["up", "preview", "refresh", "destroy"];
const ARGS = { up: ["up", "--yes", "--skip-preview"], preview: ["preview", "--expect-no-changes"], refresh: ["refresh", "--yes", "--skip-preview"], destroy: ["destroy", "--yes", "--skip-preview"] };

const serviceOf = (emu) => ({ apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl, apiKey: emu.apiKey, accessToken: emu.accessToken });
const concurrencyOf = (count) => Math.max(1, Math.min(count, MAX_CONCURRENCY));

/** One stack of `count` sandboxes through every op: per op wall and CPU (ms), requests, the provider's peak RSS (kB). */
export async function stackRun({ project, binDir, mode, count, latencyMs, commands = 0, ops = OPS, extraEnv = {} }) {
  const emu = await createEmulator({ faults: { latencyMs }, sandboxLimit: Math.max(1, count) });
  const stateDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-bench-state-"));
  const env = pulumiEnv({ binDir, stateDir, extra: { E2B_API_KEY: emu.apiKey, E2B_API_URL: emu.apiUrl, E2B_SANDBOX_URL: emu.sandboxUrl, ...extraEnv } });
  const stack = `growth-${mode}`;
  const out = {};
  try {
    await initStack({ cwd: project, env, stack, service: serviceOf(emu) });
    for (const [key, value] of [["count", count], ["mode", mode], ["commands", commands]]) await runPulumi(["config", "set", key, String(value), "--stack", stack], { cwd: project, env });
    for (const op of ops) {
      const seq = emu.calls().at(-1)?.seq ?? 0;
      let watch;
      const t0 = performance.now();
      const res = await timedPulumi([...ARGS[op], "--parallel", String(concurrencyOf(count)), "--stack", stack], { cwd: project, env }, (pid) => (watch = watchPeakRss(pid)));
      const ms = performance.now() - t0;
      const peaks = watch.stop();
      if (res.code !== 0) throw new Error(`pulumi ${op} (${mode}, ${count}) exited ${res.code}:\n${res.output.slice(-3000)}`);
      const calls = emu.calls(seq);
      const creates = calls.filter((c) => c.method === "POST" && c.path === "/sandboxes" && c.status === 201).map((c) => c.ms);
      out[op] = { ms, cpuMs: res.cpuMs, requests: calls.length, providerKb: peaks.provider ?? 0, createMs: creates.length ? median(creates) : undefined };
      if (op === "up" && mode !== "noop" && emu.state.sandboxes().length !== count) throw new Error(`${mode}: expected ${count} sandboxes after up`);
    }
    return out;
  } finally {
    await runPulumi(["stack", "rm", "--yes", "--force", "--stack", stack], { cwd: project, env });
    await emu.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** The official SDK script: up (create), refresh (get), destroy (kill); no preview. */
async function sdkRun({ count, latencyMs, commands = 0 }) {
  const emu = await createEmulator({ faults: { latencyMs }, sandboxLimit: Math.max(1, count) });
  try {
    return await runWorker("sdk-fleet.mjs", { count, commands, concurrency: concurrencyOf(count), service: serviceOf(emu) });
  } finally {
    await emu.close();
  }
}

const FRONTS = ["package", "native", "inline", "noop"];

/**
 * The rows of one size: the dynamic provider (ours), the native plugin, the inline provider, the no-op
 * provider (the engine's floor), the SDK script, the bound, and their ratios. `runs` holds each front end's run; `empty` the stacks of 0 run
 * before; `first` the runs of the smallest size, for memory per added resource (a stack of 0 starts no
 * provider to compare with).
 */
function rowsOf(label, count, runs, empty, sdk, first) {
  const grown = (mode) => (first && first.count < count ? (runs[mode].up.providerKb - first.runs[mode].up.providerKb) / (count - first.count) : undefined);
  const per = (mode, op, key) => (runs[mode] && runs[mode][op] ? (runs[mode][op][key] - empty[mode][op][key]) / count : undefined);
  const perSdk = (op, key) => (sdk[op] ? sdk[op][key] / count : undefined);
  const bound = Math.ceil(count / concurrencyOf(count)) * (runs.package.up.createMs ?? 0);
  const row = (what, [o, n, i, f, s, b], digits = 1) => [`${label}: ${what}`, ...[o, n, i, f, s, b].map((x) => fmt(x, digits)), ratio(o, i), ratio(o, f), ratio(o, s), ratio(n, s), ratio(f, s), ratio(o, b)];
  const each = (f) => FRONTS.map((mode) => (runs[mode] ? f(mode) : undefined));
  return [
    row("`up` wall (s)", [...each((m) => runs[m].up.ms / 1000), sdk.up.ms / 1000, bound / 1000], 2),
    ...OPS.map((op) => row(`\`${op}\` per resource, beyond empty (ms)`, [...each((m) => per(m, op, "ms")), perSdk(op, "ms"), undefined])),
    row("`up` CPU per resource, beyond empty (ms)", [...each((m) => per(m, "up", "cpuMs")), perSdk("up", "cpuMs"), undefined]),
    row("provider's peak RSS in `up` (MB)", [...each((m) => runs[m].up.providerKb / 1000), sdk.peakKb / 1000, undefined]),
    row(`provider memory per resource added beyond N=${first?.count ?? "-"} (KB)`, [...each(grown), undefined, undefined]),
    row("requests per resource in `up`", [...each((m) => runs[m].up.requests / count), sdk.up.requests / count, 1], 2),
  ];
}

const HEADERS = (title) => [title, "pulumi-sandbox", "native plugin", "inline provider", "no-op (engine floor)", "e2b SDK script", "bound", "ours / inline", "ours / floor", "ours / SDK", "native / SDK", "floor / SDK", "ours / bound"];

/** Per-resource cost at the largest size over the smallest: flat is ×1.00 (the goal: within ×1.15). */
function flatness(sizes, perSize, empty) {
  const [small, large] = [sizes[0], sizes.at(-1)];
  const per = (count, mode, op) => (perSize[count][mode][op].ms - empty[mode][op].ms) / count;
  const rows = [];
  for (const op of ["up", "preview"]) {
    for (const [mode, name] of [["package", "pulumi-sandbox"], ["native", "native plugin"], ["noop", "no-op (engine floor)"]]) {
      const [a, b] = [per(small, mode, op), per(large, mode, op)];
      rows.push([`\`${op}\`, ${name}`, fmt(a), fmt(b), ratio(b, a)]);
    }
  }
  return table([`per resource beyond empty (ms)`, `N=${small}`, `N=${large}`, `N=${large} / N=${small}`], rows);
}

export async function growthBench({ sizes, latencies, project, log, provisioned = { count: 100, commands: 3 } }) {
  const binDir = await ensurePulumi();
  const tables = [];
  const run = (mode, count, latencyMs, commands) => stackRun({ project: project.dir, binDir, mode, count, latencyMs, commands });
  for (const latencyMs of latencies) {
    const empty = {};
    for (const mode of FRONTS) empty[mode] = await run(mode, 0, latencyMs);
    const rows = [];
    const perSize = {};
    let first;
    for (const count of sizes) {
      const runs = {};
      for (const mode of FRONTS) runs[mode] = await run(mode, count, latencyMs);
      const sdk = await sdkRun({ count, latencyMs });
      log(`  growth ${latencyMs} ms, ${count} sandboxes: up ${FRONTS.map((m) => `${fmt(runs[m].up.ms / 1000, 2)} s ${m}`).join(", ")}, ${fmt(sdk.up.ms / 1000, 2)} s sdk`);
      rows.push(...rowsOf(`N=${count}`, count, runs, empty, sdk, first));
      perSize[count] = runs;
      first ??= { count, runs };
    }
    if (provisioned) {
      const { count, commands } = provisioned;
      const runs = {};
      for (const mode of ["package", "native"]) runs[mode] = await run(mode, count, latencyMs, commands);
      const sdk = await sdkRun({ count, latencyMs, commands });
      log(`  growth ${latencyMs} ms, ${count} sandboxes × ${commands} commands: up ${fmt(runs.package.up.ms / 1000, 2)} s ours, ${fmt(runs.native.up.ms / 1000, 2)} s native, ${fmt(sdk.up.ms / 1000, 2)} s sdk`);
      rows.push(...rowsOf(`N=${count} × ${commands} commands`, count, runs, empty, sdk, undefined));
    }
    tables.push(`### ${latencyMs} ms added latency\n\n${table(HEADERS(`${latencyMs} ms added per request, C = min(N, ${MAX_CONCURRENCY})`), rows)}`);
    if (sizes.length > 1) tables.push(`Flatness at ${latencyMs} ms:\n\n${flatness(sizes, perSize, empty)}`);
  }
  return tables.join("\n\n");
}
