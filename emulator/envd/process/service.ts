/**
 * The `process.Process` Connect service of the emulator's envd: Start (start.ts), Connect, List,
 * Update (PTY resize), SendInput, StreamInput, SendSignal and CloseStdin, with envd's error codes
 * and messages.
 */
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  Signal,
  type CloseStdinRequest,
  type ConnectRequest,
  type Process,
  type ProcessInput,
  type SendSignalRequest,
  type StreamInputRequest,
  type UpdateRequest,
} from "../../../sdk/gen/process/process_pb";
import { scopeOf } from "../scope";
import { waitGone } from "./kill-wait";
import type { ManagedProcess } from "./managed";
import { start } from "./start";
import { endEvent, startEvent, streamUpdates } from "./stream";

/** Connect: the further events of a running process, or the kept end of one that just ended. */
async function* connect(req: ConnectRequest, ctx: HandlerContext) {
  const registry = scopeOf(ctx).registry;
  const proc = registry.find(req.process);
  if (!proc) {
    const retained = registry.findExited(req.process);
    if (!retained) registry.get(req.process); // throws envd's not_found
    else {
      yield startEvent(retained.pid);
      yield endEvent(retained.end);
    }
    return;
  }
  const sub = proc.subscribe();
  try {
    yield startEvent(proc.pid);
    // It may have ended while the start event was written: then only its end is left.
    const end = proc.end;
    if (end) yield endEvent(end);
    else yield* streamUpdates(sub, ctx);
  } finally {
    sub.close();
  }
}

/** Feeds one input message to a process's stdin or terminal. */
async function feed(proc: ManagedProcess, input: ProcessInput | undefined): Promise<void> {
  const i = input?.input;
  try {
    if (i?.case === "stdin") return await proc.writeStdin(i.value);
    if (i?.case === "pty") return proc.writePty(i.value);
  } catch (err) {
    const what = i?.case === "pty" ? "tty" : "stdin";
    throw new ConnectError(`error writing to ${what}: ${(err as Error).message}`, Code.Internal);
  }
  throw new ConnectError("invalid input type: input needs stdin or pty bytes", Code.Unimplemented);
}

/** StreamInput: a start event naming the process, then data events fed in order. */
async function streamInput(requests: AsyncIterable<StreamInputRequest>, ctx: HandlerContext) {
  const registry = scopeOf(ctx).registry;
  let proc: ManagedProcess | undefined;
  for await (const req of requests) {
    const event = req.event;
    if (event.case === "start") proc = registry.get(event.value.process);
    else if (event.case === "data") {
      if (!proc) throw new ConnectError("stream input must begin with a start event", Code.FailedPrecondition);
      await feed(proc, event.value.input);
    } else if (event.case !== "keepalive") {
      throw new ConnectError("invalid event type", Code.Unimplemented);
    }
  }
  return {};
}

/** SendSignal; a SIGKILL answers once the process is gone (./kill-wait.ts). */
async function sendSignal(req: SendSignalRequest, ctx: HandlerContext) {
  const scope = scopeOf(ctx);
  const proc = scope.registry.get(req.process);
  if (req.signal === Signal.SIGKILL) {
    proc.signal("SIGKILL");
    await waitGone(proc, await scope.namespace());
  } else if (req.signal === Signal.SIGTERM) proc.signal("SIGTERM");
  else throw new ConnectError(`invalid signal: ${Signal[req.signal] ?? req.signal}`, Code.Unimplemented);
  return {};
}

function closeStdin(req: CloseStdinRequest, ctx: HandlerContext) {
  const proc = scopeOf(ctx).registry.get(req.process);
  try {
    proc.closeStdin();
  } catch (err) {
    throw new ConnectError(`error closing stdin: ${(err as Error).message}`, Code.Unknown);
  }
  return {};
}

/** Update: resizes a PTY process's terminal; without `pty` it changes nothing. */
function update(req: UpdateRequest, ctx: HandlerContext) {
  const proc = scopeOf(ctx).registry.get(req.process);
  if (!req.pty) return {};
  try {
    proc.resize(req.pty.size?.cols ?? 0, req.pty.size?.rows ?? 0);
  } catch (err) {
    throw new ConnectError(`error resizing tty: ${(err as Error).message}`, Code.Internal);
  }
  return {};
}

/** The service implementation for `router.service(Process, …)`. */
export function processService(): ServiceImpl<typeof Process> {
  return {
    start,
    connect,
    streamInput,
    sendSignal,
    closeStdin,
    update,
    list(_req, ctx) {
      const processes = scopeOf(ctx)
        .registry.list()
        .map((p) => ({ config: p.config, pid: p.pid, ...(p.tag !== undefined ? { tag: p.tag } : {}) }));
      return { processes };
    },
    async sendInput(req, ctx) {
      await feed(scopeOf(ctx).registry.get(req.process), req.input);
      return {};
    },
  };
}
