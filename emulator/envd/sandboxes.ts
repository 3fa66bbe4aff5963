/**
 * What the emulator's envd holds per running sandbox: its process registry and the connections
 * open to it. When a sandbox stops, its connections are cut (as the real proxy drops them when a
 * sandbox dies, so clients see a dropped stream, not a made-up end event) and its processes are
 * killed.
 */
import type { ServerResponse } from "node:http";
import { ProcessRegistry } from "./process/registry";

class SandboxState {
  readonly registry: ProcessRegistry;
  private readonly open = new Set<ServerResponse>();

  constructor(exitRetentionMs: number | undefined) {
    this.registry = new ProcessRegistry(exitRetentionMs);
  }

  /** Remembers a response until it closes, so a stop can cut it. */
  track(res: ServerResponse): void {
    this.open.add(res);
    res.once("close", () => this.open.delete(res));
  }

  /** Cuts the open connections, then kills the processes and waits until they ended. */
  stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.open.clear();
    return this.registry.killAll();
  }
}

/** The state of every sandbox that was called since it started. */
export class SandboxStates {
  private readonly states = new Map<string, SandboxState>();

  constructor(private readonly exitRetentionMs: number | undefined) {}

  /** The state of a running sandbox, created on its first call. */
  of(sandboxID: string): SandboxState {
    let state = this.states.get(sandboxID);
    if (!state) this.states.set(sandboxID, (state = new SandboxState(this.exitRetentionMs)));
    return state;
  }

  /** Stops one sandbox's calls and processes; a later start gets a fresh state. */
  stop(sandboxID: string): Promise<void> {
    const state = this.states.get(sandboxID);
    this.states.delete(sandboxID);
    return state ? state.stop() : Promise.resolve();
  }

  /** Stops every sandbox's calls and processes. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.states.keys()].map((id) => this.stop(id)));
  }
}
