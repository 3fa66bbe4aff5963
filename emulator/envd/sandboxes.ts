/**
 * What the emulator's envd holds per running sandbox: its process registry, the connections open
 * to it and, with isolation, its namespaces (made on its first command). When a sandbox stops, its
 * connections are cut (as the real proxy drops them when a sandbox dies, so clients see a dropped
 * stream, not a made-up end event), its processes are killed and its namespaces ended.
 */
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { SandboxRuntime } from "../types";
import { WatcherRegistry } from "./filesystem/watcher-registry";
import type { EgressHosts } from "./network/egress-proxy";
import { OPEN_EGRESS } from "./network/egress-rules";
import { SandboxNamespace } from "./isolation/namespace";
import { viewPlan } from "./isolation/view-plan";
import { mountsOf } from "./paths";
import { SandboxPorts } from "./ports/dial";
import type { ManagedProcess } from "./process/managed";
import { ProcessRegistry, type SpawnObserver } from "./process/registry";
import { writeRunFiles } from "./run-files";
import { viewPids } from "./view-pids";

export class SandboxState {
  readonly registry: ProcessRegistry;
  readonly watchers = new WatcherRegistry();
  private readonly open = new Set<ServerResponse>();
  private ns: Promise<SandboxNamespace> | undefined;
  private runFiles: Promise<void> | undefined;
  private runFilesWritten = false;
  private stopped = false;
  /** Its ports, as the proxy reaches them; never the reason its namespaces are made. */
  readonly ports = new SandboxPorts(() => this.ns);

  constructor(
    exitRetentionMs: number | undefined,
    onSpawn?: SpawnObserver,
    /** Names its egress proxy resolves to fixed addresses (the emulator's `egressHosts`). */
    private readonly egressHosts: EgressHosts = {},
  ) {
    this.registry = new ProcessRegistry(exitRetentionMs, onSpawn);
  }

  /** Remembers a response until it closes, so a stop can cut it. */
  track(res: ServerResponse): void {
    this.open.add(res);
    res.once("close", () => this.open.delete(res));
  }

  /**
   * envd's `/run/e2b` files, written at this start's first call (./run-files.ts): the promise to
   * wait for before answering, or undefined once they are written. A state lives for one start (a
   * stop drops it), so a fork, a snapshot's sandbox and a resume after a files-only pause write theirs.
   */
  runFilesPending(runtime: SandboxRuntime): Promise<void> | undefined {
    if (this.runFilesWritten) return undefined;
    // An image sandbox's files are reached through its namespaces (links.ts): they are made before
    // its first answer, once the run files are in its root dir (which no overlay shows yet).
    const ready = runtime.imageDir === undefined ? writeRunFiles(runtime) : writeRunFiles(runtime).then(() => this.namespace(runtime)).then(
      () => undefined,
      // A setup that failed is the first command's to report (process/start.ts); the answer still goes.
      () => undefined,
    );
    this.runFiles ??= ready.finally(() => void (this.runFilesWritten = true));
    return this.runFiles;
  }

  /** Its namespaces if they were started (undefined if not, or if their start failed). */
  started(): Promise<SandboxNamespace | undefined> {
    return this.ns?.catch(() => undefined) ?? Promise.resolve(undefined);
  }

  /**
   * The sandbox's namespaces, made on first use; undefined when sandboxes are not isolated. A
   * failed setup is not kept, so the next command tries again.
   */
  namespace(runtime: SandboxRuntime): Promise<SandboxNamespace> | undefined {
    const isolation = runtime.isolation;
    if (isolation.mode !== "namespaces") return undefined;
    if (this.stopped) return Promise.reject(new Error("the sandbox stopped"));
    this.ns ??= startNamespace(runtime, isolation, this.egressHosts).then((ns) => {
      if (runtime.imageDir !== undefined) viewPids.set(runtime.sandboxID, ns.pid);
      return ns;
    }, (err: unknown) => {
      this.ns = undefined;
      throw err;
    });
    return this.ns;
  }

  /**
   * A pause that keeps the memory: the open connections are cut (the service's proxy drops them
   * when the sandbox stops) and every process is stopped where it is; thaw continues them. The
   * registry, its pids and the namespaces stay, so after the resume List and Connect find them.
   */
  async freeze(): Promise<void> {
    this.cutConnections();
    await this.signalAll("SIGSTOP");
  }

  async thaw(): Promise<void> {
    await this.signalAll("SIGCONT");
  }

