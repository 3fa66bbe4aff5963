/**
 * Turns a process event stream into a result: output streamed to callbacks as text, bounded tails
 * kept for the result, and the ways a stream can go wrong (no start, no end, timeout, sandbox gone)
 * turned into errors that say which. Memory stays flat however much the command prints.
 */
import { TextDecoder } from "node:util";
import { isSandboxError, redact, SandboxError, type SandboxErrorInit } from "../errors";
import type { ProcessEvent } from "./process-event";
import type { RpcCallOptions } from "../transport/rpc";
import { DEFAULT_TAIL_BYTES, TailBuffer } from "./tail";

/** Options of `ProcessClient.wait`: how to collect output. */
export interface WaitOptions extends Omit<RpcCallOptions, "user"> {
  /** Called with each stdout chunk as it arrives, decoded as a UTF-8 stream. PTY output goes here too. */
  onStdout?: ((text: string) => void) | undefined;
  /** Called with each stderr chunk as it arrives, decoded as a UTF-8 stream. */
  onStderr?: ((text: string) => void) | undefined;
  /** Bytes of stdout and of stderr kept for the result, each. Default 65536. */
  tailBytes?: number | undefined;
  /** Throw a `process_failed` CommandError when the exit code is not 0. Default false. */
  throwOnNonZero?: boolean | undefined;
}

/** Options of `ProcessClient.run`. `timeoutMs` (default 60000, 0 = none) bounds the command's life. */
export interface RunOptions extends WaitOptions {
  /** Extra environment variables. */
  envs?: Record<string, string> | undefined;
  /** Working directory; the user's home when omitted. */
  cwd?: string | undefined;
  /** OS user to run as; the sandbox's default user when omitted. */
  user?: string | undefined;
  /** A name to find the process by while it runs. */
  tag?: string | undefined;
}

/** How a command ended. */
export interface RunResult {
  /** 0 on success; -1 when a signal killed it. */
  exitCode: number;
  /** The last `tailBytes` of stdout as text (cut at a character boundary). */
  stdoutTail: string;
  stderrTail: string;
  /** Bytes of output seen in all, kept or not. */
  stdoutBytes: number;
  stderrBytes: number;
  /** Wall time from the call to the end event, in milliseconds. */
  durationMs: number;
  pid: number;
  /** The sandbox's words for the end, e.g. `exit status 3` or `signal: killed`. */
  status: string;
  /** The sandbox's error text for a failed wait (e.g. `exit status 3`); absent on success. */
  error?: string | undefined;
}

/** A SandboxError of a command: what it printed (tails) and, when known, its pid and exit code. */
export class CommandError extends SandboxError {
  readonly exitCode: number | undefined;
  readonly pid: number | undefined;
  readonly stdoutTail: string;
  readonly stderrTail: string;

  constructor(init: SandboxErrorInit & { exitCode?: number | undefined; pid?: number | undefined; stdoutTail: string; stderrTail: string }) {
    super(init);
    this.exitCode = init.exitCode;
    this.pid = init.pid;
    this.stdoutTail = init.stdoutTail;
    this.stderrTail = init.stderrTail;
  }
}

/** Internal options of collectRun: the wait options plus what messages need. */
export interface CollectOptions extends WaitOptions {
  sandboxID: string;
  /** True when this call started the process, so its deadline killed it (run); false for wait. */
  owner: boolean;
  /** Scrubbed from every message. */
  secrets: (string | undefined)[];
}

/** Consumes `events` to the end and returns the result; see RunResult and the errors of `run`. */
export async function collectRun(events: AsyncIterable<ProcessEvent>, opts: CollectOptions): Promise<RunResult> {
  const startedAt = performance.now();
  const out = new OutputSink(opts.tailBytes, opts.onStdout);
  const err = new OutputSink(opts.tailBytes, opts.onStderr);
  let pid: number | undefined;
  let end: Extract<ProcessEvent, { type: "end" }> | undefined;
  try {
    for await (const ev of events) {
      if (pid === undefined) pid = expectStart(ev);
      else if (ev.type === "stdout" || ev.type === "pty") out.push(ev.data);
      else if (ev.type === "stderr") err.push(ev.data);
      else if (ev.type === "end") end = ev;
    }
  } catch (e) {
    throw streamError(e, { pid, out, err, opts });
  }
  out.flush();
  err.flush();
  if (pid === undefined || end === undefined) {
    throw commandError({ pid, out, err, opts }, "process_failed", noResultMessage(pid, opts.sandboxID));
  }
  const result: RunResult = {
    exitCode: end.exitCode,
    stdoutTail: out.tail.text(),
    stderrTail: err.tail.text(),
    stdoutBytes: out.tail.totalBytes,
    stderrBytes: err.tail.totalBytes,
    durationMs: Math.round(performance.now() - startedAt),
    pid,
    status: end.status,
    error: end.error,
  };
  if (opts.throwOnNonZero) throwIfFailed(result, opts.secrets);
  return result;
}

