// Bench 10: SandboxFleet (issue #42) through the real engine, 150 ms added to every platform request.
// One fleet resource of N members from `base` (members "m0" to "m<N-1>", alike but m0's EDITOR env var),
// by two front ends: the dynamic provider (pulumi-sandbox as installed) from a TypeScript program
// (bench/fixture-fleet), and the native plugin (the installed package's bin/) from a Pulumi YAML program
// written here per size. Each has one stack and emulator; a round deploys the empty fleet, 50 and 500
// members (`up`, then `destroy`), so each `up` creates the fleet from nothing and "the members' time" is
// `up(N)` minus the same stack's `up` of the empty fleet (engine, program and provider start). At 500, a
// no-op `up` and an `up` with m0's EDITOR changed (envVars are fixed at creation: one member replaced
// inside the fleet) follow. The e2b SDK script (bench/workers/sdk-fleet.mjs) makes and kills the same
// sandboxes with the fleet's default maxParallel (16) in flight.
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePulumi } from "../scripts/ensure-pulumi.mjs";
import { initStack, pulumiEnv, runPulumi } from "../scripts/pulumi-run.mjs";
import { timedPulumi } from "./engine.mjs";
import { fmt, median, ROOT, runWorker, table } from "./lib.mjs";

const require = createRequire(import.meta.url);
const { createEmulator } = require("pulumi-sandbox/emulator");

export const FLEET_LATENCY_MS = 150;
/** The fleet's default `maxParallel`: the script keeps as many creates (and kills) in flight. */
const MAX_PARALLEL = 16;
const UP = ["up", "--yes", "--skip-preview"];
const DESTROY = ["destroy", "--yes", "--skip-preview"];
const serviceOf = (emu) => ({ apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl, apiKey: emu.apiKey, accessToken: emu.accessToken });

/** The plugin's program: the same fleet in Pulumi YAML (no loops there, so the members are written out). */
function yamlProgram(size, pluginDir) {
  const members = size === 0 ? ["      members: {}"] : ["      members:", "        m0:", "          envVars:", "            EDITOR: ${editor}"];
  for (let i = 1; i < size; i++) members.push(`        m${i}: {}`);
  return [
    "name: bench-fleet-yaml",
    "description: Benchmark fixture of bench/fleet.mjs (written per size); one SandboxFleet through the native plugin.",
    "runtime: yaml",
    "plugins:",
    "  providers:",
    "    - name: sandbox",
    `      path: ${pluginDir}`,
    "config:",
    "  editor:",
    "    type: string",
    "    default: emacs",
    "resources:",
    "  fleet:",
    "    type: sandbox:index:SandboxFleet",
    "    properties:",
    "      sandbox:",
    "        templateID: base",
    "        timeoutSeconds: 3600",
    ...members,
    "outputs:",
    "  ready: ${fleet.ready}",
    "",
  ].join("\n");
}

/**
 * The two programs, in folders of the installed project (so they resolve its node_modules). A
 * TypeScript user has `typescript` installed beside @pulumi/pulumi (which loads it from there, else
 * its vendored 3.8): it and ts-node are linked in from this repository while the bench runs.
 */
function prepareFronts(project) {
  const linked = [];
  for (const name of ["typescript", "ts-node"]) {
    const at = join(project.dir, "node_modules", name);
    if (existsSync(at)) continue;
    symlinkSync(join(ROOT, "node_modules", name), at);
    linked.push(at);
  }
  const tsDir = join(project.dir, "fleet-ts");
  cpSync(join(ROOT, "bench", "fixture-fleet"), tsDir, { recursive: true });
  const yamlDir = join(project.dir, "fleet-yaml");
  const pluginDir = join(project.dir, "node_modules", "pulumi-sandbox", "bin");
  const fronts = {
    ts: { dir: tsDir, setSize: (size, run) => run(["config", "set", "size", String(size)]) },
    yaml: { dir: yamlDir, setSize: async (size) => writeFileSync(join(yamlDir, "Pulumi.yaml"), yamlProgram(size, pluginDir)) },
  };
  mkdirSync(yamlDir, { recursive: true });
  writeFileSync(join(yamlDir, "Pulumi.yaml"), yamlProgram(0, pluginDir));
  const cleanup = () => {
    for (const at of linked) if (lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) rmSync(at);
    rmSync(tsDir, { recursive: true, force: true });
    rmSync(yamlDir, { recursive: true, force: true });
  };
  return { fronts, cleanup };
}

