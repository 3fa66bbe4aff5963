// The official SDK's side of the growth bench: a plain script that makes `count` sandboxes from
// `base` with `concurrency` creates in flight, then reads each (what a refresh does), then kills each,
// as a user without Pulumi would. Reports wall and CPU time of each phase and its own peak RSS.
import { Sandbox } from "e2b";

const { count, concurrency, service } = JSON.parse(process.argv[2]);
const opts = { apiKey: service.apiKey, apiUrl: service.apiUrl, sandboxUrl: service.sandboxUrl };

/** Runs `work(i)` for i < count with at most `concurrency` at once. */
async function pool(work) {
  let next = 0;
  const lane = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

/** The emulator's request count so far (its admin route, itself not counted). */
async function requestsSoFar() {
  const res = await fetch(`${service.apiUrl}/_emulator/calls?since=${Number.MAX_SAFE_INTEGER}`, { headers: { "x-api-key": service.apiKey } });
  return (await res.json()).last;
}

async function phase(work) {
  const seq = await requestsSoFar();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await pool(work);
  const cpu = process.cpuUsage(cpu0);
  return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, requests: (await requestsSoFar()) - seq };
}

const ids = [];
const up = await phase(async (i) => (ids[i] = (await Sandbox.create("base", { ...opts, timeoutMs: 3_600_000 })).sandboxId));
const refresh = await phase((i) => Sandbox.getInfo(ids[i], opts));
const destroy = await phase((i) => Sandbox.kill(ids[i], opts));
console.log(JSON.stringify({ up, refresh, destroy, peakKb: process.resourceUsage().maxRSS }));
