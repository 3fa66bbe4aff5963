/**
 * Creates past the team's concurrent-sandbox limit. The service refuses them with a 429 that made
 * nothing (docs/service.md#limits), and the refusal lasts until other sandboxes end: in a large `up`
 * (or beside other users of the team) that is often seconds away. So the start waits and asks again,
 * saying so on the resource's row, instead of failing the whole `up`; repeating is safe because the
 * refused request made no sandbox. Pulumi's `--parallel` still bounds the work: a waiting create holds
 * the engine's slot, and the provider starts nothing of its own.
 *
 * The wait is one of its operation's long waits (./operation.ts): the engine's Cancel (Ctrl-C) and the
 * request's deadline (`customTimeouts`) end a pause at once, and no try is sent after them, so a
 * cancelled or timed-out create makes nothing, even when a slot frees later. A try already sent when
 * they come is let finish: stopped midway, the service might make the sandbox and its answer be lost.
 * Taken, it is the create's (the waits after it stop in their turn); refused, the wait ends there.
 */
import { isSandboxError } from "../../sdk/errors";
import { formatDuration, sleep } from "../../sdk/transport/wait";
import type { Logger } from "./log";
import { operationWait } from "./operation";

/** How long a start waits for a slot before the resource fails: long enough for a busy team, short of hanging an `up`. */
export const LIMIT_WAIT_MS = 10 * 60_000;
/** Pauses between tries when the service names none (the concurrency 429 carries no Retry-After). */
const FIRST_PAUSE_MS = 500;
const MAX_PAUSE_MS = 5_000;
/** A waiting resource says it still waits this often, so a long wait does not look like a hang. */
const REPORT_EVERY_MS = 30_000;

export interface LimitWaitOptions {
  /** Longest wait in all, in milliseconds. Default {@link LIMIT_WAIT_MS}. */
  maxWaitMs?: number;
  /** Source of jitter in [0, 1). */
  random?: () => number;
}

/** Whether the service refused a start for the team's concurrent-sandbox limit (nothing was made). */
export function atSandboxLimit(err: unknown): boolean {
  return isSandboxError(err) && err.reason === "sandbox_limit";
}

/**
 * Runs `start` (a create or a resume) until the service takes it; while it is refused for the team's
 * limit, waits (a `Retry-After` when given, else a jittered pause growing to 5 s) and tries again.
 *
 * @param what names the start in lines and messages ("create", "resume").
 * @throws the start's own errors at once; at the limit for longer than `maxWaitMs`, an Error saying what
 *   to do; when the operation is cancelled or passes its deadline while waiting, an Error saying so.
 */
export async function waitingForLimit<T>(what: string, start: () => Promise<T>, log: Logger, options: LimitWaitOptions = {}): Promise<T> {
  const maxWaitMs = options.maxWaitMs ?? LIMIT_WAIT_MS;
  const random = options.random ?? Math.random;
  const began = Date.now();
  let reported = -Infinity;
  for (let attempt = 1; ; attempt++) {
    try {
      const made = await start();
      if (attempt > 1) log(`${what} went through after waiting ${formatDuration(Date.now() - began)} for the team's concurrent-sandbox limit`);
      return made;
    } catch (err) {
      if (!atSandboxLimit(err)) throw err;
      const waited = Date.now() - began;
      if (waited >= maxWaitMs) throw limitError(what, err, waited);
      if (waited - reported >= REPORT_EVERY_MS) {
        reported = waited;
        const detail = isSandboxError(err) ? err.service?.message ?? err.message : String(err);
        log(`waiting for the team's concurrent-sandbox limit (${detail}); the ${what} made nothing and is tried again${attempt > 1 ? `, waited ${formatDuration(waited)} so far` : ""}`);
      }
      const pause = Math.min(pauseFor(err, attempt, random), Math.max(0, maxWaitMs - waited));
      // Nothing is logged in the pause, so it marks no line as status.
      await operationWait((signal) => sleep(pause, signal), (why, cause) => stoppedError(what, why, err, Date.now() - began, cause));
    }
  }
}

/** The service's Retry-After when it named one, else full jitter over a doubling ceiling. */
function pauseFor(err: unknown, attempt: number, random: () => number): number {
  const asked = isSandboxError(err) ? err.retryAfterMs : undefined;
  if (asked !== undefined) return asked;
  const ceiling = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (attempt - 1));
  return Math.floor(ceiling / 2 + (random() * ceiling) / 2);
}

/** The operation stopped the wait (`why`: its Cancel or its deadline, ./operation.ts). */
function stoppedError(what: string, why: string, refusal: unknown, waited: number, cause: unknown): Error {
  const detail = isSandboxError(refusal) ? refusal.service?.message ?? refusal.message : String(refusal);
  return new Error(
    `Stopped waiting for a free slot at the team's concurrent-sandbox limit after ${formatDuration(waited)}: ${why}. ` +
      `The ${what} made nothing (the service refused it: ${detail}); the next \`pulumi up\` tries it again.`,
    { cause },
  );
}

function limitError(what: string, err: unknown, waited: number): Error {
  const detail = isSandboxError(err) ? err.service?.message ?? err.message : String(err);
  return new Error(
    `The ${what} waited ${formatDuration(waited)} for the team's concurrent-sandbox limit and gave up: ${detail}. ` +
      "Nothing was made. Kill or pause sandboxes the team no longer needs, run fewer at once " +
      "(`pulumi up --parallel`), or raise the limit, then run `pulumi up` again.",
    { cause: err },
  );
}