/** Platform requests (the emulator's own admin routes left out), and in-sandbox ones, of a call list. */
function countCalls(calls) {
  const platform = calls.filter((c) => c.area === "platform" && !c.path.startsWith("/_emulator/") && c.path !== "/health");
  const kinds = new Map();
  for (const c of platform) {
    const what = `${c.method} ${c.path.split("?")[0].replace(/^(\/v\d+)?\/sandboxes\/[^/]+/, "$1/sandboxes/{id}")}`;
    kinds.set(what, (kinds.get(what) ?? 0) + 1);
  }
  return { platform: platform.length, inSandbox: calls.length - platform.length - calls.filter((c) => c.path.startsWith("/_emulator/") || c.path === "/health").length, kinds: [...kinds].map(([k, n]) => (n > 1 ? `${n}× ${k}` : k)).join(", ") };
}

/** `pulumi <args>` on the stack, timed, failing on a non-zero exit: wall and CPU (ms), the calls it made, its stdout. */
async function step(ctx, args) {
  const seq = ctx.emu.calls().at(-1)?.seq ?? 0;
  const t0 = performance.now();
  const res = await timedPulumi([...args, "--stack", ctx.stack], { cwd: ctx.cwd, env: ctx.env });
  const ms = performance.now() - t0;
  if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} (fleet, ${ctx.key}) exited ${res.code}:\n${res.output.slice(-3000)}`);
  return { ms, cpuMs: res.cpuMs, calls: countCalls(ctx.emu.calls(seq)), stdout: res.stdout, output: res.output };
}

const push = (map, key, value) => (map[key] ??= []).push(value);

/** At the largest size: an `up` that changes nothing, then one that changes m0's EDITOR (flipped each time). */
async function changeRound(ctx, out) {
  const noop = await step(ctx, UP);
  ctx.editor = ctx.editor === "vim" ? "emacs" : "vim";
  await ctx.config(["config", "set", "editor", ctx.editor]);
  const change = await step(ctx, UP);
  const plan = /members: [^\n]*unchanged/.exec(change.output)?.[0];
  if (!plan?.includes("1 to replace")) throw new Error(`the change of one member (${ctx.key}) was not one replacement: ${plan ?? change.output.slice(-2000)}`);
  out.noop.push(noop.ms);
  out.change.push(change.ms);
  out.noopCalls ??= noop.calls;
  out.changeCalls ??= change.calls;
  out.plan ??= plan;
}

/** One size in one round: up (checked: one sandbox per member), the state's size the first time, the change at the largest, destroy. */
async function sizeRound(ctx, out, size, { first, largest }) {
  await ctx.front.setSize(size, ctx.config);
  const up = await step(ctx, UP);
  const made = ctx.emu.state.sandboxes().length;
  if (made !== size) throw new Error(`fleet (${ctx.key}): ${made} sandboxes after the up of ${size} members`);
  push(out.up, size, up.ms);
  push(out.upCpu, size, up.cpuMs);
  out.upCalls[size] ??= up.calls;
  if (first) out.bytes[size] = Buffer.byteLength((await step(ctx, ["stack", "export"])).stdout);
  if (largest) await changeRound(ctx, out);
  const destroy = await step(ctx, DESTROY);
  push(out.destroy, size, destroy.ms);
  out.destroyCalls[size] ??= destroy.calls;
  if (ctx.emu.state.sandboxes().length !== 0) throw new Error(`fleet (${ctx.key}): sandboxes left after the destroy of ${size}`);
}

/** Every round of one front end on its own stack and emulator. */
async function frontRun({ key, front, binDir, sizes, reps, log }) {
  const emu = await createEmulator({ faults: { latencyMs: FLEET_LATENCY_MS } });
  const stateDir = mkdtempSync(join(tmpdir(), "pulumi-sandbox-bench-state-"));
  // Type-checking the program is not the provider's work (the e2e harness skips it after a stack's first run too).
  const env = pulumiEnv({ binDir, stateDir, extra: { E2B_API_KEY: emu.apiKey, E2B_API_URL: emu.apiUrl, E2B_SANDBOX_URL: emu.sandboxUrl, PULUMI_NODEJS_TRANSPILE_ONLY: "true" } });
  const ctx = { key, front, emu, env, stack: `fleet-${key}`, cwd: front.dir, editor: "emacs" };
  ctx.config = async (args) => {
    const res = await runPulumi([...args, "--stack", ctx.stack], { cwd: ctx.cwd, env });
    if (res.code !== 0) throw new Error(`pulumi ${args.join(" ")} (fleet, ${key}) exited ${res.code}: ${res.output}`);
  };
  const out = { up: {}, upCpu: {}, upCalls: {}, destroy: {}, destroyCalls: {}, bytes: {}, noop: [], change: [] };
  try {
    await initStack({ cwd: ctx.cwd, env, stack: ctx.stack, service: serviceOf(emu) });
    for (let r = 0; r < reps; r++) {
      for (const size of [0, ...sizes]) await sizeRound(ctx, out, size, { first: r === 0, largest: size === sizes.at(-1) });
      log(`  fleet ${key}, round ${r + 1}/${reps}: up ${[0, ...sizes].map((n) => `${fmt(out.up[n].at(-1) / 1000, 2)} s (${n})`).join(", ")}; no-op ${fmt(out.noop.at(-1) / 1000, 2)} s, one member changed ${fmt(out.change.at(-1) / 1000, 2)} s`);
    }
    return out;
  } finally {
    await runPulumi(["stack", "rm", "--yes", "--force", "--stack", ctx.stack], { cwd: ctx.cwd, env });
    await emu.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** The e2b SDK script: creates then kills each size, `reps` times, on one emulator at the same latency. */
async function sdkRun({ sizes, reps, log }) {
  const emu = await createEmulator({ faults: { latencyMs: FLEET_LATENCY_MS } });
  const out = { up: {}, upCpu: {}, upCalls: {}, destroy: {} };
  try {
    for (let r = 0; r < reps; r++) {
      for (const count of sizes) {
        const res = await runWorker("sdk-fleet.mjs", { count, concurrency: MAX_PARALLEL, service: serviceOf(emu), phases: ["up", "destroy"] });
        push(out.up, count, res.up.ms);
        push(out.upCpu, count, res.up.cpuMs);
        push(out.destroy, count, res.destroy.ms);
        out.upCalls[count] ??= { platform: res.up.requests };
      }
      log(`  fleet sdk, round ${r + 1}/${reps}: create ${sizes.map((n) => `${fmt(out.up[n].at(-1) / 1000, 2)} s (${n})`).join(", ")}`);
    }
    return out;
  } finally {
    await emu.close();
  }
}

/** The figures of one front end (or the script, whose times have no empty stack to subtract). */
function figures(run, sizes, sdk = false) {
  const m = (map, n) => median(map[n]);
  const members = (n) => (sdk ? m(run.up, n) : m(run.up, n) - m(run.up, 0));
  const kills = (n) => (sdk ? m(run.destroy, n) : m(run.destroy, n) - m(run.destroy, 0));
  const cpu = (n) => (sdk ? m(run.upCpu, n) : m(run.upCpu, n) - m(run.upCpu, 0));
  const f = { members, kills, perMember: (n) => members(n) / n, cpuPerMember: (n) => cpu(n) / n, callsPerMember: (n) => run.upCalls[n].platform / n };
  if (sdk) return f;
  return {
    ...f,
    up: (n) => m(run.up, n),
    destroy: (n) => m(run.destroy, n),
    noop: median(run.noop),
    change: median(run.change),
    bytesPerMember: (n) => (run.bytes[n] - run.bytes[0]) / n,
    wholePerMember: (n) => run.bytes[n] / n,
  };
}

/** `4: GET /v2/sandboxes, ...; 1 in-sandbox`. */
const callsText = (c) => `${c.platform}${c.kinds ? `: ${c.kinds}` : ""}${c.inSandbox ? `; ${c.inSandbox} in-sandbox` : ""}`;

const met = (ok) => (ok === undefined ? "-" : ok ? "met" : "MISSED");

/** The rows: each front end's figure, the script's, the goal and whether each front end meets it. */
function fleetRows(ts, yaml, sdk, sizes, runs) {
  const [small, large] = [sizes[0], sizes.at(-1)];
  const row = (what, f, digits, goal = "", test) => {
    const [a, b, c] = [f(ts, "ts"), f(yaml, "yaml"), f(sdk, "sdk")];
    return [what, fmt(a, digits), fmt(b, digits), fmt(c, digits), goal, met(test && a !== undefined ? test(a) : undefined), met(test && b !== undefined ? test(b) : undefined)];
  };
  const text = (what, f) => [what, f(runs.ts), f(runs.yaml), "", "", "", ""];
  const only = (f) => (x, who) => (who === "sdk" ? undefined : f(x));
  const toSdk = (f) => (x, who) => (who === "sdk" ? undefined : f(x) / f(sdk));
  const s = (ms) => ms / 1000;
  return [
    row("`up`, empty fleet (s)", only((x) => s(x.up(0))), 2),
    ...sizes.map((n) => row(`\`up\`, ${n} members (s)`, only((x) => s(x.up(n))), 2)),
    ...sizes.map((n) => row(`members' time at ${n}: up(${n}) − up(empty); SDK: its creates (s)`, (x) => s(x.members(n)), 2)),
    ...sizes.map((n) => row(`members' time at ${n} / SDK's`, toSdk((x) => x.members(n)), 2, n === large ? "≤ ×1.30" : "", n === large ? (r) => r <= 1.3 : undefined)),
    ...sizes.map((n) => row(`per member at ${n} (ms)`, (x) => x.perMember(n), 1)),
    row(`per member at ${large} / at ${small}`, (x) => x.perMember(large) / x.perMember(small), 2, "≤ ×1.15", (r) => r <= 1.15),
    row(`\`up\` CPU per member at ${large}, all processes, beyond empty; SDK: the script's (ms)`, (x) => x.cpuPerMember(large), 1),
    row(`platform calls per member in \`up\` of ${large}`, (x) => x.callsPerMember(large), 2),
    text(`platform calls in \`up\` of ${large}`, (r) => callsText(r.upCalls[large])),
    row(`\`up\` of ${large}, nothing changed (s)`, only((x) => s(x.noop)), 2),
    row(`\`up\` of ${large}, m0's envVars changed (s)`, only((x) => s(x.change)), 2),
    row("changed − nothing changed (s)", only((x) => s(x.change - x.noop)), 2, "≤ 1 s", (d) => d <= 1),
    text("the change's plan", (r) => r.plan?.replace(/^members: /, "") ?? "-"),
    text("platform calls of the change", (r) => callsText(r.changeCalls)),
    text("platform calls of the `up` that changed nothing", (r) => callsText(r.noopCalls)),
    row("`destroy`, empty fleet (s)", only((x) => s(x.destroy(0))), 2),
    row(`\`destroy\`, ${large} members (s)`, only((x) => s(x.destroy(large))), 2),
    text(`platform calls in \`destroy\` of ${large}`, (r) => callsText(r.destroyCalls[large])),
    row(`kills at ${large}: destroy(${large}) − destroy(empty); SDK: its kills (s)`, (x) => s(x.kills(large)), 2),
    row(`kills at ${large} / SDK's`, toSdk((x) => x.kills(large)), 2, "≤ ×1.30", (r) => r <= 1.3),
    ...sizes.map((n) => row(`state per member at ${n}, beyond the empty fleet's (bytes)`, only((x) => x.bytesPerMember(n)), 0, "< 700", (b) => b < 700)),
    row(`whole state / members at ${large} (bytes)`, only((x) => x.wholePerMember(large)), 0),
  ];
}

export async function fleetBench({ project, log, sizes = [50, 500], reps = 2 }) {
  const binDir = await ensurePulumi();
  const { fronts, cleanup } = prepareFronts(project);
  try {
    const runs = {};
    for (const key of ["ts", "yaml"]) runs[key] = await frontRun({ key, front: fronts[key], binDir, sizes, reps, log });
    const sdk = await sdkRun({ sizes, reps, log });
    const rows = fleetRows(figures(runs.ts, sizes), figures(runs.yaml, sizes), figures(sdk, sizes, true), sizes, runs);
    const headers = [`SandboxFleet, ${FLEET_LATENCY_MS} ms added, median of ${reps}`, "dynamic provider (TypeScript)", "native plugin (YAML)", `e2b SDK script (${MAX_PARALLEL} in flight)`, "goal", "dynamic meets", "plugin meets"];
    return table(headers, rows);
  } finally {
    cleanup();
  }
}
