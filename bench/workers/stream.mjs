// Worker of bench 2: one command printing `bytes` bytes to stdout, read to the end by one client
// (`pipe` reads it from a local child process: the bound). Prints its time, the bytes seen, and the
// process's CPU time (user + system, ms) and RSS before the command and at its peak (maxRSS, bytes).
import { spawn } from "node:child_process";
import { CLIENTS } from "./clients.mjs";

const { client, service, bytes } = JSON.parse(process.argv[2]);
const command = `head -c ${bytes} /dev/zero | tr '\\0' a`;

async function viaPipe() {
  const child = spawn("/bin/bash", ["-l", "-c", command], { stdio: ["ignore", "pipe", "inherit"] });
  let seen = 0;
  let tail = Buffer.alloc(0);
  for await (const chunk of child.stdout) {
    seen += chunk.length;
    tail = chunk.subarray(-4096); // keep what `run` keeps: a bounded tail
  }
  return { stdoutBytes: seen, tail: tail.length };
}

let run;
let c;
if (client === "pipe") run = viaPipe;
else {
  c = await CLIENTS[client](service);
  const sbx = await c.create();
  run = async () => {
    try {
      return await c.run(sbx, command);
    } finally {
      await c.kill(sbx);
    }
  };
}
global.gc?.();
const rssBefore = process.memoryUsage().rss;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const r = await run();
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
if (r.stdoutBytes !== bytes) throw new Error(`${client}: expected ${bytes} bytes, got ${r.stdoutBytes}`);
await c?.close();
console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, bytes: r.stdoutBytes, rssBefore, maxRSS: process.resourceUsage().maxRSS * 1024 }));
