/**
 * Waiting for a helper process the emulator starts (a sandbox's port bridge, its network namespace,
 * slirp4netns) to say it is up: what it writes on one of its pipes, with a deadline, and a failure
 * that names the helper, why it failed and the end of what it wrote on stderr.
 */
import type { ChildProcess } from "node:child_process";

/** How long a helper may take to say it is up, in ms. */
const START_TIMEOUT_MS = 10_000;

/** Resolves once `child`'s output on `fd` satisfies `done`; rejects when it ends or times out first. */
export function childReady(child: ChildProcess, done: (out: string) => boolean, what: string, fd = 1): Promise<void> {
  const stream = child.stdio[fd] as NodeJS.ReadableStream | null;
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-2000)));
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`${what} did not start: ${why}${stderr.trim() ? `: ${stderr.trim()}` : ""}`));
    };
    const timer = setTimeout(() => fail(`no answer within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once("error", (err) => fail(err.message));
    child.once("exit", (code, signal) => fail(`it ended (${signal ?? `exit ${code}`})`));
    let out = "";
    stream?.on("data", (d: Buffer) => {
      out += d.toString();
      if (!done(out)) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolve();
    });
  });
}
