/**
 * Processes inside a sandbox (envd's `process.Process` service): start and stream, attach, feed
 * input, signal, list, and `run`, a command to completion with bounded output tails.
 *
 * A process outlives a dropped stream: only `Connect-Timeout-Ms` (the `timeoutMs` of start/run) or
 * a signal ends it. Aborting a call stops listening; it does not kill the process.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Process, Signal, type ProcessEvent as WireEvent, type ProcessSelectorSchema } from "../gen/process/process_pb";
import type { ProcessEvent } from "./process-event";
import { collectRun, type RunOptions, type RunResult, type WaitOptions } from "./process-run";
import { toRpc, type RpcCallOptions, type SandboxRpc, type SandboxTarget } from "../transport/rpc";

export type { ProcessEvent } from "./process-event";

/** Default `timeoutMs` of start, connect and run: 60 s. 0 means no limit. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;

/** A process, by pid or by the tag given at start. A bare number is a pid. */
export type ProcessSelector = number | { pid: number } | { tag: string };

/** Terminal size in character cells. */
export interface PtySize {
  cols: number;
  rows: number;
}

/** What `start` launches. */
export interface StartOptions extends RpcCallOptions {
  /** Executable, e.g. `/bin/bash`. */
  cmd: string;
  args?: string[] | undefined;
  /** Extra environment variables of the process. */
  envs?: Record<string, string> | undefined;
  /** Working directory; the user's home when omitted. */
  cwd?: string | undefined;
  /** A name to find the process by later (connect, sendInput...). */
  tag?: string | undefined;
  /** Keep stdin open for sendInput/streamInput. Default false (the server's own default is true). */
  stdin?: boolean | undefined;
  /** Run under a pseudo-terminal of this size; output then arrives as `pty` events. */
  pty?: PtySize | undefined;
  /** Lifetime of the process in ms (`Connect-Timeout-Ms`): the sandbox kills it when it passes. Default 60000; 0 = none. */
  timeoutMs?: number | undefined;
}

/** A process as listed by the sandbox. */
export interface ProcessInfo {
  pid: number;
  tag?: string | undefined;
  cmd: string;
  args: string[];
  envs: Record<string, string>;
  cwd?: string | undefined;
}

/** Signals `sendSignal` can deliver. */
export type ProcessSignal = "SIGTERM" | "SIGKILL";

/** Client of the process service of one sandbox. Methods throw SandboxError (branch on `code`). */
export class ProcessClient {
  readonly rpc: SandboxRpc;
  readonly #api;

  /** @param target the sandbox (ID, access token, options), or a SandboxRpc to share its transport. */
  constructor(target: SandboxTarget | SandboxRpc) {
    this.rpc = toRpc(target);
    this.#api = this.rpc.client(Process);
  }

  /** Starts a process and streams its events; the first is `start` (with the pid), the last `end`. */
  start(opts: StartOptions): AsyncIterable<ProcessEvent> {
    const request = {
      process: { cmd: opts.cmd, args: opts.args ?? [], envs: opts.envs ?? {}, cwd: opts.cwd },
      tag: opts.tag,
      stdin: opts.stdin ?? false,
      pty: opts.pty ? { size: opts.pty } : undefined,
    };
    const call = this.rpc.callOptions({ ...opts, timeoutMs: opts.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS });
    return events(this.rpc.stream(`Start ${opts.cmd}`, this.rpc.serverStream(Process.method.start, request, call)));
  }

  /**
   * Attaches to a running process (or one that ended in the last 30 s); same events as `start`.
   * `timeoutMs` (default 60000, 0 = none) bounds only this attachment, never the process.
   */
  connect(process: ProcessSelector, opts: RpcCallOptions = {}): AsyncIterable<ProcessEvent> {
    const call = this.rpc.callOptions({ ...opts, timeoutMs: opts.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS });
    return events(this.rpc.stream(`Connect ${describe(process)}`, this.rpc.serverStream(Process.method.connect, { process: selector(process) }, call)));
  }

