/**
 * Exchanges: each platform request with the answer the emulator gave, handed to an opt-in observer.
 * It exists so a test suite can check every answer against the real service's published spec
 * (test/contract/) without the emulator knowing that spec. Off by default: with no observer the
 * server builds no exchange at all.
 *
 * `SANDBOX_EMULATOR_EXCHANGES=<dir>` turns on a file observer in any emulator of the process (and of
 * child processes, which inherit the env, such as `sandbox-emulator` started by a test): one NDJSON
 * line per exchange in `<dir>/<pid>.ndjson`. `SANDBOX_EMULATOR_EXCHANGE_ORIGIN`, read at each
 * exchange, is copied into the line so a report can name the test file that caused it.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";

/** One platform request and the emulator's answer to it. */
export interface Exchange {
  /** Which API answered: the in-sandbox HTTP API (`envd`), or the platform API when absent. */
  area?: "envd";
  method: string;
  /** Path without the query string, as sent. */
  path: string;
  status: number;
  /** Whether the handler read the request body (a request refused before that has it unknown). */
  requestRead?: boolean;
  /** The parsed JSON request body; absent when unread or empty. */
  requestBody?: unknown;
  /** The JSON answer; absent for an empty body. */
  responseBody?: unknown;
  /** The request's User-Agent, to tell our sdk's requests from hand-made ones. */
  userAgent?: string;
}

/** Receives each exchange after the answer is sent; must not throw. */
export type ExchangeObserver = (exchange: Exchange) => void;

/** Env var naming the directory of exchange files; unset means no file observer. */
export const EXCHANGES_ENV = "SANDBOX_EMULATOR_EXCHANGES";
/** Env var copied into each exchange line as `origin` (e.g. the test file that runs). */
export const EXCHANGE_ORIGIN_ENV = "SANDBOX_EMULATOR_EXCHANGE_ORIGIN";

/** The observers an emulator should call: the given one and the env's file observer, if any. */
export function exchangeObserver(given: ExchangeObserver | undefined, env = process.env): ExchangeObserver | undefined {
  const dir = env[EXCHANGES_ENV];
  const file = dir ? fileObserver(dir, env) : undefined;
  if (!file) return given;
  if (!given) return file;
  return (exchange) => {
    given(exchange);
    file(exchange);
  };
}

function fileObserver(dir: string, env: NodeJS.ProcessEnv): ExchangeObserver {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${process.pid}.ndjson`);
  // Synchronous on purpose: a test process may exit right after its last request, and an
  // exchange lost then would be an answer nobody checked.
  return (exchange) => {
    const origin = env[EXCHANGE_ORIGIN_ENV];
    appendFileSync(path, `${JSON.stringify(origin ? { ...exchange, origin } : exchange)}\n`);
  };
}

/** Most bytes of an observed answer kept for checking; larger ones are files, not JSON to check. */
const MAX_OBSERVED_BYTES = 1024 * 1024;

/**
 * Observes an answer written straight to `res` (the in-sandbox HTTP API writes its own): the status,
 * and the body when it is JSON. The exchange goes to `observer` once the answer is sent.
 */
export function observeResponse(req: IncomingMessage, res: ServerResponse, area: Exchange["area"], observer: ExchangeObserver): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const keep = (chunk: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === "function" || size > MAX_OBSERVED_BYTES) return;
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buf.length;
    chunks.push(buf);
  };
  const { writeHead, write, end } = res;
  // writeHead(status, headers) given a plain object keeps them out of getHeader(): read them here.
  let contentType = "";
  type Any = (...args: unknown[]) => unknown;
  res.writeHead = ((...args: unknown[]) => {
    const headers = args.slice(1).find((r) => typeof r === "object" && r !== null) as Record<string, unknown> | undefined;
    const found = headers && Object.entries(headers).find(([k]) => k.toLowerCase() === "content-type");
    if (found) contentType = String(found[1]);
    return (writeHead as Any).apply(res, args);
  }) as typeof res.writeHead;
  res.write = ((...args: unknown[]) => (keep(args[0]), (write as Any).apply(res, args))) as typeof res.write;
  res.end = ((...args: unknown[]) => (keep(args[0]), (end as Any).apply(res, args))) as typeof res.end;
  res.on("finish", () => {
    const type = contentType || String(res.getHeader("content-type") ?? "");
    const text = Buffer.concat(chunks).toString("utf8");
    let responseBody: unknown;
    if (type.includes("json") && size <= MAX_OBSERVED_BYTES && text.trim() !== "") {
      try {
        responseBody = JSON.parse(text);
      } catch {
        responseBody = text;
      }
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const userAgent = req.headers["user-agent"];
    observer({
      area, method: req.method ?? "GET", path, status: res.statusCode,
      ...(responseBody === undefined ? {} : { responseBody }),
      ...(userAgent ? { userAgent } : {}),
    });
  });
}
