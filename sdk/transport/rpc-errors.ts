/**
 * ConnectError → SandboxError, at the edge of the in-sandbox client. Besides the Connect code table
 * (CONNECT_CODES) this knows the answers that are not Connect errors at all: envd's plain-JSON 401
 * for a missing or wrong access token, and the sandbox proxy's 502 for a sandbox that is not running.
 * connect-es turns those into `HTTP <status>` (streams: the body is never read) or into the body's
 * `message` with a code derived from the status (unary calls). All of this holds under both codecs:
 * Connect writes unary error bodies and end-of-stream messages as JSON even in binary, and the two
 * non-Connect answers are plain JSON whatever the request's codec (test/sdk/process-wire.test.ts).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import { CONNECT_CODES, HTTP_STATUS_CODES, isSandboxError, redact, RETRYABLE_STATUSES, SandboxError, type ErrorCode } from "../errors";

/** What the mapper needs to write a useful message. */
export interface RpcErrorContext {
  sandboxID: string;
  /** Base URL of the in-sandbox API, named when it cannot be reached. */
  baseUrl: string;
  /** The call, as the user would name it (`ListDir /home/user`, `Start`). */
  what: string;
  /** Values that must never appear in a message (the access token). */
  secrets: (string | undefined)[];
}

const NOT_FOUND_BODY = /sandbox was not found/i;
const UNAUTHORIZED_BODY = /unauthorized access/i;
const HTTP_ONLY = /^HTTP (\d{3})$/;
const NETWORK = /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ETIMEDOUT|socket hang up/i;

/**
 * Maps any error thrown by a Connect call to a SandboxError (SandboxErrors pass through). Messages
 * name the sandbox and the call, say what to do next, and are scrubbed of `ctx.secrets`.
 */
export function toSandboxError(err: unknown, ctx: RpcErrorContext): SandboxError {
  if (isSandboxError(err)) return err;
  const ce = ConnectError.from(err);
  const raw = ce.rawMessage;
  const status = Number(HTTP_ONLY.exec(raw)?.[1] ?? NaN);
  const base = { cause: err, service: { code: codeToString(ce.code), message: redact(raw, ctx.secrets) } };
  const special = specialCase(ce.code, raw, status, ctx);
  if (special) return new SandboxError({ ...base, ...special, message: redact(special.message, ctx.secrets) });
  const httpStatus = Number.isFinite(status) ? status : undefined;
  const code: ErrorCode = (httpStatus && HTTP_STATUS_CODES[httpStatus]) || (CONNECT_CODES[codeToString(ce.code)] ?? "unknown");
  return new SandboxError({
    ...base,
    code,
    status: httpStatus,
    retryable: code === "rate_limited" || (httpStatus !== undefined && RETRYABLE_STATUSES.has(httpStatus)),
    message: redact(`${ctx.what} on sandbox ${ctx.sandboxID} failed (${code}): ${raw}`, ctx.secrets),
  });
}

interface Special {
  code: ErrorCode;
  message: string;
  status?: number;
  retryable?: boolean;
}

function specialCase(code: Code, raw: string, status: number, ctx: RpcErrorContext): Special | undefined {
  const sbx = `sandbox ${ctx.sandboxID}`;
  if (code === Code.Unauthenticated && (status === 401 || UNAUTHORIZED_BODY.test(raw))) {
    return {
      code: "unauthenticated",
      status: 401,
      message:
        `${ctx.what} was refused by ${sbx}: the access token is missing or wrong. The sandbox was created with ` +
        `secure: true; pass its envdAccessToken (sent as X-Access-Token).`,
    };
  }
  if (status === 502 || (code === Code.Unavailable && NOT_FOUND_BODY.test(raw))) {
    return {
      code: "unavailable",
      status: 502,
      message:
        `${ctx.what} failed: ${sbx} is not running or was not found (the sandbox proxy answered 502). ` +
        `It may have expired or been killed; create a new sandbox or resume it.`,
    };
  }
  if (code === Code.Unavailable && NETWORK.test(raw)) {
    return {
      code: "unavailable",
      retryable: true,
      message: `${ctx.what} could not reach the in-sandbox API of ${sbx} at ${ctx.baseUrl}: ${raw}`,
    };
  }
  if (code === Code.Canceled) {
    return { code: "aborted", message: `${ctx.what} on ${sbx} was aborted by the caller: ${raw}` };
  }
  return undefined;
}
