/**
 * The platform API's HTTP core, and the only module that imports undici. Each call is described
 * as an {@link Operation} (verb, route, auth scheme, body); this module adds the base URL, the
 * auth header, the per-request deadline, the retry loop (policy in retry.ts) and the mapping of
 * every failure to one SandboxError whose message never holds a credential.
 */
import { Agent, request } from "undici";
import type { z } from "zod";
import { REQUEST_TIMEOUT_ENV, requireAccessToken, requireApiKey, type ResolvedOptions } from "../config";
import { reasonFor } from "../error-reasons";
import { codeForStatus, isSandboxError, redact, RETRYABLE_STATUSES, SandboxError } from "../errors";
import { classifyTransportError, parseRetryAfter, parseShouldRetry, retryDecision, type AttemptOutcome } from "./retry";
import { ErrorBody } from "../schemas/common";
import { parseWire } from "../schemas/parse";
import { loopbackLookup } from "./loopback-lookup";
import { USER_AGENT } from "./user-agent";
import { abortedError, formatDuration, sleep } from "./wait";

/** Per-call options accepted by every sdk method. */
export interface CallOptions {
  /** Aborting ends the call at once (in flight or in a backoff pause) with code `aborted`. */
  signal?: AbortSignal;
  /** Deadline of each HTTP request of this call, in milliseconds. Default: `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Told before each repeat: what the failed attempt came to and the pause chosen (a 429's Retry-After). */
  onRetry?: (outcome: AttemptOutcome, delayMs: number) => void;
}

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * How an operation authenticates: `apiKey` (X-API-Key), `bearer` (access token), or
 * `apiKeyOrBearer` (the API key when configured, else the access token); `none` sends no
 * credential (a presigned upload URL carries its own authorisation).
 */
export type AuthScheme = "apiKey" | "bearer" | "apiKeyOrBearer" | "none";

/** One platform API request, as a table row. */
export interface Operation {
  method: HttpMethod;
  /** Route template, e.g. `/sandboxes/{id}`; it names the operation in messages. */
  route: string;
  /** Values of the route's `{placeholders}`; each must be a non-empty string. */
  params?: Record<string, string>;
  /** Query parameters; undefined values are left out, a list is sent as the name repeated (`types=a&types=b`). */
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  /** JSON request body. */
  body?: unknown;
  /** A raw request body instead of JSON, sent with an explicit Content-Length. */
  bytes?: { data: Uint8Array; contentType: string };
  /**
   * An absolute URL to send to instead of the API base URL + `route` (a presigned upload URL);
   * `route` then only names the operation in messages, so the URL's token never reaches one.
   */
  url?: string;
  /** The 2xx answer is raw bytes (a file download): kept as `RawResponse.bytes`, not decoded as text. */
  binaryAnswer?: boolean;
  /**
   * Reads the 2xx answer's body as it arrives instead of keeping it (a compare of a download): called
   * once per attempt, with that attempt's body. It may stop early; the rest is then not received.
   */
  readAnswer?: (body: AsyncIterable<Uint8Array>) => Promise<void>;
  auth: AuthScheme;
  /** Whether repeating is harmless. Default: true for GET/PUT/DELETE, false for POST/PATCH. */
  idempotent?: boolean;
  /**
   * Sent as the `Idempotency-Key` header: the service answers every repeat with the first attempt's
   * outcome, so the request is repeated after a lost answer or a timeout as a read would be.
   */
  idempotencyKey?: string;
}

/** A 2xx answer before its body is interpreted. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as bytes, for an operation with `binaryAnswer` (then `text` is empty). */
  bytes?: Uint8Array;
}

/** A failed attempt: what retrying needs to know, and what the final message needs to say. */
interface Failure {
  outcome: AttemptOutcome;
  text?: string;
  cause?: unknown;
  timeoutMs?: number;
  /** The deadline was the call's own `timeoutMs`, not the client's `requestTimeoutMs`: the message names that one. */
  callTimeout?: boolean;
}

/** The HTTP core of one PlatformClient: one keep-alive connection pool, closed by `close()`. */
export class HttpClient {
  private readonly agent = new Agent({ keepAliveTimeout: 4_000, connect: { lookup: loopbackLookup } });
  private readonly secrets: string[];

  /** @param options resolved client options (base URL, credentials, timeout, retry policy). */
  constructor(readonly options: ResolvedOptions) {
    this.secrets = [options.apiKey, options.accessToken].filter((s): s is string => !!s);
  }

