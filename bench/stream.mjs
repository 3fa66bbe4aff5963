// Bench 2: a command printing 20 MB and 200 MB to stdout, read to its end. Throughput and peak memory
// (maxRSS of a fresh process per measurement) of our `run` in its default binary codec and in JSON,
// the official SDK's `commands.run` (JSON), a bare Connect stream in each codec (same wire, no sdk:
// the emulator's own ceiling), and a local pipe (the bound). CPU times are given for the client and
// for the emulator (this process, which does nothing else meanwhile): on a loaded machine they say
// more than throughput, which then follows the CPU share the pipeline gets.
import { fmt, median, ratio, runWorker, table } from "./lib.mjs";

/** [column key, worker args]; the first is ours as shipped, the third the official SDK, the last the bound. */
const CLIENTS = [
  ["ours binary", { client: "ours", codec: "binary" }],
  ["ours json", { client: "ours", codec: "json" }],
  ["official", { client: "official" }],
  ["bare binary", { client: "bare", codec: "binary" }],
  ["bare json", { client: "bare", codec: "json" }],
  ["pipe", { client: "pipe" }],
];
const MB = 1e6;
/**
 * Peak RSS also follows V8's heap policy: from Node 24 a process's young generation grows with the
 * bytes it allocates, so even a client that holds nothing (bare) peaks higher at 200 MB than at 20 MB.
 * These clients run once more with the young generation held to 2 MB: what is left is what they hold.
 */
const BOUNDED = ["ours binary", "official", "bare binary"];
const BOUNDED_FLAGS = ["--max-semi-space-size=2"];

export async function streamBench({ service, reps, sizes, log }) {
  const runs = {};
  for (let i = 0; i < reps; i++) {
    for (const bytes of sizes) {
      for (const [key, args] of CLIENTS) {
        const cpu0 = process.cpuUsage();
        const r = await runWorker("stream.mjs", { ...args, service, bytes });
        const cpu = process.cpuUsage(cpu0);
        (runs[`${key} ${bytes}`] ??= []).push({ ...r, serverCpuMs: (cpu.user + cpu.system) / 1000 });
        if (BOUNDED.includes(key)) (runs[`${key} ${bytes} bounded`] ??= []).push(await runWorker("stream.mjs", { ...args, service, bytes }, { nodeArgs: BOUNDED_FLAGS }));
      }
      log(`  stream ${bytes / MB} MB run ${i + 1}/${reps} done`);
    }
  }
  const rows = [];
  for (const bytes of sizes) {
    const m = (key, f) => median(runs[`${key} ${bytes}`].map(f));
    const mbps = (key) => m(key, (r) => bytes / MB / (r.ms / 1000));
    const peak = (key) => m(key, (r) => r.maxRSS / MB);
    const boundedPeak = (key) => (BOUNDED.includes(key) ? median(runs[`${key} ${bytes} bounded`].map((r) => r.maxRSS / MB)) : undefined);
    const before = (key) => m(key, (r) => r.rssBefore / MB);
    const cpu = (key) => m(key, (r) => r.cpuMs / 1000);
    // The pipe has no emulator: its column stays empty.
    const serverCpu = (key) => (key === "pipe" ? undefined : m(key, (r) => r.serverCpuMs / 1000));
    const line = (label, f, digits) => {
      const v = CLIENTS.map(([key]) => f(key));
      return [`${bytes / MB} MB: ${label}`, ...v.map((x) => fmt(x, digits)), ratio(v[0], v[2]), ratio(v[1], v[2]), ratio(v[0], v[5])];
    };
    rows.push(line("throughput (MB/s)", mbps, 1), line("client CPU time (s)", cpu, 2), line("emulator CPU time (s)", serverCpu, 2), line("RSS before the command (MB)", before, 0), line("peak RSS, maxRSS (MB)", peak, 0), line("peak RSS, young generation ≤ 2 MB (MB)", boundedPeak, 0));
  }
  const headers = ["ours `run` (binary)", "ours `run` (JSON)", "e2b `commands.run`", "bare Connect binary", "bare Connect JSON", "local pipe (bound)"];
  return table([`median of ${reps}`, ...headers, "ours / e2b", "ours JSON / e2b", "ours / pipe"], rows);
}
