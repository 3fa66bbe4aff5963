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
import { join } from "node:path";

/** One platform request and the emulator's answer to it. */
export interface Exchange {
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
