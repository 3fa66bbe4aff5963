// Bench 9: where the engine's time goes in a large `up`. With a file backend the engine writes the whole
// state after every step (a checkpoint), so a stack of N resources writes about 2N checkpoints of up
// to N resources each: its cost grows as N². A CPU profile of the CLI in an `up` of 500 sandboxes
// (`pulumi up --profiling`) put 65 % of its time in that (SnapshotManager.saveSnapshot: JSON encoding,
// md5, the file write). `PULUMI_SKIP_CHECKPOINTS=true` is the engine's own switch that writes the
// state only at the end: the same `up` with and without it, per front end, shows how much of the time
// is the engine's checkpoints and how much is left for the providers. The switch trades the state's
// record of a run that is killed half way for speed (Pulumi's docs say so); it is measured here, not
// recommended.
import { ensurePulumi } from "../scripts/ensure-pulumi.mjs";
import { stackRun } from "./growth.mjs";
import { fmt, ratio, table } from "./lib.mjs";

const MODES = [["package", "pulumi-sandbox"], ["native", "native plugin"], ["noop", "no-op (engine floor)"]];

export async function checkpointsBench({ count = 500, latencyMs = 150, project, log }) {
  const binDir = await ensurePulumi();
  const rows = [];
  for (const [mode, name] of MODES) {
    const run = (extraEnv) => stackRun({ project: project.dir, binDir, mode, count, latencyMs, ops: ["up", "destroy"], extraEnv });
    const saved = await run({});
    const skipped = await run({ PULUMI_SKIP_CHECKPOINTS: "true" });
    log(`  checkpoints, ${mode}, ${count} sandboxes: up ${fmt(saved.up.ms / 1000, 2)} s with, ${fmt(skipped.up.ms / 1000, 2)} s without`);
    for (const op of ["up", "destroy"]) {
      rows.push([`${name}: \`${op}\` wall (s)`, fmt(saved[op].ms / 1000, 2), fmt(skipped[op].ms / 1000, 2), ratio(skipped[op].ms, saved[op].ms)]);
    }
    rows.push([`${name}: \`up\` CPU, all processes (s)`, fmt(saved.up.cpuMs / 1000, 1), fmt(skipped.up.cpuMs / 1000, 1), ratio(skipped.up.cpuMs, saved.up.cpuMs)]);
  }
  return table([`${count} sandboxes, ${latencyMs} ms added, \`--parallel 100\``, "checkpoints (default)", "PULUMI_SKIP_CHECKPOINTS=true", "skipped / default"], rows);
}
