/**
 * A kill that returns once the process is gone: the SDK's own tests run `kill -0 <pid>` right after
 * `commands.kill`/`pty.kill` and expect it to fail (e2b-dev/E2B: packages/js-sdk/tests/sandbox/
 * commands/kill.test.ts, pty/kill.test.ts; docs/service.md#running-a-command).
 *
 * Without namespaces the emulator reaps the command itself, so its end is enough. With them the
 * host kills `nsenter` and its child (the command, in the sandbox's PID namespace) at once: the
 * child then lies as a zombie until the namespace's init reaps it, and `kill -0` still finds it.
 * So the wait also watches the sandbox's own process list until the pid is gone.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { SandboxNamespace } from "../isolation/namespace";
import type { ManagedProcess } from "./managed";

/** The longest a kill waits for its process to be gone, in ms: a process stuck in the kernel is not waited for. */
const GONE_WAIT_MS = 2_000;

/** Resolves once the killed process ended and (with namespaces) its pid left the sandbox's list. */
export async function waitGone(proc: ManagedProcess, ns: SandboxNamespace | undefined): Promise<void> {
  const deadline = Date.now() + GONE_WAIT_MS;
  await Promise.race([proc.waitEnd(), sleep(GONE_WAIT_MS)]);
  if (!ns) return;
  while (Date.now() < deadline && (await ns.hasPid(proc.pid))) await sleep(2);
}
