/**
 * The operation a handler runs in, as a front end bounds it: a signal that stops its long waits (a
 * template build, a provisioning command) and the reason, for the error the user sees. The native
 * plugin starts one per Create or Update, with the engine's deadline (`customTimeouts`) and Cancel
 * (../plugin/operation.ts); the dynamic provider's host has neither, so there its handlers run in no
 * operation and their waits end only on their own deadlines.
 *
 * The waits also mark what is logged inside them as status (`isStatusLine`): the lines the service
 * streams while the provider waits, which the plugin shows on the resource's row and leaves out of
 * the summary.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface Operation {
  readonly signal: AbortSignal;
  /** Why the signal fired: it goes into the error the stopped wait throws. */
  readonly why: () => string;
}

const current = new AsyncLocalStorage<Operation>();
const waiting = new AsyncLocalStorage<true>();

/** Runs `fn` (a handler and everything it awaits) as `op`. */
export function runAsOperation<T>(op: Operation, fn: () => T): T {
  return current.run(op, fn);
}

/**
 * Whether a progress line is status: logged inside a wait (a build's log, a command's output). What
 * the provider says of its own steps (waiting for a build, a command started and its exit code, an
 * adoption) is not: it is the record of what the run did.
 */
export function isStatusLine(): boolean {
  return waiting.getStore() === true;
}

/**
 * Runs one long wait of the current operation: `wait` gets the operation's signal (none outside an
 * operation), and what it logs is status. When the operation stopped it, the error is `stopped(why)`,
 * which each caller words as its handler already treats a wait that outlived its own deadline.
 */
export async function operationWait<T>(wait: (signal: AbortSignal | undefined) => Promise<T>, stopped: (why: string, cause: unknown) => Error): Promise<T> {
  const op = current.getStore();
  try {
    return await waiting.run(true, () => wait(op?.signal));
  } catch (err) {
    if (!op?.signal.aborted) throw err;
    throw stopped(op.why(), err);
  }
}