  /** Resizes a PTY process's terminal. */
  async update(process: ProcessSelector, size: PtySize, opts: RpcCallOptions = {}): Promise<void> {
    const req = { process: selector(process), pty: { size } };
    await this.rpc.unary(`Update ${describe(process)}`, () => this.#api.update(req, this.rpc.callOptions(opts)));
  }

  /** Closes stdin (non-PTY processes; for a PTY send byte 0x04). */
  async closeStdin(process: ProcessSelector, opts: RpcCallOptions = {}): Promise<void> {
    const req = { process: selector(process) };
    await this.rpc.unary(`CloseStdin ${describe(process)}`, () => this.#api.closeStdin(req, this.rpc.callOptions(opts)));
  }

  /** Writes to stdin, or to the terminal when `pty` is true. Strings are sent as UTF-8. */
  async sendInput(process: ProcessSelector, data: string | Uint8Array, opts: RpcCallOptions & { pty?: boolean } = {}): Promise<void> {
    const req = { process: selector(process), input: input(data, opts.pty) };
    await this.rpc.unary(`SendInput ${describe(process)}`, () => this.#api.sendInput(req, this.rpc.callOptions(opts)));
  }

  /**
   * Streams input in order over one client-streaming call; resolves when `chunks` is exhausted and the
   * sandbox has taken it all. Unlike the official SDK this needs a streaming request body, which
   * HTTP/1.1 chunked encoding gives.
   */
  async streamInput(
    process: ProcessSelector,
    chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
    opts: RpcCallOptions & { pty?: boolean } = {},
  ): Promise<void> {
    const target = selector(process);
    async function* messages() {
      yield { event: { case: "start" as const, value: { process: target } } };
      for await (const chunk of chunks) yield { event: { case: "data" as const, value: { input: input(chunk, opts.pty) } } };
    }
    const call = this.rpc.callOptions({ ...opts, timeoutMs: opts.timeoutMs ?? 0 });
    await this.rpc.unary(`StreamInput ${describe(process)}`, () => this.#api.streamInput(messages(), call));
  }

  /** Sends SIGTERM or SIGKILL. */
  async sendSignal(process: ProcessSelector, signal: ProcessSignal, opts: RpcCallOptions = {}): Promise<void> {
    const req = { process: selector(process), signal: Signal[signal] };
    await this.rpc.unary(`SendSignal ${signal} ${describe(process)}`, () => this.#api.sendSignal(req, this.rpc.callOptions(opts)));
  }

  /** SIGKILL; false when no such process exists (already ended), true when the signal was sent. */
  async kill(process: ProcessSelector, opts: RpcCallOptions = {}): Promise<boolean> {
    try {
      await this.sendSignal(process, "SIGKILL", opts);
      return true;
    } catch (err) {
      if ((err as { code?: unknown }).code === "not_found") return false;
      throw err;
    }
  }

  /** Processes running in the sandbox. */
  async list(opts: RpcCallOptions = {}): Promise<ProcessInfo[]> {
    const res = await this.rpc.unary("List", () => this.#api.list({}, this.rpc.callOptions(opts)));
    return res.processes.map((p) => ({
      pid: p.pid,
      tag: p.tag,
      cmd: p.config?.cmd ?? "",
      args: p.config?.args ?? [],
      envs: { ...p.config?.envs },
      cwd: p.config?.cwd,
    }));
  }

  /**
   * Runs `command` with `/bin/bash -l -c` (stdin closed) and waits for it. A non-zero exit is returned,
   * not thrown, unless `throwOnNonZero`. Throws `timeout` when `timeoutMs` (default 60000) passes,
   * `process_failed` when the stream ends without a result, `unavailable` when the sandbox is gone.
   */
  run(command: string, opts: RunOptions = {}): Promise<RunResult> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const stream = this.start({ ...opts, cmd: "/bin/bash", args: ["-l", "-c", command], stdin: false, pty: undefined, timeoutMs });
    return collectRun(stream, { ...opts, timeoutMs, owner: true, sandboxID: this.rpc.sandboxID, secrets: this.rpc.secrets });
  }

  /** Attaches to a started process and waits for its end, like `run`; a timeout here does not kill it. */
  wait(process: ProcessSelector, opts: WaitOptions = {}): Promise<RunResult> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const stream = this.connect(process, { ...opts, timeoutMs });
    return collectRun(stream, { ...opts, timeoutMs, owner: false, sandboxID: this.rpc.sandboxID, secrets: this.rpc.secrets });
  }
}

function selector(p: ProcessSelector): MessageInitShape<typeof ProcessSelectorSchema> {
  if (typeof p === "number") return { selector: { case: "pid", value: p } };
  return "pid" in p ? { selector: { case: "pid", value: p.pid } } : { selector: { case: "tag", value: p.tag } };
}

function describe(p: ProcessSelector): string {
  if (typeof p === "number") return `pid ${p}`;
  return "pid" in p ? `pid ${p.pid}` : `tag ${JSON.stringify(p.tag)}`;
}

function input(data: string | Uint8Array, pty: boolean | undefined) {
  const value = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return { input: { case: pty ? ("pty" as const) : ("stdin" as const), value } };
}

/** Wire events → ProcessEvent; unknown kinds (a newer server) are skipped. */
async function* events(wire: AsyncIterable<{ event?: WireEvent | undefined }>): AsyncGenerator<ProcessEvent, void, undefined> {
  for await (const msg of wire) {
    const ev = msg.event?.event;
    if (!ev?.case) continue;
    if (ev.case === "start") yield { type: "start", pid: ev.value.pid };
    else if (ev.case === "keepalive") yield { type: "keepalive" };
    else if (ev.case === "end") {
      const { exitCode, exited, status, error } = ev.value;
      yield { type: "end", exitCode, exited, status, error };
    } else if (ev.value.output.case) yield { type: ev.value.output.case, data: ev.value.output.value };
  }
}