  /** Sends `op` and parses its 2xx JSON body with `schema`. */
  async call<S extends z.ZodType>(op: Operation, schema: S, call?: CallOptions): Promise<z.output<S>> {
    return this.parse(op, schema, await this.exchange(op, call));
  }

  /** Sends `op` and ignores its 2xx body (204 operations). */
  async callVoid(op: Operation, call?: CallOptions): Promise<void> {
    await this.exchange(op, call);
  }

  /** Parses the body of a raw 2xx answer of `op` with `schema`. */
  parse<S extends z.ZodType>(op: Operation, schema: S, res: RawResponse): z.output<S> {
    const label = labelOf(op);
    let data: unknown;
    try {
      data = res.text === "" ? undefined : JSON.parse(res.text);
    } catch (err) {
      const snippet = this.clip(res.text);
      throw new SandboxError({ code: "invalid_response", message: `${label}: the response body is not JSON: ${snippet}`, cause: err });
    }
    return parseWire(schema, data, label);
  }

  /**
   * Sends `op` with retries and returns the 2xx answer.
   *
   * @throws SandboxError: `missing_credential` before any request; the status's code on a non-2xx
   *   answer; `unavailable` on connection failures; `timeout`; `aborted`.
   */
  async exchange(op: Operation, call: CallOptions = {}): Promise<RawResponse> {
    const headers = this.headersFor(op);
    const url = this.urlFor(op);
    const label = labelOf(op);
    for (let attempt = 1; ; attempt++) {
      const result = await this.attempt(op, url, headers, call);
      if ("status" in result) return result;
      const decision = retryDecision(op.method, op.idempotencyKey !== undefined || op.idempotent, result.outcome, attempt, this.options.retry, Math.random, op.idempotencyKey !== undefined);
      if (!decision.retry) throw this.failure(op, result, attempt, decision.why);
      call.onRetry?.(result.outcome, decision.delayMs);
      try {
        await sleep(decision.delayMs, call.signal);
      } catch (err) {
        throw abortedError(label, call.signal, err);
      }
    }
  }