  /**
   * With namespaces, every process of the sandbox; without, each command's process group (what a
   * command moved out of its group with `setsid` is not reached: see the README's emulator section).
   */
  private async signalAll(signal: "SIGSTOP" | "SIGCONT"): Promise<void> {
    const ns = await this.ns?.catch(() => undefined);
    if (ns) return ns.signalAll(signal === "SIGSTOP" ? "STOP" : "CONT");
    for (const proc of this.registry.list()) proc.suspend(signal === "SIGSTOP");
  }

  private cutConnections(): void {
    for (const res of this.open) cut(res);
    this.open.clear();
  }

  /** Cuts the open connections, kills the processes and ends the namespaces; waits for all. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cutConnections();
    this.watchers.closeAll();
    await this.registry.killAll();
    await this.ports.stop();
    const ns = await this.ns?.catch(() => undefined);
    await ns?.stop();
  }
}

/**
 * Cuts a response's connection as a dying sandbox's does: a TCP reset, not an orderly close. The
 * Python SDK (e2b-dev/E2B: packages/python-sdk/e2b/envd/rpc.py, is_transport_failure) tells a killed
 * sandbox by a transport error (its HTTP client's ReadError on a reset connection); a close in the
 * middle of a chunked body reads to it as a protocol error, which it reports as a timeout instead.
 * The JS SDK reads both as a dropped connection.
 */
function cut(res: ServerResponse): void {
  // An answer already complete is left alone: Node drops it from the open set only a tick after it
  // finished, and by then a keep-alive client may have sent its next request (the kill itself, say)
  // on the same connection, which a reset would cut. Only streams still being written are cut.
  if (res.writableEnded) return;
  const socket = res.socket;
  if (!socket || socket.destroyed) return void res.destroy();
  // Over https (the domain mode) the socket is TLS, whose handle cannot reset (ERR_INVALID_HANDLE_TYPE,
  // which would end the emulator): the TCP socket under it can, and Node keeps it only as `_parent`.
  const tcp = (socket as Socket & { _parent?: Socket })._parent ?? socket;
  tcp.resetAndDestroy();
  if (tcp !== socket) socket.destroy();
}

function startNamespace(runtime: SandboxRuntime, isolation: SandboxRuntime["isolation"] & { mode: "namespaces" }, egressHosts: EgressHosts) {
  const volumes = mountsOf(runtime).filter((m) => !m.readOnly).reverse();
  const view = { rootDir: runtime.rootDir, imageDir: runtime.imageDir, volumes, egress: runtime.egress ?? OPEN_EGRESS, egressHosts };
  return SandboxNamespace.start(isolation, viewPlan(isolation, view));
}

/** The state of every sandbox that was called since it started. */
export class SandboxStates {
  private readonly states = new Map<string, SandboxState>();

  constructor(
    private readonly exitRetentionMs: number | undefined,
    private readonly onSpawn?: (sandboxID: string, proc: ManagedProcess) => void,
    private readonly egressHosts: EgressHosts = {},
  ) {}

  /** The state of a running sandbox, created on its first call. */
  of(sandboxID: string): SandboxState {
    let state = this.states.get(sandboxID);
    if (state) return state;
    const observer = this.onSpawn;
    state = new SandboxState(this.exitRetentionMs, observer && ((proc) => observer(sandboxID, proc)), this.egressHosts);
    this.states.set(sandboxID, state);
    return state;
  }

  /** Stops one sandbox's calls and processes; a later start gets a fresh state. */
  stop(sandboxID: string): Promise<void> {
    const state = this.states.get(sandboxID);
    this.states.delete(sandboxID);
    viewPids.delete(sandboxID);
    return state ? state.stop() : Promise.resolve();
  }

  /** Loads a sandbox's new egress rules into its firewall, if its namespaces run (else they start with them). */
  async applyEgress(runtime: SandboxRuntime): Promise<void> {
    const ns = await this.states.get(runtime.sandboxID)?.started();
    await ns?.applyEgress(runtime.egress ?? OPEN_EGRESS);
  }

  /** Freezes a sandbox paused with its memory (SandboxState.freeze). */
  freeze(sandboxID: string): Promise<void> {
    return this.states.get(sandboxID)?.freeze() ?? Promise.resolve();
  }

  /** Continues a frozen sandbox's processes at its resume. */
  thaw(sandboxID: string): Promise<void> {
    return this.states.get(sandboxID)?.thaw() ?? Promise.resolve();
  }

  /** Stops every sandbox's calls and processes. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.states.keys()].map((id) => this.stop(id)));
  }
}
