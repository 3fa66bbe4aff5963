/**
 * Polling with a deadline, backoff and an abort signal, plus the abortable sleep the HTTP retry
 * loop shares. No network here: the caller's `poll` does the I/O.
 */
import { SandboxError } from "../errors";

/** Options of {@link waitFor}. */
export interface WaitOptions<T> {
  /** Overall deadline, in milliseconds, counted from the call. */
  timeoutMs: number;
  /** Pause after the first poll, in milliseconds. Default 500. */
  intervalMs?: number;
  /** Cap of the pause, in milliseconds; it grows 1.5× per poll up to this. Default 5000. */
  maxIntervalMs?: number;
  /** The pause after a polled value, in milliseconds, when the caller paces itself (replaces the growth above). */
  pauseMs?: (value: T) => number;
  /** The caller's signal: aborting it ends the wait at once with code `aborted`. */
  signal?: AbortSignal;
  /** What is awaited, for messages: e.g. `sandbox ixyz to be paused`. */
  what: string;
  /** One-line summary of a polled value for the timeout message. Default: compact JSON. */
  describe?: (value: T) => string;
}

export const DEFAULT_WAIT_INTERVAL_MS = 500;
export const DEFAULT_WAIT_MAX_INTERVAL_MS = 5_000;

/**
 * Polls until `isDone` accepts a value and resolves with that value. `poll` receives a signal that
 * fires at the deadline or on the caller's abort; a poll that ignores it is abandoned anyway.
 * Errors thrown by `poll` end the wait unchanged (the HTTP layer has already retried them).
 *
 * @throws SandboxError `timeout` naming `what`, the time waited and the last value seen;
 *   `aborted` when the caller's signal fires.
 */
export async function waitFor<T>(
  poll: (signal: AbortSignal) => Promise<T>,
  isDone: (value: T) => boolean,
  opts: WaitOptions<T>,
): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline.signal, opts.signal]) : deadline.signal;
  let interval = opts.intervalMs ?? DEFAULT_WAIT_INTERVAL_MS;
  const maxInterval = Math.max(interval, opts.maxIntervalMs ?? DEFAULT_WAIT_MAX_INTERVAL_MS);
  let last: { value: T } | undefined;
  try {
    for (;;) {
      signal.throwIfAborted();
      const value = await abortable(poll(signal), signal);
      last = { value };
      if (isDone(value)) return value;
      await sleep(opts.pauseMs ? opts.pauseMs(value) : interval, signal);
      interval = Math.min(maxInterval, Math.round(interval * 1.5));
    }
  } catch (err) {
    if (opts.signal?.aborted) throw abortedError(`Stopped waiting for ${opts.what}`, opts.signal, err);
    if (deadline.signal.aborted) throw waitTimeout(opts, last, err);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function waitTimeout<T>(opts: WaitOptions<T>, last: { value: T } | undefined, cause: unknown): SandboxError {
  const describe = opts.describe ?? ((v: T) => JSON.stringify(v));
  const seen = last === undefined ? "no answer was received yet" : `last seen: ${describe(last.value)}`;
  return new SandboxError({
    code: "timeout",
    reason: "deadline",
    message: `Timed out after ${formatDuration(opts.timeoutMs)} waiting for ${opts.what}; ${seen}.`,
    retryable: true,
    cause,
  });
}

/** `1500` → `1.5 s`, `250` → `250 ms`: durations in messages. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * An `aborted` error for `what` (a sentence start such as `GET /x`), quoting the signal's reason
 * when it is an Error or a string.
 */
export function abortedError(what: string, signal: AbortSignal | undefined, cause?: unknown): SandboxError {
  const reason = signal?.reason;
  const why = reason instanceof Error && reason.name !== "AbortError" ? reason.message : typeof reason === "string" ? reason : "";
  return new SandboxError({
    code: "aborted",
    message: `${what}: aborted by the caller${why ? ` (${why})` : ""}.`,
    cause: cause ?? reason,
  });
}

/**
 * Resolves after `ms` milliseconds; rejects with the signal's reason as soon as the signal fires
 * (already fired included), so backoff never outlives an abort.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Settles like `promise`, or rejects with the signal's reason when the signal fires first. The
 * promise keeps running; its eventual rejection is swallowed so it cannot go unhandled.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
