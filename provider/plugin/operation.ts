/**
 * The engine's bounds on a Create or Update: the deadline it sends with the request (the resource's
 * `customTimeouts`, in seconds; 0 when none is set) and its Cancel (the first Ctrl-C of `pulumi up`,
 * sent to every plugin). The engine enforces neither itself: a provider that ignores them keeps the
 * engine waiting until its own work ends.
 *
 * Each request runs as an operation of the runtime (../runtime/operation.ts) whose signal fires at the
 * deadline or on Cancel. What it stops is the operation's long waits (a template build, a provisioning
 * command): a wait under way ends at once, and one started later ends before it begins; the short
 * calls around the waits run on, each under its own request deadline.
 */
import { runAsOperation } from "../runtime/operation";
import { formatDuration } from "../../sdk/transport/wait";

interface Stoppable {
  controller: AbortController;
  why: string;
}

const inFlight = new Set<Stoppable>();

/** `urn:...::sandbox:index:Template::slow` → `Template slow`. */
function describeUrn(urn: string): string {
  const [, , type = "", name = ""] = urn.split("::");
  return `${type.split(":").pop() ?? type} ${name}`.trim();
}

/**
 * Runs one engine request (`run` answers it) as an operation: its waits stop when `timeoutSeconds`
 * (0: none) passes or when the engine cancels.
 */
export function asOperation(verb: "create" | "update", urn: string, timeoutSeconds: number, run: () => unknown): void {
  const op: Stoppable = { controller: new AbortController(), why: "" };
  const timer = timeoutSeconds > 0
    ? setTimeout(() => stop(op, `the ${verb} of ${describeUrn(urn)} passed its timeout of ${formatDuration(timeoutSeconds * 1000)} (customTimeouts.${verb})`), timeoutSeconds * 1000)
    : undefined;
  inFlight.add(op);
  void Promise.resolve(runAsOperation({ signal: op.controller.signal, why: () => op.why }, run)).finally(() => {
    clearTimeout(timer);
    inFlight.delete(op);
  });
}

function stop(op: Stoppable, why: string): void {
  if (op.controller.signal.aborted) return;
  op.why = why;
  op.controller.abort(new Error(why));
}

/** The engine's Cancel: every operation in flight stops its waits. Later requests are not affected. */
export function cancelAll(): void {
  for (const op of inFlight) stop(op, "the engine cancelled the operation (Ctrl-C, or the deployment was stopped)");
}
