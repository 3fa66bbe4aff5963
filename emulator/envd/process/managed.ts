/**
 * One process of a sandbox as envd tracks it: its request config and tag, its child (piped or
 * PTY), the fan-out of its events to attached streams, and its end once it ended.
 */
import type { ProcessConfig } from "../../../sdk/gen/process/process_pb";
import { signalGroup, spawnPiped, type ChildControl, type OutputKind, type SpawnSpec } from "./child";
import type { EndInfo } from "./exit";
import { Fanout, type Subscription } from "./fanout";
import { spawnPty } from "./pty";

/** What an attached stream receives after the start event. */
export type ProcessUpdate = { case: "data"; kind: OutputKind; data: Uint8Array } | { case: "end"; end: EndInfo };

export class ManagedProcess {
  /** The pid in the sandbox (./sandbox-pid.ts): the host's until `started` resolves. */
  pid: number;
  /** Resolves once `pid` is the sandbox's. */
  readonly started: Promise<void>;
  private readonly fanout: Fanout<ProcessUpdate>;
  private readonly child: ChildControl;
  private ended: EndInfo | undefined;
  private readonly endWaiters: ((end: EndInfo) => void)[] = [];

  /** Starts the child; throws invalid_argument if it cannot be started. */
  constructor(
    spec: SpawnSpec,
    readonly config: ProcessConfig,
    readonly tag: string | undefined,
  ) {
    let child: ChildControl | undefined;
    this.fanout = new Fanout<ProcessUpdate>({ pause: () => child?.pause(), resume: () => child?.resume() });
    const sink = {
      output: (kind: OutputKind, data: Uint8Array) => {
        if (this.fanout.hasSubscribers) this.fanout.publish({ case: "data", kind, data });
      },
      exit: (end: EndInfo) => this.finish(end),
    };
    child = spec.pty ? spawnPty(spec, sink) : spawnPiped(spec, sink);
    this.child = child;
    this.pid = child.pid;
    this.started = child.sandboxPid.then((pid) => {
      this.pid = pid;
    });
  }

  get isPty(): boolean {
    return this.child.isPty;
  }

  /** The end, once the process ended. */
  get end(): EndInfo | undefined {
    return this.ended;
  }

  /** Attaches a stream to the further events. */
  subscribe(): Subscription<ProcessUpdate> {
    return this.fanout.subscribe();
  }

  /** Resolves with the end when the process ends. */
  waitEnd(): Promise<EndInfo> {
    if (this.ended) return Promise.resolve(this.ended);
    return new Promise((resolve) => this.endWaiters.push(resolve));
  }

  writeStdin(data: Uint8Array): Promise<void> {
    return this.child.writeStdin(data);
  }

  writePty(data: Uint8Array): void {
    this.child.writePty(data);
  }

  closeStdin(): void {
    this.child.closeStdin();
  }

  resize(cols: number, rows: number): void {
    this.child.resize(cols, rows);
  }

  signal(signal: "SIGKILL" | "SIGTERM"): void {
    this.child.signal(signal);
  }

  /** Stops (true) or continues the process's group, for a pause that keeps the sandbox's memory. */
  suspend(stop: boolean): void {
    signalGroup(this.child.pid, stop ? "SIGSTOP" : "SIGCONT");
  }

  private finish(end: EndInfo): void {
    this.ended = end;
    this.fanout.publish({ case: "end", end }, false);
    for (const waiter of this.endWaiters.splice(0)) waiter(end);
  }
}