/**
 * Throws a `process_failed` CommandError (exit code and tails attached, the end of stderr in the
 * message) when `result.exitCode` is not 0. `secrets` are scrubbed from the message.
 */
export function throwIfFailed(result: RunResult, secrets: (string | undefined)[] = []): RunResult {
  if (result.exitCode === 0) return result;
  const said = lastChars(result.stderrTail.trim() || result.stdoutTail.trim(), 1000);
  const how = result.exitCode === -1 ? `was killed by a signal (${result.status})` : `exited with code ${result.exitCode}`;
  throw new CommandError({
    code: "process_failed",
    message: redact(`The command (pid ${result.pid}) ${how}${said ? `; its output ended with:\n${said}` : "."}`, secrets),
    exitCode: result.exitCode,
    pid: result.pid,
    stdoutTail: result.stdoutTail,
    stderrTail: result.stderrTail,
  });
}

/** A stdout or stderr: its tail, and a streaming UTF-8 decoder feeding the callback if there is one. */
class OutputSink {
  readonly tail: TailBuffer;
  readonly #decoder: TextDecoder | undefined;

  constructor(
    tailBytes: number | undefined,
    readonly callback: ((text: string) => void) | undefined,
  ) {
    this.tail = new TailBuffer(tailBytes ?? DEFAULT_TAIL_BYTES);
    this.#decoder = callback ? new TextDecoder() : undefined;
  }

  push(data: Uint8Array): void {
    this.tail.append(data);
    const text = this.#decoder?.decode(data, { stream: true });
    if (text) this.callback?.(text);
  }

  /** Hands over a character still incomplete when the stream ended (as U+FFFD). */
  flush(): void {
    const text = this.#decoder?.decode();
    if (text) this.callback?.(text);
  }
}

interface RunState {
  pid: number | undefined;
  out: OutputSink;
  err: OutputSink;
  opts: CollectOptions;
}

function expectStart(ev: ProcessEvent): number {
  if (ev.type === "start") return ev.pid;
  throw new SandboxError({
    code: "invalid_response",
    message: `The process stream did not open with a start event: expected a start event, got "${ev.type}".`,
  });
}

/** A failure while streaming, restated for a command; errors thrown by callbacks pass unchanged. */
function streamError(e: unknown, state: RunState): unknown {
  if (!isSandboxError(e)) return e;
  const { opts, pid } = state;
  if (e.code === "timeout") {
    const message = opts.owner
      ? `The command did not finish within its timeout of ${opts.timeoutMs} ms (timeoutMs, sent as Connect-Timeout-Ms) ` +
        `and the sandbox killed it. Raise timeoutMs, or pass 0 for no limit.`
      : `Waiting for process ${pid ?? "?"} timed out after ${opts.timeoutMs} ms (timeoutMs); the process may still be running.`;
    return commandError(state, "timeout", message, e);
  }
  if (e.code === "unavailable" && pid === undefined) {
    return commandError(state, "unavailable", `Sandbox ${opts.sandboxID} is probably not running anymore. ${e.message}`, e);
  }
  return commandError(state, e.code, e.message, e);
}

function commandError(state: RunState, code: SandboxError["code"], message: string, cause?: SandboxError): CommandError {
  state.out.flush();
  state.err.flush();
  return new CommandError({
    code,
    message: redact(message, state.opts.secrets),
    status: cause?.status,
    service: cause?.service,
    retryable: cause?.retryable,
    cause,
    pid: state.pid,
    stdoutTail: state.out.tail.text(),
    stderrTail: state.err.tail.text(),
  });
}

function noResultMessage(pid: number | undefined, sandboxID: string): string {
  const who = pid === undefined ? "The process" : `Process ${pid}`;
  return (
    `${who} in sandbox ${sandboxID} ended without a result: the stream closed before an end event, so the ` +
    `exit code is unknown. The connection may have dropped or the sandbox stopped.`
  );
}

function lastChars(text: string, n: number): string {
  return text.length <= n ? text : `…${text.slice(text.length - n)}`;
}
