/**
 * One error tree for everything the sdk can fail with: HTTP answers of the platform API, Connect
 * errors of the in-sandbox API, bad response shapes, timeouts, aborts and missing credentials.
 *
 * Callers branch on `err.code`, never on `instanceof`: a serialized Pulumi provider can load a
 * second copy of this module, and `instanceof` fails across copies. `isSandboxError` checks shape.
 */

/** Stable, string error codes. Part of the public contract: tests and the provider branch on them. */
export type ErrorCode =
  | "invalid_argument" // 400: the request broke a rule of the service
  | "unauthenticated" // 401: missing or wrong credential
  | "permission_denied" // 403
  | "not_found" // 404
  | "conflict" // 409: the resource is in a state that forbids the call
  | "rate_limited" // 429
  | "internal" // 500
  | "not_implemented" // 501
  | "unavailable" // 502/503, connection refused or reset: the service or sandbox cannot be reached
  | "timeout" // 504, a request or operation deadline passed
  | "aborted" // the caller's AbortSignal fired
  | "invalid_response" // the service answered with a body the sdk does not understand
  | "missing_credential" // no API key / access token configured; nothing was sent
  | "process_failed" // an in-sandbox command ended without a result
  | "build_failed" // a template build ended in status `error`
  | "unknown";

/**
 * Why, more precisely than `code`, where callers act on the difference. Stable, like `code`, and
 * classified once where the error is made (./error-reasons.ts), so nothing above the sdk reads messages.
 */
export type ErrorReason =
  | "deadline" // the caller's own overall deadline of a wait passed (not one request's timeout)
  | "template_in_use" // a template cannot be deleted while sandboxes use it
  | "name_taken" // a unique name (volume name, template alias) is held by another resource
  | "already_paused" // pausing a sandbox that is already paused
  | "build_not_waiting" // starting a v2 build that was already started (or has ended)
  | "sandbox_limit"; // a create (or resume) past the team's concurrent-sandbox limit: nothing was made

export interface SandboxErrorInit {
  code: ErrorCode;
  reason?: ErrorReason;
  message: string;
  /** HTTP status of the answer, when there was one. */
  status?: number;
  /** The service's own `{code, message}` body, when it sent one. */
  service?: { code: number | string; message: string };
  /** Whether repeating the same request may succeed (429, 503, dropped connections...). */
  retryable?: boolean;
  /** The pause a 429's `Retry-After` asked for, in milliseconds, when it named one. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

export class SandboxError extends Error {
  override readonly name = "SandboxError";
  readonly code: ErrorCode;
  readonly reason: ErrorReason | undefined;
  readonly status: number | undefined;
  readonly service: { code: number | string; message: string } | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(init: SandboxErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.reason = init.reason;
    this.status = init.status;
    this.service = init.service;
    this.retryable = init.retryable ?? false;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** Shape check that works across module copies (see the file header). */
export function isSandboxError(err: unknown): err is SandboxError {
  return (
    typeof err === "object" &&
    err !== null &&
    (err as { name?: unknown }).name === "SandboxError" &&
    typeof (err as { code?: unknown }).code === "string"
  );
}

/** HTTP status → error code, for answers of the platform API and the sandbox proxy. */
export const HTTP_STATUS_CODES: Readonly<Record<number, ErrorCode>> = {
  400: "invalid_argument",
  401: "unauthenticated",
  403: "permission_denied",
  404: "not_found",
  409: "conflict",
  410: "not_found",
  422: "invalid_argument",
  429: "rate_limited",
  500: "internal",
  501: "not_implemented",
  502: "unavailable",
  503: "unavailable",
  504: "timeout",
};

/** Statuses after which the same request may succeed. 500 is not among them: it is a server bug. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export function codeForStatus(status: number): ErrorCode {
  return HTTP_STATUS_CODES[status] ?? (status >= 500 ? "internal" : "unknown");
}

/**
 * Connect error code (as written on the wire, snake_case) → error code. Source: the Connect protocol
 * spec and how the official SDK maps envd's errors.
 */
export const CONNECT_CODES: Readonly<Record<string, ErrorCode>> = {
  canceled: "aborted",
  unknown: "unknown",
  invalid_argument: "invalid_argument",
  deadline_exceeded: "timeout",
  not_found: "not_found",
  already_exists: "conflict",
  permission_denied: "permission_denied",
  resource_exhausted: "rate_limited",
  failed_precondition: "invalid_argument",
  aborted: "conflict",
  out_of_range: "invalid_argument",
  unimplemented: "not_implemented",
  internal: "internal",
  unavailable: "unavailable",
  data_loss: "internal",
  unauthenticated: "unauthenticated",
};

/**
 * Removes every given secret from a text. Used on anything that may echo a request (service
 * messages, command output) before it becomes an error message or a log line. Every length counts: a
 * short secret is still a secret. Longer values go first, so a secret that contains another is
 * removed whole.
 *
 * A secret of several lines (a key file, a Dockerfile built around a token) rarely comes back whole:
 * logs and command output arrive a line at a time, and a build log quotes one instruction. So each of
 * its lines is a secret too, trimmed (output re-indents), unless it holds no letter or digit (`}`,
 * `-----`): such a line tells nothing, and hiding it would blank every brace of every log line.
 */
export function redact(text: string, secrets: Iterable<string | undefined>): string {
  const values = [...new Set([...secrets].flatMap(secretForms))].sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of values) out = out.split(secret).join("[redacted]");
  return out;
}

/** A secret as it may show: whole, and for one of several lines, each meaningful line. */
function secretForms(secret: string | undefined): string[] {
  if (typeof secret !== "string" || secret === "") return [];
  if (!/[\r\n]/.test(secret)) return [secret];
  const lines = secret.split(/\r?\n|\r/).map((line) => line.trim()).filter((line) => /[\p{L}\p{N}]/u.test(line));
  return [secret, ...lines];
}
