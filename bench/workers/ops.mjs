// Worker of bench 1: `iterations` rounds of create → run `echo hi` → kill with one client, after
// `warmup` untimed rounds. Prints {rounds: [{create, run, kill, cpu}]} in milliseconds (cpu: this
// process's user + system time over the round).
import { CLIENTS } from "./clients.mjs";

const { client, service, iterations, warmup } = JSON.parse(process.argv[2]);
const c = await CLIENTS[client](service);
const rounds = [];
for (let i = 0; i < warmup + iterations; i++) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const sbx = await c.create();
  const t1 = performance.now();
  const r = await c.run(sbx, "echo hi");
  const t2 = performance.now();
  await c.kill(sbx);
  const t3 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  if (r.exitCode !== 0 || r.stdoutBytes !== 3) throw new Error(`${client}: echo hi gave exit ${r.exitCode}, ${r.stdoutBytes} bytes`);
  if (i >= warmup) rounds.push({ create: t1 - t0, run: t2 - t1, kill: t3 - t2, cpu: (cpu.user + cpu.system) / 1000 });
}
await c.close();
console.log(JSON.stringify({ rounds }));
