// `npm run bench [-- --quick] [-- --only=ops,stream,readiness,engine,load,upload,growth,limit,checkpoints,fleet,image,network]`: every benchmark against the
// emulator (started here, with a fixed added latency), printed as tables and written to bench/RESULTS.md.
// Each table puts ours, the alternative and the bound side by side, measured in this one run.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { join } from "node:path";
import { ensurePulumi } from "../scripts/ensure-pulumi.mjs";
import { engineBench } from "./engine.mjs";
import { atLimitBench } from "./at-limit.mjs";
import { checkpointsBench } from "./checkpoints.mjs";
import { FLEET_LATENCY_MS, fleetBench } from "./fleet.mjs";
import { growthBench } from "./growth.mjs";
import { imageBench } from "./image-pull.mjs";
import { installProject } from "./install.mjs";
import { ROOT } from "./lib.mjs";
import { loadBench, runtimeCodeBytes } from "./load.mjs";
import { opsBench } from "./ops.mjs";
import { readinessBench } from "./readiness.mjs";
import { sandboxNetworkBench } from "./sandbox-network.mjs";
import { streamBench } from "./stream.mjs";
import { uploadBench } from "./template-upload.mjs";

const require = createRequire(import.meta.url);
// The bench has no internet: its emulators (here and in its workers) build templates FROM e2bdev/base on
// the host's system dirs (emulator/store/image-roots.ts). Section 11 pulls from its own loopback registry.
process.env.SANDBOX_EMULATOR_IMAGES ??= "host";
const { createEmulator } = require("pulumi-sandbox/emulator");

const quick = process.argv.includes("--quick");
const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7).split(",");
const want = (name) => !only || only.includes(name);
// `--sizes=10,100,500`, `--latencies=5,150` and `--provisioned=100,3` (sandboxes, commands each) pick the rows of the growth bench (7).
const listFlag = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3).split(",").map(Number) ?? fallback;
const sizes = listFlag("sizes", [10, 100, 500]);
const latencies = listFlag("latencies", [5, 150]);
const [provisionedCount, provisionedCommands] = listFlag("provisioned", [100, 3]);
const LATENCY_MS = 5;
const BUILD_MS = 6000;
const cfg = quick
  ? { opsReps: 1, rounds: 10, streamReps: 1, builds: 3, engineReps: 1, loadReps: 5, uploadReps: 1, fleetReps: 1, imageReps: 1, networkRounds: 5 }
  : { opsReps: 6, rounds: 15, streamReps: 3, builds: 9, engineReps: 2, loadReps: 11, uploadReps: 3, fleetReps: 2, imageReps: 5, networkRounds: 15 };

const started = performance.now();
const log = (line) => process.stderr.write(`${line}\n`);
const sections = [];
function section(title, what, body) {
  const text = `## ${title}\n\n${what}\n\n${body}\n`;
  sections.push(text);
  console.log(`\n${text}`);
}
const serviceOf = (emu) => ({ apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl, apiKey: emu.apiKey, accessToken: emu.accessToken });

const binDir = await ensurePulumi();
const machine = {
  date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  cpu: `${os.cpus()[0]?.model ?? "?"}, nproc ${os.availableParallelism()}`,
  memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
  node: process.version,
  pulumi: `CLI ${execFileSync(join(binDir, "pulumi"), ["version"], { encoding: "utf8" }).trim()}, @pulumi/pulumi ${require("@pulumi/pulumi/package.json").version}`,
  e2b: require("e2b/package.json").version,
  load: os.loadavg().map((x) => x.toFixed(1)).join(" "),
};
log(`pulumi-sandbox bench (${quick ? "quick" : "full"}): ${machine.cpu}, ${machine.memory}, Node ${machine.node}, load ${machine.load}`);

if (want("ops") || want("stream")) {
  const emu = await createEmulator({ faults: { latencyMs: LATENCY_MS } });
  if (want("ops")) {
    section(
      "1. Per-operation cost: create a sandbox, run `echo hi`, kill it",
      `Each client in its own process; 2 warm-up rounds per process not counted. The emulator adds ${LATENCY_MS} ms to every platform request (not to the in-sandbox API). \`run\` includes starting \`bash -l\`.`,
      await opsBench({ emu, service: serviceOf(emu), reps: cfg.opsReps, rounds: cfg.rounds, log }),
    );
  }
  if (want("stream")) {
    section(
      "2. Streaming: a command printing 20 MB and 200 MB to stdout",
      "`head -c N /dev/zero | tr '\\0' a` run to its end; one fresh process per measurement, RSS in MB (10^6 bytes). " +
        "The e2b SDK returns the whole output as a string; ours keeps a 64 KiB tail and streams the rest to callbacks. " +
        "Ours speaks Connect's binary codec by default (JSON shown too), the e2b SDK JSON. Bare Connect reads the same stream with no sdk and no generated code (undici's body read by its async iterator), in each codec: what the emulator serves to the plainest client. " +
        "The young-generation rows run ours, the e2b SDK and bare binary again with `--max-semi-space-size=2`: V8 (Node 24) grows a process's young generation with what it allocates, so maxRSS alone rises with the bytes passed through even for a client that holds nothing.",
      await streamBench({ service: serviceOf(emu), reps: cfg.streamReps, sizes: [20e6, 200e6], log }),
    );
  }
  await emu.close();
}

