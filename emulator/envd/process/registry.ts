/**
 * The processes of one sandbox: the running ones by pid, and for 30 s after a process ended its end
 * event, so a late Connect still learns how it ended (envd keeps it for the same time). After that
 * Connect answers not_found "process with pid N not found".
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { ProcessSelector } from "../../../sdk/gen/process/process_pb";
import type { EndInfo } from "./exit";
import type { ManagedProcess } from "./managed";

/** How long an ended process's end event is kept for Connect, in ms (envd: 30 s). */
export const EXIT_RETENTION_MS = 30_000;

/** The end of a process that ended recently. */
export interface RetainedExit {
  pid: number;
  tag: string | undefined;
  end: EndInfo;
}

/** Sees each process in the tick it is spawned, before any of its output (what the emulator's page keeps of it). */
export type SpawnObserver = (proc: ManagedProcess) => void;

export class ProcessRegistry {
  /**
   * @param retentionMs how long an ended process's end stays available to Connect.
   * @param onSpawn told of each process Start spawns; it changes nothing of what envd does.
   */
  constructor(
    private readonly retentionMs = EXIT_RETENTION_MS,
    private readonly onSpawn?: SpawnObserver,
  ) {}

  /** Called by Start right after the spawn, before the pid is known and the process is added. */
  spawned(proc: ManagedProcess): void {
    this.onSpawn?.(proc);
  }

  private readonly live = new Map<number, ManagedProcess>();
  private readonly exited = new Map<number, RetainedExit>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  /** Tracks a started process until it ends, then keeps its end for the retention window. */
  add(proc: ManagedProcess): void {
    this.exited.delete(proc.pid);
    if (proc.tag !== undefined) {
      for (const [pid, r] of this.exited) if (r.tag === proc.tag) this.exited.delete(pid);
    }
    this.live.set(proc.pid, proc);
    void proc.waitEnd().then((end) => this.retain(proc, end));
    // A sandbox that stopped while this one was starting: end it like the others.
    if (this.closed) proc.signal("SIGKILL");
  }

  /** Running processes, in start order. */
  list(): ManagedProcess[] {
    return [...this.live.values()];
  }

  /** The running process a selector names, or undefined. */
  find(selector: ProcessSelector | undefined): ManagedProcess | undefined {
    const s = selector?.selector;
    if (s?.case === "pid") return this.live.get(s.value);
    if (s?.case === "tag") return this.list().find((p) => p.tag === s.value);
    return undefined;
  }

  /** The running process a selector names; not_found otherwise (envd's messages). */
  get(selector: ProcessSelector | undefined): ManagedProcess {
    const proc = this.find(selector);
    if (proc) return proc;
    throw notFound(selector);
  }

  /** The retained end of a process that ended within the retention window. */
  findExited(selector: ProcessSelector | undefined): RetainedExit | undefined {
    const s = selector?.selector;
    if (s?.case === "pid") return this.exited.get(s.value);
    if (s?.case === "tag") return [...this.exited.values()].find((r) => r.tag === s.value);
    return undefined;
  }

  /** Kills every process (SIGKILL to each group) and waits until all have ended. */
  async killAll(): Promise<void> {
    this.closed = true;
    const procs = this.list();
    for (const proc of procs) proc.signal("SIGKILL");
    await Promise.all(procs.map((p) => p.waitEnd()));
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private retain(proc: ManagedProcess, end: EndInfo): void {
    if (this.live.get(proc.pid) !== proc) return;
    this.live.delete(proc.pid);
    if (this.closed) return;
    const retained: RetainedExit = { pid: proc.pid, tag: proc.tag, end };
    this.exited.set(proc.pid, retained);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.exited.get(proc.pid) === retained) this.exited.delete(proc.pid);
    }, this.retentionMs);
    timer.unref();
    this.timers.add(timer);
  }
}

function notFound(selector: ProcessSelector | undefined): ConnectError {
  const s = selector?.selector;
  if (s?.case === "pid") return new ConnectError(`process with pid ${s.value} not found`, Code.NotFound);
  if (s?.case === "tag") return new ConnectError(`process with tag ${s.value} not found`, Code.NotFound);
  return new ConnectError("invalid input type: a process selector needs a pid or a tag", Code.Unimplemented);
}
