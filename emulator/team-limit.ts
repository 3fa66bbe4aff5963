/**
 * The team's concurrent-sandbox limit, as the service keeps it (docs/service.md#limits): every start
 * of a sandbox (a create, a fork, the resume of a paused one, whether asked for or an auto-resume)
 * reserves a slot before the sandbox starts, and is refused with a 429 when running sandboxes plus
 * starts in flight would pass the limit. A refused start makes nothing. The sandbox store is the one
 * caller (store/sandboxes.ts), so no route can start a sandbox without a slot.
 */
import { ApiError } from "./http";

/** The message of the service's refusal (infra packages/api/internal/orchestrator/create_instance.go). */
export function sandboxLimitMessage(limit: number): string {
  return `you have reached the maximum number of concurrent E2B sandboxes (${limit}). If you need more, please visit 'https://e2b.dev/docs/billing'`;
}

/** Slots of the one team; no limit when `limit` is undefined (the emulator's default). */
export class SandboxSlots {
  /** Starts reserved and not yet running: they count, so two creates at once cannot both take the last slot. */
  private starting = 0;

  constructor(readonly limit: number | undefined) {
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) throw new Error(`sandboxLimit must be an integer of 1 or more, got ${limit}`);
  }

  /**
   * Runs one start in a reserved slot, given how many sandboxes run now. The slot is taken at once
   * (before `start` is called) and released when `start` ended: by then the sandbox runs, and counts
   * as running, or it never will.
   *
   * @throws ApiError 429 with the service's message when no slot is free; `start` is then not run.
   */
  async withSlot<T>(running: number, start: () => Promise<T>): Promise<T> {
    if (this.limit !== undefined && running + this.starting >= this.limit) throw new ApiError(429, sandboxLimitMessage(this.limit));
    this.starting++;
    try {
      return await start();
    } finally {
      this.starting--;
    }
  }
}