if (want("readiness")) {
  const emu = await createEmulator({ buildDelayMs: BUILD_MS, faults: { latencyMs: LATENCY_MS } });
  section(
    "3. Template readiness: from the build turning ready to the wait returning",
    `${cfg.builds} rounds; each round builds one template per policy side by side (build delay ${BUILD_MS / 1000} s) and starts each wait at a random phase of its polling period. ` +
      "Ready time is the emulator's `finishedAt` of the build (same clock). The e2b column re-enacts its `Template.build` wait loop with its public `Template.getBuildStatus`.",
    await readinessBench({ emu, service: serviceOf(emu), rounds: cfg.builds, buildMs: BUILD_MS, log }),
  );
  await emu.close();
}

let project;
if (want("engine") || want("load") || want("growth") || want("limit") || want("checkpoints") || want("fleet")) {
  project = { ...installProject(), repo: ROOT };
  log(`  installed the bench project in ${(project.ms / 1000).toFixed(1)} s: ${project.how}`);
}
if (want("engine")) {
  const code = await runtimeCodeBytes(project);
  section(
    "4. The provider in the Pulumi engine: 50 sandboxes",
    `\`pulumi up --skip-preview\`, then \`pulumi preview --expect-no-changes\`, fresh stack and emulator per run, file backend. ` +
      `pulumi-sandbox installed as users install it: ${project.how}, ${(project.ms / 1000).toFixed(1)} s. ` +
      `The inline provider (bench/fixture/inline.js) is the smallest thing that works: bare fetch, create and delete only; Pulumi's serializer refuses ` +
      `to capture a real client by value (ours fails on a deep \`require("pulumi-sandbox/dist/...")\` the exports map forbids, the e2b SDK on a free \`Deno\`). ` +
      `What the stub loads by name instead: ${(code / 1024).toFixed(0)} KiB of pulumi-sandbox's own JavaScript, which by value would be stored twice in every resource.`,
    await engineBench({ reps: cfg.engineReps, count: 50, latencyMs: LATENCY_MS, project, log }),
  );
}
if (want("load")) {
  section(
    "5. Provider load: cold `require` in a fresh node process",
    "Resolved from the installed project of bench 4 (`e2b` from this repository). Time of the `require` call alone, process start excluded.",
    await loadBench({ reps: cfg.loadReps, project, log }),
  );
}
if (want("growth")) {
  section(
    "7. Growth: up, no-op preview, refresh and destroy of N sandboxes",
    "One fresh stack and emulator per row and front end (the dynamic provider as installed, its native plugin, the inline provider, and a no-op dynamic provider that calls no service: the engine's floor), file backend; per resource figures subtract a stack of 0 sandboxes run just before, at the same latency. " +
      `The engine runs with \`--parallel C\` and the e2b SDK script (bench/workers/sdk-fleet.mjs) with C creates in flight, C = min(N, 100); its refresh is a get per sandbox, its destroy a kill, and it has no preview. ` +
      "The bound is ceil(N / C) creates in a row, each the emulator's median create. The team's limit is N (sandboxes stay running, so a smaller limit could not be met). " +
      "Provider peak RSS is the dynamic-provider host's or the plugin's high-water mark (VmHWM), the SDK's the script's own. Sizes: " + sizes.join(", ") + "; " +
      `then ${provisionedCount} sandboxes with ${provisionedCommands} provisioning commands each (the script runs the same ${provisionedCommands} with \`commands.run\`, one after the other, after each create).`,
    await growthBench({ sizes, latencies, project, log, provisioned: { count: provisionedCount, commands: provisionedCommands } }),
  );
}
if (want("limit")) {
  section(
    "8. At the team's concurrent-sandbox limit",
    "The team's limit is 100 and another user of the team holds all 100 slots when `pulumi up --parallel 100` of 100 sandboxes starts; that user's sandboxes end one every 50 ms from 2 s on (this bench kills them). " +
      "150 ms added to every request. The waits are the ones each resource reported on its row (\"went through after waiting …\"); the e2b SDK script meets the same team, with each create in a try.",
    await atLimitBench({ project, log }),
  );
}
if (want("checkpoints")) {
  section(
    "9. The engine's checkpoints: 500 sandboxes with and without them",
    "`pulumi up` and `destroy` of 500 sandboxes, 150 ms added, file backend, fresh stack and emulator per run; the same runs with `PULUMI_SKIP_CHECKPOINTS=true`, " +
      "the engine's switch that writes the state once at the end instead of after every step. What the switch saves is the engine's own work, the same for every provider.",
    await checkpointsBench({ project, log }),
  );
}
if (want("fleet")) {
  section(
    "10. SandboxFleet: one resource of 50 and 500 sandboxes",
    `${FLEET_LATENCY_MS} ms added to every platform request; median of ${cfg.fleetReps} rounds. One fleet from \`base\` (members m0 to m<N-1>, alike but m0's EDITOR env var), default maxParallel (16), ` +
      "by the dynamic provider as installed from a TypeScript program (bench/fixture-fleet, transpiled only: `PULUMI_NODEJS_TRANSPILE_ONLY=true`) and by the native plugin from a Pulumi YAML program; one stack, emulator and file backend each. " +
      "A round deploys the empty fleet (`members: {}`), 50 and 500 members, each `up` then `destroy`, so every `up` makes the fleet from nothing; the members' time is `up(N)` minus the median `up` of the empty fleet (engine, program and provider start), their kills `destroy(N)` minus the empty fleet's. " +
      "At 500 an `up` that changes nothing, then one that changes m0's envVars (a replacement inside the fleet). " +
      "The e2b SDK script (bench/workers/sdk-fleet.mjs) creates, then kills, the same sandboxes with 16 in flight; its times are its own phases, process start excluded. " +
      "State per member: `pulumi stack export`'s bytes beyond the empty fleet's, over N. Calls are the emulator's log (its admin routes left out); in-sandbox calls are not delayed.",
    await fleetBench({ project, reps: cfg.fleetReps, log }),
  );
}
if (project) rmSync(project.dir, { recursive: true, force: true });

