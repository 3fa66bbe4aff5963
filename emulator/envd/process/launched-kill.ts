/**
 * SIGKILL of a command started in a sandbox through `nsenter` (namespace.ts), child first. Killing
 * nsenter's whole group at once orphans the command while it dies, and an orphan of nsenter is
 * reparented by nsenter's own (the host's) PID namespace, not the sandbox's: it then lies as a
 * zombie until the host's init gets round to it, seconds later, and `kill -0 <pid>` in the sandbox
 * still finds it. Killed first, the command is reaped by nsenter, which then ends with the same
 * signal; whatever else of the group is left (what the command started) is killed after.
 */
import { readFileSync } from "node:fs";

/**
 * Kills the children of the nsenter `hostPid` (the command, in the sandbox); the caller signals
 * the group once nsenter has ended. False when it had none (already ended, or not yet forked):
 * then the caller signals the group at once.
 */
export function killLaunchedChild(hostPid: number): boolean {
  let children: number[];
  try {
    children = readFileSync(`/proc/${hostPid}/task/${hostPid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return false;
  }
  for (const child of children) {
    try {
      process.kill(child, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  return children.length > 0;
}
