// Bench 5: cold `require` of the provider's entry points in a fresh node process each time, from the
// installed project of bench 4, against `require("@pulumi/pulumi")` alone (the bound). The entries
// take turns in each repetition, so a busy machine weighs on all of them alike; medians of `reps`.
// What the program's import adds over @pulumi/pulumi is also timed directly, in one process: the
// difference of two medians taken in different processes moves by more than it on a loaded machine.
import { fmt, median, ratio, runWorker, table } from "./lib.mjs";

const ENTRIES = [
  ["@pulumi/pulumi", "the bound: what every Pulumi program loads"],
  ["pulumi-sandbox", "the program's import (resource classes)"],
  ["pulumi-sandbox/runtime", "what the provider host loads by name"],
  ["pulumi-sandbox/sdk", "the typed client alone"],
  ["e2b", "the official SDK alone, for scale"],
];
const ADDED = { label: "pulumi-sandbox", id: "pulumi-sandbox", after: ["@pulumi/pulumi"], what: "the program's import, after @pulumi/pulumi: what it adds" };

export async function loadBench({ reps, project }) {
  const runs = Object.fromEntries([...ENTRIES.map(([id]) => [id, []]), ["added", []]]);
  for (let i = 0; i < reps; i++) {
    for (const [id] of ENTRIES) runs[id].push(await runWorker("require.mjs", { dir: id === "e2b" ? project.repo : project.dir, id }));
    runs.added.push(await runWorker("require.mjs", { dir: project.dir, id: ADDED.id, after: ADDED.after }));
  }
  const ms = (id) => median(runs[id].map((r) => r.ms));
  const bound = ms("@pulumi/pulumi");
  const rows = ENTRIES.map(([id, what]) => [`\`require("${id}")\``, what, fmt(ms(id)), ratio(ms(id), bound), String(runs[id][0].modules)]);
  rows.push([`\`require("${ADDED.label}")\` after \`@pulumi/pulumi\``, ADDED.what, fmt(ms("added")), "-", `+${runs.added[0].added}`]);
  return table([`cold require, median of ${reps}`, "", "ms", "vs @pulumi/pulumi", "modules loaded"], rows);
}

/** Bytes of pulumi-sandbox's own JavaScript that the provider host loads by name (what by-value capture would have to carry). */
export async function runtimeCodeBytes(project) {
  return (await runWorker("require.mjs", { dir: project.dir, id: "pulumi-sandbox/runtime", ownCode: "pulumi-sandbox" })).ownBytes;
}
