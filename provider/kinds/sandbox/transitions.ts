/**
 * A Sandbox's changes of state and deadline after its create: a pause, a resume, a new timeout. Apart
 * from ./sandbox.ts, which keeps its create, read, update and delete, and calls these.
 */
import { platform } from "../../runtime/context";
import { waitingForLimit } from "../../runtime/limit-wait";

/**
 * A paused sandbox has no deadline to move: the service refuses the call while it is paused, and a
 * resume (connect) sets its deadline anew. The value is recorded in state and takes effect then.
 */
export async function applyTimeout(id: string, seconds: number, log: (line: string) => void): Promise<void> {
  const { sandboxes } = platform();
  if ((await sandboxes.get(id)).state === "paused") {
    log(`sandbox ${id} is paused: timeout ${seconds} s is recorded and applies from its next resume`);
    return;
  }
  await sandboxes.setTimeout(id, seconds);
}

/**
 * Brings the sandbox to `state`. A resume (connect) sets the deadline anew, to `timeout` seconds;
 * a pause keeps memory and files, or only the files with `pauseMode` filesystem. Either is a no-op
 * when the sandbox is already there.
 */
export async function applyState(id: string, state: "running" | "paused", timeout: number, log: (line: string) => void, pauseMode?: "full" | "filesystem"): Promise<void> {
  const { sandboxes } = platform();
  const now = (await sandboxes.get(id)).state;
  if (now === state) return;
  log(state === "paused" ? `pausing sandbox ${id}${pauseMode === "filesystem" ? " (files only)" : ""}` : `resuming sandbox ${id} for ${timeout} s`);
  if (state === "paused") await sandboxes.pause(id, pauseMode ? { memory: pauseMode === "full" } : {});
  else await waitingForLimit("resume", () => sandboxes.connect(id, { timeout }), log);
}
