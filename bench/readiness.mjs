// Bench 3: how long after the service marks a template build ready the wait for it returns (the
// polling overhead): our sdk's waitForBuild (what Template create uses), the official SDK's build
// loop, and a poll every 5 s (the baseline). The bound is one status request's round trip.
import { fmt, median, ratio, runWorker, table } from "./lib.mjs";

const POLICIES = ["ours", "official", "poll5s"];

export async function readinessBench({ emu, service, rounds, buildMs, log }) {
  const over = Object.fromEntries(POLICIES.map((p) => [p, []]));
  const polls = Object.fromEntries(POLICIES.map((p) => [p, 0]));
  const rtts = [];
  for (let i = 0; i < rounds; i++) {
    const seq = emu.calls().at(-1)?.seq ?? 0;
    const r = await runWorker("readiness.mjs", { service });
    const calls = emu.calls(seq).filter((c) => c.path.includes("/builds/"));
    for (const p of POLICIES) {
      over[p].push(r[p].overhead);
      polls[p] += calls.filter((c) => c.path.includes(r[p].templateID)).length - (p === "ours" ? 1 : 0); // minus the RTT probe
    }
    rtts.push(r.rtt);
    log(`  readiness round ${i + 1}/${rounds}: ${POLICIES.map((p) => `${p} ${fmt(r[p].overhead, 0)} ms`).join(", ")}`);
  }
  const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
  const med = Object.fromEntries(POLICIES.map((p) => [p, median(over[p])]));
  return table(
    [`${rounds} builds per policy`, "ours waitForBuild (log-paced)", "e2b build loop (200 ms)", "poll every 5 s", "bound: one request", "ours / 5 s", "ours / e2b"],
    [
      ["ready → returned, median (ms)", ...POLICIES.map((p) => fmt(med[p], 0)), fmt(median(rtts), 1), ratio(med.ours, med.poll5s), ratio(med.ours, med.official)],
      ["ready → returned, p90 (ms)", ...POLICIES.map((p) => fmt(p90(over[p]), 0)), fmt(p90(rtts), 1), "", ""],
      [`status requests per build (${(buildMs / 1000).toFixed(1)} s build)`, ...POLICIES.map((p) => fmt(polls[p] / rounds, 1)), "1", "", ""],
    ],
  );
}
