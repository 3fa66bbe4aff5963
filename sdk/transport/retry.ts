/**
 * The retry policy of the platform client, as pure functions: which failed attempt may be
 * repeated, and after how long. The HTTP loop (http.ts) only classifies what happened and obeys.
 *
 * A repeat must never create a second resource: a non-idempotent request (POST /sandboxes,
 * /templates, /templates/{id}, /volumes) is repeated only when the server provably did not
 * process it (a 429, or a connection that failed before the request was written), when the server
 * says so (`Should-Retry: true`), or when it carries an idempotency key, which makes the server
 * answer a repeat with the first attempt's outcome.
 *
 * `Should-Retry`, when present, is authoritative either way (the official SDKs since e2b 2.63 on
 * PyPI, `retry.py`); without it, 429, 502, 503 and 504 are the retryable statuses.
 *
 * The 429 of the team's concurrent-sandbox limit is not repeated here: it lasts until other sandboxes
 * end (docs/service.md#limits), which a few quick repeats would not see. The caller decides how long
 * to wait for it, and says so (the provider: provider/runtime/limit-wait.ts).
 */
import type { ErrorReason } from "../errors";
import { DEFAULT_RETRY, type RetryOptions } from "../config";

/** What one attempt came to, as far as retrying is concerned. */
export type AttemptOutcome =
  /** The server answered with a non-2xx status. `retryAfterMs` from a Retry-After header. */
  | { kind: "status"; status: number; retryAfterMs?: number | undefined; shouldRetry?: boolean; reason?: ErrorReason }
  /** The connection failed before the request was written (refused, DNS, connect timeout). */
  | { kind: "not_sent"; errno: string }
  /** The connection broke after the request may have been written (reset, closed early). */
  | { kind: "dropped"; errno: string }
  /** The per-request deadline passed. Repeated only for a read (GET, HEAD), and only once: see `TIMEOUT_ATTEMPTS`. */
  | { kind: "timeout" };

/**
 * Whether to repeat, and if not, why: `permanent` (the answer will not change), `unsafe` (a repeat
 * might do the work twice), `exhausted` (the attempt budget is spent).
 */
export type RetryDecision = { retry: false; why: "permanent" | "unsafe" | "exhausted" } | { retry: true; delayMs: number };

/** Statuses repeated for idempotent requests; 429 is repeated for every method. */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
/** Methods that only read: repeating one that timed out changes nothing, whatever the first attempt did. */
const READ_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/**
 * Attempts in all for a read whose attempt timed out. One repeat gets past a stalled connection or a
 * slow moment of one node; more would make a caller wait several whole deadlines on a service that is
 * down. A write that timed out is never repeated: the service may be doing it still.
 */
export const TIMEOUT_ATTEMPTS = 2;

/** Whether a method is idempotent by HTTP's definition (a POST may still be declared so). */
export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

/**
 * Decides whether to repeat a request after failed attempt number `attempt` (1-based).
 *
 * @param idempotent whether repeating is harmless; `undefined` derives it from `method`.
 * @param random source of jitter in [0, 1); injectable for tests.
 * @param keyed the request carries an idempotency key: a repeat after a timeout is as safe as a read's.
 */
export function retryDecision(
  method: string,
  idempotent: boolean | undefined,
  outcome: AttemptOutcome,
  attempt: number,
  policy: Required<RetryOptions> = DEFAULT_RETRY,
  random: () => number = Math.random,
  keyed = false,
): RetryDecision {
  const verdict = repeatable(outcome, idempotent ?? isIdempotentMethod(method), keyed || READ_METHODS.has(method.toUpperCase()));
  if (verdict !== "yes") return { retry: false, why: verdict };
  const budget = outcome.kind === "timeout" ? Math.min(policy.maxAttempts, TIMEOUT_ATTEMPTS) : policy.maxAttempts;
  if (attempt >= budget) return { retry: false, why: "exhausted" };
  if (outcome.kind === "status" && outcome.retryAfterMs !== undefined) {
    return { retry: true, delayMs: Math.min(outcome.retryAfterMs, policy.maxDelayMs) };
  }
  return { retry: true, delayMs: backoffDelay(attempt, policy, random) };
}

function repeatable(outcome: AttemptOutcome, safe: boolean, read: boolean): "yes" | "permanent" | "unsafe" {
  switch (outcome.kind) {
    case "status":
      // The team's limit is waited for by the caller, however the answer is marked (see the header).
      if (outcome.reason === "sandbox_limit") return "permanent";
      if (outcome.shouldRetry !== undefined) return outcome.shouldRetry ? "yes" : "permanent";
      if (outcome.status === 429) return "yes";
      if (!TRANSIENT_STATUSES.has(outcome.status)) return "permanent";
      return safe ? "yes" : "unsafe";
    case "not_sent":
      return "yes";
    case "dropped":
      return safe ? "yes" : "unsafe";
    case "timeout":
      return read ? "yes" : "unsafe";
  }
}

/**
 * Exponential backoff with full jitter: a uniform draw in [0, min(maxDelayMs, baseDelayMs·2^(attempt−1))),
 * in whole milliseconds.
 */
export function backoffDelay(attempt: number, policy: Required<RetryOptions>, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Reads a Retry-After header: delta seconds (`"3"`) or an HTTP date. Undefined when absent or
 * unreadable; never negative.
 *
 * @param now current time in epoch milliseconds (injectable for tests).
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date names its day and month; without letters, Date.parse would read "-3" as a year.
  const at = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Reads a Should-Retry header: `true` or `false` (any case, spaces around); undefined when absent.
 * Any other value counts as false, as the official SDKs read it: only an explicit yes repeats.
 */
export function parseShouldRetry(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return value.trim().toLowerCase() === "true";
}

/** Connection errors raised before a request is written: the server cannot have processed it. */
const NOT_SENT_ERRNOS: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Connection errors after which the request may or may not have been processed. */
const DROPPED_ERRNOS: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/**
 * Classifies a transport error (an errno-carrying error, possibly an AggregateError from happy
 * eyeballs or wrapped in `cause`). Undefined for errors that are not connection failures.
 */
export function classifyTransportError(err: unknown): AttemptOutcome | undefined {
  const errno = errnoOf(err);
  if (errno === undefined) return undefined;
  if (NOT_SENT_ERRNOS.has(errno)) return { kind: "not_sent", errno };
  if (DROPPED_ERRNOS.has(errno)) return { kind: "dropped", errno };
  return undefined;
}

function errnoOf(err: unknown, depth = 0): string | undefined {
  if (typeof err !== "object" || err === null || depth > 4) return undefined;
  const e = err as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === "string" && (NOT_SENT_ERRNOS.has(e.code) || DROPPED_ERRNOS.has(e.code))) return e.code;
  if (Array.isArray(e.errors) && e.errors.length > 0) return errnoOf(e.errors[0], depth + 1);
  return errnoOf(e.cause, depth + 1);
}
