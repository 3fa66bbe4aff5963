// Bench 4: the provider in the real Pulumi engine. `pulumi up` then `pulumi preview` (no changes) of
// a stack of N sandboxes, in a project where pulumi-sandbox is installed as users install it, and the
// bytes each resource stores for its serialized provider (`__provider`), against a provider object
// written inline in the program (bench/fixture/inline.js) and the native provider plugin
// (bench/fixture/native.js), which stores no provider at all.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePulumi } from "../scripts/ensure-pulumi.mjs";
import { initStack, pulumiEnv, runPulumi } from "../scripts/pulumi-run.mjs";
import { fmt, median, ratio, table } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { createEmulator } = require("pulumi-sandbox/emulator");

/** One deploy of `count` sandboxes in `mode`: timings (ms), requests, and stored sizes (bytes). */
async function deploy({ project, binDir, mode, count, latencyMs }) {
  const emu = await createEmulator({ faults: { latencyMs } });
  const stateDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-bench-state-"));
  const env = pulumiEnv({ binDir, stateDir, extra: { E2B_API_KEY: emu.apiKey, E2B_API_URL: emu.apiUrl, E2B_SANDBOX_URL: emu.sandboxUrl } });
  const stack = `bench-${mode}`;
  const pulumi = async (...args) => {
    const t0 = performance.now();
    const seq = emu.calls().at(-1)?.seq ?? 0;
    const res = await runPulumi([...args, "--stack", stack], { cwd: project, env });
    if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} (${mode}) exited ${res.code}:\n${res.output.slice(-3000)}`);
    return { ms: performance.now() - t0, requests: emu.calls(seq).length, stdout: res.stdout };
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
      preview: preview.ms,
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
  const empty = {};
  for (const mode of modes) empty[mode] = await deploy({ project: project.dir, binDir, mode, count: 0, latencyMs });
  for (let i = 0; i < reps; i++) {
    for (const mode of modes) {
      runs[mode].push(await deploy({ project: project.dir, binDir, mode, count, latencyMs }));
      log(`  engine ${mode} run ${i + 1}/${reps}: up ${fmt(runs[mode].at(-1).up / 1000)} s`);
    }
  }
  const m = (mode, key) => median(runs[mode].map((r) => r[key]));
  // Per resource: beyond what the same command takes on an empty stack (engine and program start).
  const per = (mode, key) => (m(mode, key) - empty[mode][key]) / count;
  const row = (label, f, digits) => {
    const [o, i, n] = [f("package"), f("inline"), f("native")];
    return [label, fmt(o, digits), fmt(i, digits), ratio(o, i), fmt(n, digits), ratio(n, o)];
  };
  return table(
    [`${count} sandboxes, median of ${reps}`, "pulumi-sandbox (installed)", "inline provider", "ours / inline", "native plugin", "native / ours"],
    [
      row("`pulumi up` wall (s)", (mode) => m(mode, "up") / 1000, 2),
      row("`pulumi up` of an empty stack (s)", (mode) => empty[mode].up / 1000, 2),
      row("`pulumi up` per resource, beyond empty (ms)", (mode) => per(mode, "up"), 1),
      row("`pulumi preview` wall (s)", (mode) => m(mode, "preview") / 1000, 2),
      row("`pulumi preview` of an empty stack (s)", (mode) => empty[mode].preview / 1000, 2),
      row("`pulumi preview` per resource, beyond empty (ms)", (mode) => per(mode, "preview"), 1),
      row("requests per resource in `up`", (mode) => m(mode, "upRequests") / count, 1),
      row("`__provider` text per resource (bytes)", (mode) => m(mode, "provider"), 0),
      row("copies of it per resource (inputs, outputs)", (mode) => m(mode, "copies"), 0),
      row("whole resource in the exported state (bytes)", (mode) => m(mode, "resource"), 0),
    ],
  );
}
