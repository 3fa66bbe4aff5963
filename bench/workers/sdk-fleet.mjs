// The official SDK's side of the growth bench: a plain script that makes `count` sandboxes from
// `base` with `concurrency` creates in flight (each then running `commands` commands one after the
// other, as provisioning does), then reads each (what a refresh does), then kills each, as a user
// without Pulumi would. Reports wall and CPU time of each phase and its own peak RSS.
import { Sandbox } from "e2b";

const { count, commands = 0, concurrency, service, keepGoing = false, phases = ["up", "refresh", "destroy"] } = JSON.parse(process.argv[2]);
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

// With keepGoing, a create the service refuses counts as failed and the script goes on, as one
// wrapping each create in a try would (bench 8, at the team's limit); otherwise the first failure ends it.
const ids = [];
let failed = 0;
let firstFailure;
const up = await phase(async (i) => {
  try {
    const sandbox = await Sandbox.create("base", { ...opts, timeoutMs: 3_600_000 });
    for (let c = 1; c <= commands; c++) await sandbox.commands.run(`echo step ${c}`);
    ids[i] = sandbox.sandboxId;
  } catch (err) {
    if (!keepGoing) throw err;
    failed++;
    firstFailure ??= String(err?.message ?? err).slice(0, 300);
  }
});
const made = (work) => (i) => (ids[i] === undefined ? undefined : work(ids[i]));
const refresh = phases.includes("refresh") ? await phase(made((id) => Sandbox.getInfo(id, opts))) : undefined;
const destroy = phases.includes("destroy") ? await phase(made((id) => Sandbox.kill(id, opts))) : undefined;
console.log(JSON.stringify({ up: { ...up, failed, firstFailure }, refresh, destroy, peakKb: process.resourceUsage().maxRSS }));
