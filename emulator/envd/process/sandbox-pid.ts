/**
 * The pid a command has inside its sandbox, which is the one envd reports (Start's event, List) and
 * takes back (SendSignal, Connect, Update): a command's own `echo $$`, `ps` or `kill <pid>` in the
 * sandbox must agree with what the SDK was told. With namespaces the host starts `nsenter`, which
 * forks the command into the sandbox's PID namespace, so the host's pid of the spawned process is not
 * it. A piped command's shell wrapper writes its own pid (`$$`, kept by the `exec` that becomes the
 * command) to fd 3 before anything else; a PTY's child has no spare fd, so its pid is read from the
 * host's /proc (the last NSpid of nsenter's child). Without namespaces the two pids are the same.
 */
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";

/** The pid the wrapper wrote to `report`; `fallback` when it ended before writing one (nsenter failed). */
export function reportedPid(report: Readable, fallback: number): Promise<number> {
  return new Promise((resolve) => {
    let text = "";
    const done = () => {
      report.removeAllListeners("data");
      const pid = Number.parseInt(text, 10);
      resolve(Number.isInteger(pid) && pid > 0 ? pid : fallback);
    };
    report.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) done();
    });
    report.once("close", done);
    report.once("error", done);
  });
}

/** How long to look for nsenter's child in /proc before settling for the host pid. */
const LOOK_MS = 1_000;

/** The sandbox pid of the child that the process `hostPid` (nsenter) forked, from /proc. */
export async function pidInNamespace(hostPid: number, fallback: number): Promise<number> {
  const deadline = Date.now() + LOOK_MS;
  while (Date.now() < deadline) {
    const children = await readFile(`/proc/${hostPid}/task/${hostPid}/children`, "utf8").catch(() => undefined);
    if (children === undefined) return fallback; // nsenter is gone
    const [child] = children.trim().split(/\s+/).filter(Boolean);
    if (child) {
      const status = await readFile(`/proc/${child}/status`, "utf8").catch(() => "");
      const nspids = /^NSpid:\s+(.+)$/m.exec(status)?.[1]?.trim().split(/\s+/);
      const inside = Number(nspids?.at(-1));
      if (nspids && nspids.length > 1 && Number.isInteger(inside)) return inside;
    }
    await sleep(2);
  }
  return fallback;
}
