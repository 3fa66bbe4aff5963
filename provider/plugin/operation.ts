/**
 * The engine's bounds on a Create or Update: the deadline it sends with the request (the resource's
 * `customTimeouts`, in seconds; 0 when none is set) and its Cancel (the first Ctrl-C of `pulumi up`,
 * sent to every plugin). The engine enforces neither itself: a provider that ignores them keeps the
 * engine waiting until its own work ends.
 *
 * The same waits mark the lines logged inside them as status (`isStatusLine`, ./engine-log.ts).
 *
 * What they stop is the long waits of an operation: a template build (`Templates.waitForBuild`) and a
 * provisioning command (`ProcessClient.run` / `wait`). Each wait started inside an operation takes the
 * operation's signal, so a deadline or a Cancel ends it at once (and a wait started after either ends
 * before it begins); the short calls around the waits run on, each under its own request deadline.
 *
 * A stopped wait fails as the runtime's handlers already treat a wait that outlived its own deadline:
 * a stopped build wait is a `timeout` error, which the Template handler turns into a PartialCreateError
 * carrying the template (the engine records it; the next `up` waits for that same build); a stopped
 * command is a failed command, which the Sandbox handler records as not provisioned (the next `up`
 * finds the command by its tag and waits for it, ../runtime/resume.ts). The runtime is the dynamic
 * provider's too, and that host has neither deadlines nor Cancel, so the waits are bounded here, in
 * the plugin's own process, by wrapping the two sdk methods once; the handlers are unchanged.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { SandboxError } from "../../sdk/errors";
import { ProcessClient } from "../../sdk/process";
import { Templates } from "../../sdk/templates";
import { formatDuration } from "../../sdk/wait";

interface Operation {
  controller: AbortController;
  /** Why the operation was stopped, for the error the user sees. */
  why: string;
}

const current = new AsyncLocalStorage<Operation>();
const inFlight = new Set<Operation>();
/** Set inside a wait: what is logged there is the service's stream (build log, command output). */
const waiting = new AsyncLocalStorage<true>();

/**
 * Whether a progress line is status (the engine's `ephemeral`: shown on the resource's row while it
 * runs, left out of the summary): the lines the service streams while the provider waits (a build's
 * log, a command's output). What the provider says of its own steps (waiting for a build, a command
 * started and its exit code, an adoption) is kept: the record of what the run did.
 */
export function isStatusLine(): boolean {
  return waiting.getStore() === true;
}

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
  const op: Operation = { controller: new AbortController(), why: "" };
  const timer = timeoutSeconds > 0
    ? setTimeout(() => stop(op, `the ${verb} of ${describeUrn(urn)} passed its timeout of ${formatDuration(timeoutSeconds * 1000)} (customTimeouts.${verb})`), timeoutSeconds * 1000)
    : undefined;
  inFlight.add(op);
  void Promise.resolve(current.run(op, run)).finally(() => {
    clearTimeout(timer);
    inFlight.delete(op);
  });
}

function stop(op: Operation, why: string): void {
  if (op.controller.signal.aborted) return;
  op.why = why;
  op.controller.abort(new Error(why));
}

/** The engine's Cancel: every operation in flight stops its waits. Later requests are not affected. */
export function cancelAll(): void {
  for (const op of inFlight) stop(op, "the engine cancelled the operation (Ctrl-C, or the deployment was stopped)");
}

/** The current operation's signal merged into a wait's own; the operation when there is one. */
function bounded<O extends { signal?: AbortSignal | undefined }>(opts: O): { op?: Operation; opts: O } {
  const op = current.getStore();
  if (!op) return { opts };
  const signal = opts.signal ? AbortSignal.any([opts.signal, op.controller.signal]) : op.controller.signal;
  return { op, opts: { ...opts, signal } };
}

const waitForBuild = Templates.prototype.waitForBuild;
Templates.prototype.waitForBuild = async function (this: Templates, id, buildID, opts = {}) {
  const { op, opts: withSignal } = bounded(opts);
  try {
    return await waiting.run(true, () => waitForBuild.call(this, id, buildID, withSignal));
  } catch (err) {
    if (!op?.controller.signal.aborted || opts.signal?.aborted) throw err;
    // `timeout`: what the Template handler records as a partial create, as it does at buildTimeoutSeconds.
    throw new SandboxError({
      code: "timeout",
      message: `Stopped waiting for build ${buildID} of template ${id}: ${op.why}. The build goes on, and the template is ` +
        "recorded: the next `pulumi up` waits for this same build.",
      cause: err,
    });
  }
};

for (const method of ["run", "wait"] as const) {
  const original = ProcessClient.prototype[method] as (this: ProcessClient, target: unknown, opts?: { signal?: AbortSignal }) => ReturnType<ProcessClient["run"]>;
  (ProcessClient.prototype as unknown as Record<string, unknown>)[method] = async function (this: ProcessClient, target: unknown, opts: { signal?: AbortSignal } = {}) {
    const { op, opts: withSignal } = bounded(opts);
    try {
      return await waiting.run(true, () => original.call(this, target, withSignal));
    } catch (err) {
      if (!op?.controller.signal.aborted || opts.signal?.aborted) throw err;
      throw new SandboxError({
        code: "aborted",
        message: `stopped waiting for it: ${op.why}. The command goes on in the sandbox; the next \`pulumi up\` waits for it`,
        cause: err,
      });
    }
  };
}
