/**
 * The small HTTP vocabulary of the platform API: a handler returns a `Reply` (or throws an
 * `ApiError`), and only the server writes to the socket. Keeping replies as values is what lets the
 * fault layer handle a request and then drop the connection instead of answering.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";

/** What a route answers: status, optional JSON body, optional extra headers. */
export interface Reply {
  status: number;
  /** Serialized as JSON; a Buffer is sent as is (`application/octet-stream`); `undefined` sends an empty body. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * An answer in the service's error shape `{code, message}`, thrown from anywhere in a handler.
 * `errorCode` is the body's optional machine-readable `error_code` (docs/service.md#platform-error-body),
 * sent only when given, so every other error body stays `{code, message}`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly errorCode?: string,
  ) {
    super(message);
  }
}

/**
 * A request the service's OpenAPI validator refuses before any handler runs: a 400 whose message the
 * platform API prefixes with "validation error: " (infra: packages/api/internal/utils/error.go,
 * ErrorHandler). `detail` is the validator's own text, which the volume content API answers bare.
 */
export class ValidationError extends ApiError {
  constructor(readonly detail: string) {
    super(400, `validation error: ${detail}`);
  }
}

/** The parts of a request a route handler sees. */
export interface RequestContext {
  method: string;
  /** Path without the query string, percent-decoded per segment by the router. */
  path: string;
  query: URLSearchParams;
  /** Path parameters named in the route pattern (`/sandboxes/:id` → `params.id`). */
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  /**
   * Scheme and Host the client used (`https://api.localhost:8443` in the domain mode), for the links
   * an answer gives back to the same server: over https a plain-http link would be refused.
   */
  origin: string;
  /** The parsed JSON body; `undefined` when the body is empty. Throws a 400 on bad JSON. */
  json(): Promise<unknown>;
  /**
   * The raw body (for uploads), at most `limit` bytes (default MAX_BODY_BYTES). A request's body is
   * read once: call `json` or `bytes`, not both.
   */
  bytes(limit?: number): Promise<Buffer>;
}

/** Largest request body accepted, in bytes (Dockerfiles are the big ones). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** A JSON reply with the given status (and extra headers). */
export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers ? { status, body, headers } : { status, body };
}

/** A plain-text reply, as Go's gin answers `c.String`. */
export function text(status: number, body: string): Reply {
  return { status, body: Buffer.from(body), headers: { "content-type": "text/plain; charset=utf-8" } };
}

/** A 204 reply with no body. */
export function noContent(): Reply {
  return { status: 204 };
}

/** The `{code, message}` reply of an ApiError (with `error_code` when it has one), with its headers. */
export function errorReply(err: ApiError): Reply {
  const body = { code: err.status, message: err.message, ...(err.errorCode === undefined ? {} : { error_code: err.errorCode }) };
  return { status: err.status, body, headers: err.headers };
}

/** Reads the whole body; a body over `limit` bytes (default `MAX_BODY_BYTES`) is a 413. */
export async function readBytes(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError(413, `request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Reads the whole body as UTF-8 text (see `readBytes`). */
export async function readText(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString("utf8");
}

/** Parses a body read by `readText`; the message follows the real server's request validator. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ValidationError(`request body has an error: failed to decode request body: ${(err as Error).message}`);
  }
}

/** Writes a reply. JSON bodies get `content-type: application/json`. */
export function sendReply(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const raw = Buffer.isBuffer(reply.body);
  const data = raw ? (reply.body as Buffer) : Buffer.from(JSON.stringify(reply.body));
  // A raw body keeps the content type its route chose (text, XML); JSON bodies always say JSON.
  headers["content-type"] = raw ? (headers["content-type"] ?? "application/octet-stream") : "application/json";
  headers["content-length"] = String(data.length);
  res.writeHead(reply.status, headers);
  res.end(data);
}
