// Bench 4: the provider in the real Pulumi engine. `pulumi up` then `pulumi preview` (no changes) of
// a stack of N sandboxes, in a project where pulumi-sandbox is installed as users install it, and the
// bytes each resource stores for its provider text (`__provider`), against a provider object written
// inline in the program (bench/fixture/inline.js) and the native provider plugin
// (bench/fixture/native.js), which stores no provider at all.
//
// Wall time on a shared machine moves with its load; CPU time much less. So beside wall time each
// command's CPU time is taken: the CLI's and every process it started and reaped (language host,
// program, provider host or plugin), from bash's `times`, and the emulator's (this process's own CPU
// while the command runs: it does nothing else then). Each repetition deploys the empty stack right
// before the full one, so a figure "per resource, beyond empty" subtracts a neighbour, not an average.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePulumi } from "../scripts/ensure-pulumi.mjs";
import { initStack, pulumiEnv, runPulumi } from "../scripts/pulumi-run.mjs";
import { fmt, median, ratio, table } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { createEmulator } = require("pulumi-sandbox/emulator");

/** bash's `times`, second line (children): `0m1.234s 0m0.056s` → milliseconds of user + system. */
function childrenCpuMs(times) {
  const line = times.trim().split("\n").at(-1) ?? "";
  return [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, [, m, s]) => sum + (Number(m) * 60 + Number(s)) * 1000, 0);
}

/** `pulumi <args>` as runPulumi runs it, also reporting the CPU time of the CLI and its reaped children. */
export function timedPulumi(args, { cwd, env }, onStart = () => {}) {
  return new Promise((resolve, reject) => {
    const script = 'pulumi "$@"; rc=$?; times >&3; exit $rc';
    const child = spawn("bash", ["-c", script, "pulumi", ...args, "--non-interactive"], { cwd, env, stdio: ["ignore", "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let times = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.stdio[3].on("data", (d) => (times += d));
    child.on("error", reject);
    onStart(child.pid);
    child.on("close", (code) => resolve({ code, stdout, output: stdout + stderr, cpuMs: childrenCpuMs(times) }));
  });
}

/** One deploy of `count` sandboxes in `mode`: timings and CPU (ms), requests, and stored sizes (bytes). */
async function deploy({ project, binDir, mode, count, latencyMs }) {
  const emu = await createEmulator({ faults: { latencyMs } });
  const stateDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-bench-state-"));
  const env = pulumiEnv({ binDir, stateDir, extra: { E2B_API_KEY: emu.apiKey, E2B_API_URL: emu.apiUrl, E2B_SANDBOX_URL: emu.sandboxUrl } });
  const stack = `bench-${mode}`;
  const pulumi = async (...args) => {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const seq = emu.calls().at(-1)?.seq ?? 0;
    const res = await timedPulumi([...args, "--stack", stack], { cwd: project, env });
    if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} (${mode}) exited ${res.code}:\n${res.output.slice(-3000)}`);
    const cpu = process.cpuUsage(cpu0);
    return { ms: performance.now() - t0, cpuMs: res.cpuMs, emulatorCpuMs: (cpu.user + cpu.system) / 1000, requests: emu.calls(seq).length, stdout: res.stdout };
  };
  try {
    await initStack({ cwd: project, env, stack, service: emu });
    await pulumi("config", "set", "count", String(count));
    await pulumi("config", "set", "mode", mode);
    const up = await pulumi("up", "--yes", "--skip-preview");
    const preview = await pulumi("preview", "--expect-no-changes");
    const state = JSON.parse((await pulumi("stack", "export")).stdout);
    const boxes = state.deployment.resources.filter((r) => r.custom && !r.type.startsWith("pulumi:providers:"));
    if (boxes.length !== count || emu.state.sandboxes().length !== count) throw new Error(`${mode}: expected ${count} sandboxes`);
    await pulumi("destroy", "--yes", "--skip-preview");
    return {
      up: up.ms,
      upCpu: up.cpuMs,
      upEmulatorCpu: up.emulatorCpuMs,
      preview: preview.ms,
      previewCpu: preview.cpuMs,
      upRequests: up.requests,
      provider: boxes.length === 0 ? 0 : median(boxes.map((r) => (r.outputs.__provider === undefined ? 0 : Buffer.byteLength(JSON.stringify(r.outputs.__provider))))),
      copies: boxes.length === 0 ? 0 : [boxes[0].inputs, boxes[0].outputs].filter((o) => o?.__provider !== undefined).length,
      resource: boxes.length === 0 ? 0 : median(boxes.map((r) => Buffer.byteLength(JSON.stringify(r)))),
    };
  } finally {
    await runPulumi(["stack", "rm", "--yes", "--force", "--stack", stack], { cwd: project, env });
    await emu.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

export async function engineBench({ reps, count, latencyMs, project, log }) {
  const binDir = await ensurePulumi();
  const modes = ["package", "inline", "native"];
  const runs = { package: [], inline: [], native: [] };
  for (let i = 0; i < reps; i++) {
    for (const mode of modes) {
      const empty = await deploy({ project: project.dir, binDir, mode, count: 0, latencyMs });
      const full = await deploy({ project: project.dir, binDir, mode, count, latencyMs });
      runs[mode].push({ empty, full });
      log(`  engine ${mode} run ${i + 1}/${reps}: up ${fmt(full.up / 1000)} s (empty stack ${fmt(empty.up / 1000)} s)`);
    }
  }
  const m = (mode, key, which = "full") => median(runs[mode].map((r) => r[which][key]));
  // Per resource: beyond what the same command took on the empty stack just before (engine and program start).
  const per = (mode, key) => median(runs[mode].map((r) => (r.full[key] - r.empty[key]) / count));
  const row = (label, f, digits) => {
    const [o, i, n] = [f("package"), f("inline"), f("native")];
    return [label, fmt(o, digits), fmt(i, digits), ratio(o, i), fmt(n, digits), ratio(n, o)];
  };
  return table(
    [`${count} sandboxes, median of ${reps}`, "pulumi-sandbox (installed)", "inline provider", "ours / inline", "native plugin", "native / ours"],
    [
      row("`pulumi up` wall (s)", (mode) => m(mode, "up") / 1000, 2),
      row("`pulumi up` of an empty stack (s)", (mode) => m(mode, "up", "empty") / 1000, 2),
      row("`pulumi up` per resource, beyond empty (ms)", (mode) => per(mode, "up"), 1),
      row("`pulumi up` CPU per resource, beyond empty (ms)", (mode) => per(mode, "upCpu"), 1),
      row("emulator CPU per resource in `up` (ms)", (mode) => per(mode, "upEmulatorCpu"), 1),
      row("`pulumi preview` wall (s)", (mode) => m(mode, "preview") / 1000, 2),
      row("`pulumi preview` of an empty stack (s)", (mode) => m(mode, "preview", "empty") / 1000, 2),
      row("`pulumi preview` per resource, beyond empty (ms)", (mode) => per(mode, "preview"), 1),
      row("`pulumi preview` CPU per resource, beyond empty (ms)", (mode) => per(mode, "previewCpu"), 1),
      row("requests per resource in `up`", (mode) => m(mode, "upRequests") / count, 2),
      row("`__provider` text per resource (bytes)", (mode) => m(mode, "provider"), 0),
      row("copies of it per resource (inputs, outputs)", (mode) => m(mode, "copies"), 0),
      row("whole resource in the exported state (bytes)", (mode) => m(mode, "resource"), 0),
    ],
  );
}
