/**
 * Time the service takes for its slow operations, added by the handlers themselves (not by the fault
 * layer, which delays every request alike): so a bench can run the service's shape, a create taking
 * its hundreds of milliseconds while a get stays quick. All default to 0.
 */
import { setTimeout as sleep } from "node:timers/promises";

/** Milliseconds added to each operation. */
export interface OperationLatency {
  /** POST /sandboxes and /v2/sandboxes, and each fork: the sandbox's start, inside its reserved slot. */
  createMs?: number;
  /** POST /sandboxes/{id}/connect and its v2 form (a resume, or the running sandbox's answer). */
  connectMs?: number;
  /** DELETE /sandboxes/{id}. */
  killMs?: number;
  /** Each step of a template build (its base, each instruction, finalize), on top of the build's delay. */
  buildStepMs?: number;
}

const KEYS = ["createMs", "connectMs", "killMs", "buildStepMs"] as const;

/** Checks the settings; throws a readable Error naming the bad one. */
export function validateLatency(input: OperationLatency): OperationLatency {
  for (const key of KEYS) {
    const value = input[key];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) throw new Error(`latency.${key} must be 0 or more milliseconds, got ${value}`);
  }
  return { ...input };
}

/** Waits for the operation's added time, if any. */
export async function operationDelay(latency: OperationLatency, op: Exclude<keyof OperationLatency, "buildStepMs">): Promise<void> {
  const ms = latency[op] ?? 0;
  if (ms > 0) await sleep(ms);
}
