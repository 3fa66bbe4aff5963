/**
 * What the platform side tells the in-sandbox side about a sandbox's processes (types.ts,
 * SandboxDirectory): they end (`stopped`: killed, expired, or a pause that keeps only the files),
 * they freeze (`frozen`: a pause that keeps the memory) or they continue (`thawed`: its resume); its
 * egress rules changed (`network`: PUT /sandboxes/{id}/network).
 * Each emit waits for every listener, so a pause answers once the processes are frozen.
 */

export type SandboxEvent = "stopped" | "frozen" | "thawed" | "network";
export type SandboxListener = (sandboxID: string) => void | Promise<void>;

export class SandboxEvents {
  private readonly listeners: Record<SandboxEvent, SandboxListener[]> = { stopped: [], frozen: [], thawed: [], network: [] };

  on(event: SandboxEvent, listener: SandboxListener): void {
    this.listeners[event].push(listener);
  }

  /** Calls every listener of `event`; resolves when all settled. A listener's failure stops nothing. */
  async emit(event: SandboxEvent, sandboxID: string): Promise<void> {
    await Promise.all(
      this.listeners[event].map(async (listener) => {
        try {
          await listener(sandboxID);
        } catch {
          // The store's lifecycle (or a timer callback) must not fail because one listener did.
        }
      }),
    );
  }
}
