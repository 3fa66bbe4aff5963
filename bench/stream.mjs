// Bench 2: a command printing 20 MB and 200 MB to stdout, read to its end. Throughput and peak memory
// (maxRSS of a fresh process per measurement) of our `run`, the official SDK's `commands.run`, a
// bare Connect stream (same wire, no sdk: the emulator's own ceiling), and a local pipe (the bound).
import { fmt, median, ratio, runWorker, table } from "./lib.mjs";

const CLIENTS = ["ours", "official", "bare", "pipe"];
const MB = 1e6;

export async function streamBench({ service, reps, sizes, log }) {
  const runs = {};
  for (let i = 0; i < reps; i++) {
    for (const bytes of sizes) {
      for (const client of CLIENTS) {
        const r = await runWorker("stream.mjs", { client, service, bytes });
        (runs[`${client} ${bytes}`] ??= []).push(r);
      }
      log(`  stream ${bytes / MB} MB run ${i + 1}/${reps} done`);
    }
  }
  const rows = [];
  for (const bytes of sizes) {
    const m = (client, f) => median(runs[`${client} ${bytes}`].map(f));
    const mbps = (client) => m(client, (r) => bytes / MB / (r.ms / 1000));
    const peak = (client) => m(client, (r) => r.maxRSS / MB);
    const before = (client) => m(client, (r) => r.rssBefore / MB);
    const line = (label, f, digits) => {
      const v = CLIENTS.map(f);
      return [`${bytes / MB} MB: ${label}`, ...v.map((x) => fmt(x, digits)), ratio(v[0], v[1]), ratio(v[0], v[3])];
    };
    const cpu = (client) => m(client, (r) => r.cpuMs / 1000);
    rows.push(line("throughput (MB/s)", mbps, 1), line("client CPU time (s)", cpu, 2), line("RSS before the command (MB)", before, 0), line("peak RSS, maxRSS (MB)", peak, 0));
  }
  return table([`median of ${reps}`, "ours `run`", "e2b `commands.run`", "bare Connect", "local pipe (bound)", "ours / e2b", "ours / pipe"], rows);
}
