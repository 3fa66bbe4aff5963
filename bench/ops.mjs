// Bench 1: the cost of one sandbox's life (create, run `echo hi`, kill) through our sdk, the official
// `e2b` SDK and bare requests (the bound). Each client runs in its own process; repetitions are
// interleaved so a busy machine slows all three alike. The emulator's call log says how long it
// spent on each request (arrival to the answer's end, the added latency and `bash -l` included):
// what no client can go below, so the rest of a round is what the client itself adds.
import { fmt, median, ratio, runWorker, table } from "./lib.mjs";

const CLIENTS = ["ours", "official", "bare"];

export async function opsBench({ emu, service, reps, rounds, log }) {
  const warmup = 2;
  const all = Object.fromEntries(CLIENTS.map((c) => [c, { rounds: [], requests: 0 }]));
  for (let i = 0; i < reps; i++) {
    for (const client of CLIENTS) {
      const seq = emu.calls().at(-1)?.seq ?? 0;
      const res = await runWorker("ops.mjs", { client, service, iterations: rounds, warmup });
      const calls = emu.calls(seq);
      const server = serverTimes(calls, warmup + rounds).slice(warmup);
      all[client].rounds.push(...res.rounds.map((r, k) => ({ ...r, server: server[k] ?? Number.NaN })));
      all[client].requests += calls.length / (rounds + warmup);
    }
    log(`  ops run ${i + 1}/${reps} done`);
  }
  const med = (client, f) => median(all[client].rounds.map(f));
  const row = (label, f) => {
    const [o, e, b] = CLIENTS.map((c) => med(c, f));
    return [label, fmt(o, 2), fmt(e, 2), fmt(b, 2), ratio(o, e), ratio(o, b)];
  };
  const n = all.ours.rounds.length;
  return table(
    [`ms, median of ${n} rounds (${reps} processes × ${rounds})`, "ours", "e2b SDK", "bare HTTP (bound)", "ours / e2b", "ours / bare"],
    [
      row("create sandbox", (r) => r.create),
      row("run `echo hi`", (r) => r.run),
      row("kill sandbox", (r) => r.kill),
      row("whole round", (r) => r.create + r.run + r.kill),
      row("emulator's time per round (its call log)", (r) => r.server),
      row("client's share (round − emulator's time)", (r) => r.create + r.run + r.kill - r.server),
      row("client CPU time per round", (r) => r.cpu),
      ["requests per round", ...CLIENTS.map((c) => fmt(all[c].requests / reps, 1)), "", ""],
    ],
  );
}

/** The emulator's handling time of each round (the sum over its requests), when the log splits evenly into rounds. */
function serverTimes(calls, roundCount) {
  if (roundCount === 0 || calls.length % roundCount !== 0) return [];
  const per = calls.length / roundCount;
  return Array.from({ length: roundCount }, (_, k) => calls.slice(k * per, (k + 1) * per).reduce((sum, c) => sum + c.ms, 0));
}
