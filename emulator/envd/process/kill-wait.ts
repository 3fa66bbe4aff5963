/**
 * A kill that returns once the process is gone: the SDK's own tests run `kill -0 <pid>` right after
 * `commands.kill`/`pty.kill` and expect it to fail (e2b-dev/E2B: packages/js-sdk/tests/sandbox/
 * commands/kill.test.ts, pty/kill.test.ts; docs/service.md#running-a-command).
 *
 * Without namespaces the emulator reaps the command itself, so its end is enough. With them the
 * kill takes the command before nsenter so that nsenter reaps it (./launched-kill.ts); what the
 * emulator sees end is nsenter, so the wait also watches the sandbox's own process list until the
 * pid is gone, in case the command was reaped elsewhere (a zombie still answers `kill -0`).
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