if (want("upload")) {
  const emu = await createEmulator({ buildDelayMs: 300, faults: { latencyMs: LATENCY_MS } });
  section(
    "6. Template upload: a 50 MB build context, built again after one file changed",
    `${cfg.uploadReps} runs, medians; a fresh context of random (incompressible) files per run: deps 20 MB, assets 15 MB, models 14 MB, src 1 MB; ` +
      "then one file of src changes. Ours is the provider's runtime as `pulumi up` runs it (check, which hashes every COPY step's files, then create/update); " +
      "\"upload everything\" is the same build through the sdk, every step's archive uploaded every time. Build delay 0.3 s. " +
      "The service caches files by COPY step, so with one `COPY . /app` a changed file sends the whole context again.",
    await uploadBench({ service: serviceOf(emu), reps: cfg.uploadReps, log }),
  );
  await emu.close();
}

if (want("image")) {
  section(
    "11. A user's FROM image pulled into a template's root (issue 49)",
    `${cfg.imageReps} rounds, each with empty caches and targets; medians, min–max over the rounds. One image built here (seeded, so the same bytes every run) and pushed to CNCF distribution (/usr/bin/docker-registry) on loopback, read by both clients with no proxy between; blob GETs and bytes are the registry's access log. ` +
      "Ours is emulator/image's \`pullImage\` in a fresh node process (its maxRSS is the peak); the alternative is \`skopeo copy docker://… oci:…\` then \`umoci raw unpack --rootless\`, each under /usr/bin/time (peak RSS: the larger of the two). " +
      "Rebuilt: \`pullImage\` again with the cold row's cache and a new target. Every tree is hashed whole (paths, bytes, modes, link targets) and must equal umoci's, with the whiteouts applied.",
    await imageBench({ reps: cfg.imageReps, log }),
  );
}

if (want("network")) {
  section(
    "12. A sandbox's way out to the network (issue 49)",
    `${cfg.networkRounds} sandboxes per emulator, alternating; the official SDK in this process against two emulators here, with \`sandboxNetwork: "uplink"\` (a network namespace held by the host's root, slirp4netns, the egress rules loaded by iptables-restore) and \`"loopback"\` (the sandbox's own loopback alone). The uplink starts with the namespaces, at the first command. Memory: the VmRSS of the running sandbox's slirp4netns and namespace holder.`,
    await sandboxNetworkBench({ rounds: cfg.networkRounds, log }),
  );
}

const wall = (performance.now() - started) / 1000;
const command = `npm run bench -- ${process.argv.slice(2).join(" ")}`.replace(/ -- $/, "");
const header = [
  "# Benchmark results",
  "",
  `Generated by \`${command}\` (bench/main.mjs) on ${machine.date}, wall time ${wall.toFixed(0)} s.`,
  "",
  `- Machine: ${machine.cpu}, ${machine.memory} RAM; load average at start ${machine.load}, at end ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`,
  `- Node ${machine.node}; Pulumi ${machine.pulumi}; e2b ${machine.e2b}`,
  `- Emulator in the bench process, ${LATENCY_MS} ms added to every platform request; clients in child processes, run one at a time`,
  "",
].join("\n");
// A run of some benches (`--only`) writes beside the full results, never over them.
const file = join(ROOT, "bench", only ? `RESULTS-${only.join("-")}.md` : "RESULTS.md");
// Everything from this marker on is written by hand (the reading of the tables) and kept across runs.
const NOTES = "<!-- notes: kept across runs -->";
const previous = existsSync(file) ? readFileSync(file, "utf8") : "";
const notes = previous.includes(NOTES) ? previous.slice(previous.indexOf(NOTES)) : `${NOTES}\n`;
writeFileSync(file, `${header}\n${sections.join("\n")}\n${notes}`);
log(`\nwrote ${file}; wall time ${wall.toFixed(0)} s`);
