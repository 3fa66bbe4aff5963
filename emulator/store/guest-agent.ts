/**
 * The sandbox's guest agent (envd) as a pause sees it, and what follows (the newest SDKs' rules:
 * docs/service.md#sandbox-fields-of-the-newest-sdks). The emulator's envd is its own server and
 * always answers, so a sandbox's agent is marked as not answering by a switch
 * (POST /_emulator/sandboxes/{id}/envd), which only the pause's check reads. While it is marked, a
 * files-only pause, or one with `requireHealthyGuest`, is a 503 and the sandbox keeps running; any
 * other pause goes on and records `envdUnresponsiveAtPause`, after which a plain resume is a 409 with
 * `error_code` and only a cold one (`memory: false`) is taken. A cold boot starts an agent that answers.
 */
import { ApiError } from "../http";
import type { SandboxRecord } from "./sandbox-records";

/** `error_code` of a plain resume of a sandbox paused while its guest agent did not answer. */
export const GUEST_AGENT_UNRESPONSIVE = "sandbox_snapshot_guest_agent_unresponsive";

/** The 503 a pause meets while the agent does not answer, if this pause cannot go on without it. */
export function pauseRefusal(record: SandboxRecord, keepMemory: boolean, requireHealthyGuest: boolean | undefined): ApiError | undefined {
  if (!record.envdUnresponsive || (keepMemory && !requireHealthyGuest)) return undefined;
  const why = keepMemory ? "requireHealthyGuest was set" : "a filesystem-only pause needs it";
  return new ApiError(503, `Sandbox '${record.sandboxID}' cannot be paused: its guest agent is not responding and ${why}; the sandbox keeps running, retry later`);
}

/** The 409 a resume that would restore the memory meets, when the pause found the agent not answering. */
export function resumeRefusal(record: SandboxRecord, keepMemory: boolean | undefined): ApiError | undefined {
  if (!record.envdUnresponsiveAtPause || keepMemory === false) return undefined;
  const message = `Sandbox '${record.sandboxID}' was paused while its guest agent was not responding; resume it without memory (memory: false)`;
  return new ApiError(409, message, {}, GUEST_AGENT_UNRESPONSIVE);
}

/**
 * Marks a running sandbox's agent as answering or not; a paused one is a 409 (it has no agent
 * running to mark).
 */
export function markAgent(record: SandboxRecord, responsive: boolean): void {
  if (record.state !== "running") throw new ApiError(409, `Sandbox '${record.sandboxID}' is paused: only a running sandbox's guest agent can be marked`);
  record.envdUnresponsive = responsive ? undefined : true;
}

/**
 * Whether a timeout's auto-pause keeps the memory. *Emulator's choice*: a files-only auto-pause of a
 * sandbox whose agent does not answer keeps it (refused, it would leave the sandbox running past its
 * end); it records `envdUnresponsiveAtPause`, so the sandbox still resumes only cold.
 */
export function autoPauseKeepsMemory(record: SandboxRecord): boolean {
  return record.autoPauseMemory !== false || record.envdUnresponsive === true;
}