  /** Closes the connection pool; in-flight requests finish first. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private async attempt(op: Operation, url: string, headers: Record<string, string>, call: CallOptions): Promise<RawResponse | Failure> {
    const timeoutMs = call.timeoutMs ?? this.options.requestTimeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = call.signal ? AbortSignal.any([deadline.signal, call.signal]) : deadline.signal;
    const body = op.bytes ? op.bytes.data : op.body === undefined ? null : JSON.stringify(op.body);
    try {
      const res = await request(url, { method: op.method, headers, body, signal, dispatcher: this.agent });
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      if (ok && op.readAnswer) {
        await op.readAnswer(res.body);
        // A reader that stopped early leaves the rest unread: drop it (and its connection) rather than wait for it.
        res.body.destroy();
        return { status: res.statusCode, headers: res.headers, text: "" };
      }
      if (ok && op.binaryAnswer) return { status: res.statusCode, headers: res.headers, text: "", bytes: new Uint8Array(await res.body.arrayBuffer()) };
      const text = await res.body.text();
      if (ok) return { status: res.statusCode, headers: res.headers, text };
      const retryAfter = parseRetryAfter(headerValue(res.headers["retry-after"]));
      const shouldRetry = parseShouldRetry(headerValue(res.headers["should-retry"]));
      const reason = reasonFor(res.statusCode, ErrorBody.safeParse(safeJson(text)).data?.message);
      const outcome: AttemptOutcome = { kind: "status", status: res.statusCode, retryAfterMs: retryAfter, ...(shouldRetry !== undefined ? { shouldRetry } : {}), ...(reason ? { reason } : {}) };
      return { outcome, text };
    } catch (err) {
      if (call.signal?.aborted) throw abortedError(labelOf(op), call.signal, err);
      if (deadline.signal.aborted) return { outcome: { kind: "timeout" }, timeoutMs, callTimeout: call.timeoutMs !== undefined, cause: err };
      const outcome = classifyTransportError(err);
      if (outcome) return { outcome, cause: err };
      const message = err instanceof Error ? err.message : String(err);
      throw new SandboxError({ code: "unknown", message: `${labelOf(op)} failed: ${redact(message, this.secrets)}`, cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  private failure(op: Operation, f: Failure, attempt: number, why: "permanent" | "unsafe" | "exhausted"): SandboxError {
    const label = labelOf(op);
    const tries = why === "exhausted" ? ` (gave up after ${attempt} attempts)` : attempt > 1 ? ` (after ${attempt} attempts)` : "";
    const o = f.outcome;
    if (o.kind === "status") return this.statusError(label, o.status, f.text ?? "", tries, o.retryAfterMs);
    if (o.kind === "timeout") {
      // The provider's users set the deadline in stack config; the sdk's, with the option or the env var.
      const raise = f.callTimeout
        ? "Raise the call's timeoutMs if the service is slow."
        : "If the service is slow, raise requestTimeoutMs: `pulumi config set sandbox:requestTimeoutMs <ms>` in a Pulumi stack, " +
          `else the ${REQUEST_TIMEOUT_ENV} environment variable or the client's requestTimeoutMs option.`;
      const message = `${label} timed out after ${formatDuration(f.timeoutMs ?? 0)} without a complete response${tries}. ${raise}`;
      return new SandboxError({ code: "timeout", message, retryable: true, cause: f.cause });
    }
    const host = new URL(this.options.apiUrl).host;
    const what = o.kind === "not_sent"
      ? `could not connect to ${host} (${o.errno})`
      : `the connection to ${host} was lost before a response (${o.errno})`;
    const unsafe = why === "unsafe" ? "; not repeated, because the service may have processed it" : "";
    return new SandboxError({ code: "unavailable", message: `${label} failed: ${what}${unsafe}${tries}`, retryable: true, cause: f.cause });
  }

  private statusError(label: string, status: number, text: string, tries: string, retryAfterMs?: number): SandboxError {
    const code = codeForStatus(status);
    const body = safeJson(text);
    const parsed = ErrorBody.safeParse(body);
    const service = parsed.success ? { code: parsed.data.code, message: redact(parsed.data.message, this.secrets) } : undefined;
    const detail = service ? service.message : this.clip(text);
    const message = `${label} failed (${status} ${code})${detail ? `: ${detail}` : ""}${tries}`;
    const reason = reasonFor(status, parsed.success ? parsed.data.message : undefined);
    return new SandboxError({ code, ...(reason ? { reason } : {}), message, status, service, retryable: RETRYABLE_STATUSES.has(status), retryAfterMs });
  }

  private headersFor(op: Operation): Record<string, string> {
    const headers: Record<string, string> = { "user-agent": USER_AGENT, accept: "application/json" };
    if (op.body !== undefined) headers["content-type"] = "application/json";
    if (op.idempotencyKey !== undefined) headers["idempotency-key"] = op.idempotencyKey;
    if (op.bytes) {
      // Object stores refuse a chunked upload (501): the length is always stated.
      headers["content-type"] = op.bytes.contentType;
      headers["content-length"] = String(op.bytes.data.byteLength);
    }
    if (op.auth === "none") return headers;
    const { apiKey, accessToken } = this.options;
    const useKey = op.auth === "apiKey" || (op.auth === "apiKeyOrBearer" && (apiKey !== undefined || accessToken === undefined));
    try {
      if (useKey) headers["x-api-key"] = requireApiKey(this.options);
      else headers.authorization = `Bearer ${requireAccessToken(this.options)}`;
    } catch (err) {
      // Name the operation: the same client serves calls that need different credentials.
      if (isSandboxError(err)) throw new SandboxError({ code: err.code, message: `${labelOf(op)}: ${err.message}` });
      throw err;
    }
    return headers;
  }

  private urlFor(op: Operation): string {
    if (op.url !== undefined) return op.url;
    const path = op.route.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = op.params?.[name];
      if (typeof value !== "string" || value === "") {
        throw new SandboxError({ code: "invalid_argument", message: `${labelOf(op)}: \`${name}\` must be a non-empty string, got ${JSON.stringify(value)}.` });
      }
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(op.query ?? {})) {
      if (Array.isArray(v)) for (const item of v) query.append(k, item);
      else if (v !== undefined) query.set(k, String(v));
    }
    const qs = query.toString();
    return `${this.options.apiUrl}${path}${qs ? `?${qs}` : ""}`;
  }

  /** A body excerpt fit for a message: redacted, one line, at most 300 characters. */
  private clip(text: string): string {
    const flat = redact(text, this.secrets).replace(/\s+/g, " ").trim();
    return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
  }
}

/** `GET /sandboxes/{id}`: how messages name an operation. */
export function labelOf(op: Pick<Operation, "method" | "route">): string {
  return `${op.method} ${op.route}`;
}

/** First value of a response header (names are lower-case), e.g. `header(res, "x-next-token")`. */
export function header(res: Pick<RawResponse, "headers">, name: string): string | undefined {
  return headerValue(res.headers[name]);
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
