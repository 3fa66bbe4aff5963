/**
 * The peer's process service: real child processes, a table to find them by pid or tag, and a
 * fan-out of their events to every Start/Connect stream attached. As envd: the call's deadline
 * (Connect-Timeout-Ms) kills the process, a plain disconnect does not; an exit by signal is -1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { ProcessEventSchema, ProcessSelector, StartRequest } from "../../../sdk/gen/process/process_pb";
import { Channel } from "./channel";

/** One Start/Connect reply, as a plain init object (valid for both response types). */
export type Reply = { event: MessageInitShape<typeof ProcessEventSchema> };

/** Replaces Start's reply (broken streams); undefined means behave normally. */
export type StartOverride = (req: StartRequest) => AsyncIterable<Reply> | undefined;

interface PeerProc {
  child: ChildProcess;
  req: StartRequest;
  listeners: Set<Channel<Reply>>;
  end?: Reply;
}

type Selected = { process?: ProcessSelector };

export class ProcessTable {
  readonly byPid = new Map<number, PeerProc>();

  find(sel: ProcessSelector | undefined): PeerProc {
    const s = sel?.selector;
    const all = [...this.byPid.values()];
    const hit = s?.case === "pid" ? this.byPid.get(s.value) : all.find((p) => s?.case === "tag" && p.req.tag === s.value);
    if (hit && !hit.end) return hit;
    throw new ConnectError(`process with ${s?.case ?? "selector"} ${s?.value ?? "?"} not found`, Code.NotFound);
  }

  /** A stream of `proc`'s events for one call: start, then live output, then end. */
  subscribe(proc: PeerProc, ctx: HandlerContext): Channel<Reply> {
    const ch = new Channel<Reply>(() => resume(proc));
    ch.push({ event: { event: { case: "start", value: { pid: proc.child.pid ?? 0 } } } });
    if (proc.end) {
      ch.push(proc.end);
      ch.close();
      return ch;
    }
    proc.listeners.add(ch);
    ctx.signal.addEventListener("abort", () => {
      proc.listeners.delete(ch);
      resume(proc);
      ch.fail(ConnectError.from(ctx.signal.reason));
    });
    return ch;
  }

  killAll(): void {
    for (const p of this.byPid.values()) if (!p.end) p.child.kill("SIGKILL");
  }
}

/** The Process service implementation over `procs`. */
export function processService(procs: ProcessTable, override?: StartOverride) {
  return {
    async *start(req: StartRequest, ctx: HandlerContext) {
      const replaced = override?.(req);
      if (replaced) return yield* replaced;
      const proc = launch(procs, req);
      ctx.signal.addEventListener("abort", () => {
        if ((ctx.timeoutMs() ?? 1) <= 0) proc.child.kill("SIGKILL");
      });
      yield* procs.subscribe(proc, ctx);
    },
    async *connect(req: Selected, ctx: HandlerContext) {
      yield* procs.subscribe(procs.find(req.process), ctx);
    },
    async list() {
      const live = [...procs.byPid.values()].filter((p) => !p.end);
      return { processes: live.map((p) => ({ pid: p.child.pid ?? 0, tag: p.req.tag, config: p.req.process })) };
    },
    async update(req: Selected) {
      procs.find(req.process);
      return {};
    },
    async sendInput(req: Selected & { input?: { input: { value?: Uint8Array } } }) {
      procs.find(req.process).child.stdin?.write(req.input?.input.value ?? new Uint8Array());
      return {};
    },
    async closeStdin(req: Selected) {
      procs.find(req.process).child.stdin?.end();
      return {};
    },
    async streamInput(reqs: AsyncIterable<{ event: { case?: string; value?: unknown } }>) {
      let proc: PeerProc | undefined;
      for await (const { event } of reqs) {
        if (event.case === "start") proc = procs.find((event.value as Selected).process);
        const data = (event.value as { input?: { input: { value?: Uint8Array } } } | undefined)?.input?.input.value;
        if (event.case === "data" && data) proc?.child.stdin?.write(data);
      }
      return {};
    },
    async sendSignal(req: Selected & { signal: number }) {
      procs.find(req.process).child.kill(req.signal === 9 ? "SIGKILL" : "SIGTERM");
      return {};
    },
  };
}

function launch(procs: ProcessTable, req: StartRequest): PeerProc {
  const cfg = req.process;
  const child = spawn(cfg?.cmd ?? "", cfg?.args ?? [], {
    cwd: cfg?.cwd,
    env: { ...process.env, ...cfg?.envs },
    stdio: [req.stdin === false ? "ignore" : "pipe", "pipe", "pipe"],
  });
  const proc: PeerProc = { child, req, listeners: new Set() };
  procs.byPid.set(child.pid ?? -1, proc);
  const send = (r: Reply) => {
    for (const ch of proc.listeners) {
      ch.push(r);
      if (ch.size > 32) pause(proc);
    }
  };
  child.stdout?.on("data", (b: Buffer) => send({ event: { event: { case: "data", value: { output: { case: "stdout", value: b } } } } }));
  child.stderr?.on("data", (b: Buffer) => send({ event: { event: { case: "data", value: { output: { case: "stderr", value: b } } } } }));
  child.on("close", (code, signal) => {
    const exitCode = signal ? -1 : (code ?? 0);
    const status = signal ? `signal: ${signal === "SIGKILL" ? "killed" : "terminated"}` : `exit status ${exitCode}`;
    proc.end = { event: { event: { case: "end", value: { exitCode, exited: !signal, status, error: exitCode ? status : undefined } } } };
    send(proc.end);
    proc.listeners.forEach((ch) => ch.close());
  });
  return proc;
}

function pause(proc: PeerProc): void {
  proc.child.stdout?.pause();
  proc.child.stderr?.pause();
}

function resume(proc: PeerProc): void {
  proc.child.stdout?.resume();
  proc.child.stderr?.resume();
}
