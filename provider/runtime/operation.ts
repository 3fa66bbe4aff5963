/**
 * The operation a handler runs in, as a front end bounds it: a signal that stops its long waits (a
 * template build, a provisioning command, a wait for a free slot at the team's limit) and the reason,
 * for the error the user sees. Each Create or Update the engine sends runs as one, with the engine's
 * deadline (`customTimeouts`) and its Cancel: the native plugin starts it from its gRPC server
 * (../plugin/serve.ts, ../plugin/provider.ts), the dynamic provider's host from the same requests as
 * its server receives them (`engineBoundsInDynamicHost`). Elsewhere (a test calling the runtime, a
 * program under mocks) handlers run in no operation, and their waits end only on their own deadlines.
 *
 * The waits also mark what is logged inside them as status (`isStatusLine`): the lines the service
 * streams while the provider waits, which the plugin shows on the resource's row and leaves out of
 * the summary.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { formatDuration } from "../../sdk/transport/wait";
import { answeringDiff } from "./detailed-diff";
import { likePulumi } from "./like-pulumi";

export interface Operation {
  readonly signal: AbortSignal;
  /** Why the signal fired: it goes into the error the stopped wait throws. */
  readonly why: () => string;
  /**
   * The resource's URN as the engine sends it now. Its key holds the URN of its first create, which a
   * stack or project rename, an alias or a `pulumi state move` leaves behind: lines go to this one.
   */
  readonly urn?: string | undefined;
  /**
   * The part of the resource the code under way is about (a fleet's member: `members/ada`): its lines
   * go to the resource's row, named `<resource>/<part>` (./log.ts).
   */
  readonly part?: string | undefined;
}

const current = new AsyncLocalStorage<Operation>();
/** The signal of code that runs in no operation: it never fires. */
const NEVER = new AbortController().signal;
const waiting = new AsyncLocalStorage<true>();

/** Runs `fn` (a handler and everything it awaits) as `op`. */
export function runAsOperation<T>(op: Operation, fn: () => T): T {
  return current.run(op, fn);
}

/** The URN of the resource the current operation is about, as the engine names it now; undefined outside one. */
export function currentUrn(): string | undefined {
  return current.getStore()?.urn;
}

/** The signal of the current operation (none outside one): what stops its long waits, and a fleet's next member. */
export function currentSignal(): AbortSignal | undefined {
  return current.getStore()?.signal;
}

/** The part of the resource the code under way is about (`runAsPart`), if any. */
export function currentPart(): string | undefined {
  return current.getStore()?.part;
}

/**
 * Runs `fn` as `part` of the current operation's resource (its bounds stay the operation's). Outside
 * an operation (a read, a delete) `urn` is the resource's, so lines about the part still reach its row.
 */
export function runAsPart<T>(part: string, urn: string | undefined, fn: () => T): T {
  const op = current.getStore();
  return current.run({ signal: op?.signal ?? NEVER, why: op?.why ?? (() => ""), urn: op?.urn ?? urn, part }, fn);
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

// ---------------------------------------------------------------------------------------------------
// The engine's bounds on a Create or Update: the deadline it sends with the request (the resource's
// `customTimeouts`, in seconds; 0 when none is set) and its Cancel (the first Ctrl-C of `pulumi up`,
// sent to every provider). The engine enforces neither itself: a provider that ignores them keeps the
// engine waiting until its own work ends. What they stop is the operation's long waits: a wait under
// way ends at once, and one started later ends before it begins; the short calls around the waits run
// on, each under its own request deadline.

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

/** Why an operation stops when its request's connection closes: the engine's process ended (killed, or crashed). */
export const ENGINE_GONE = "the engine went away before the operation ended (the `pulumi` process was killed or crashed)";

let engineUnreachable = false;

/**
 * A line sent to the engine found it unreachable (./engine-log.ts). The host serves one engine, so
 * it is gone for every operation: its killed process may be noticed here before the operation's own
 * call is cancelled (a CI run killed the `up` as a snapshot was answered, and the claim was written).
 */
export function noteEngineUnreachable(): void {
  engineUnreachable = true;
}

/**
 * Whether the current operation was stopped because the engine went away: whatever it makes now is
 * never recorded, so it must not mark anything as made by a finished create (../kinds/sandbox/claim.ts).
 */
export function engineGone(): boolean {
  if (engineUnreachable) return true;
  const signal = current.getStore()?.signal;
  return signal?.aborted === true && (signal.reason as Error | undefined)?.message === ENGINE_GONE;
}

/** A request of gRPC's server: it emits `cancelled` when its connection closes before the answer. */
export interface EngineCall {
  on?(event: "cancelled", listener: () => void): unknown;
}

/**
 * Runs one engine request (`run` answers it) as an operation: its waits stop when `timeoutSeconds`
 * (0: none) passes, when the engine cancels (`cancelAll`), or when the request's connection closes
 * (`call`): a killed `pulumi up` leaves its provider running (the engine starts it in a process group
 * of its own), and what it would start after that is for the next run to do, which finds what this
 * one made (a fleet stops at its next member).
 */
export function asOperation(verb: "create" | "update", urn: string, timeoutSeconds: number, run: () => unknown, call?: EngineCall): void {
  const op: Stoppable = { controller: new AbortController(), why: "" };
  const timer = timeoutSeconds > 0
    ? setTimeout(() => stop(op, `the ${verb} of ${describeUrn(urn)} passed its timeout of ${formatDuration(timeoutSeconds * 1000)} (customTimeouts.${verb})`), timeoutSeconds * 1000)
    : undefined;
  inFlight.add(op);
  call?.on?.("cancelled", () => stop(op, ENGINE_GONE));
  const done = () => {
    clearTimeout(timer);
    inFlight.delete(op);
  };
  try {
    void Promise.resolve(runAsOperation({ signal: op.controller.signal, why: () => op.why, urn }, run)).finally(done);
  } catch (err) {
    done();
    throw err;
  }
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

// ---------------------------------------------------------------------------------------------------
// The dynamic provider's host (@pulumi/pulumi 3.259, `cmd/dynamic-provider`) gets both bounds and uses
// neither: its Cancel answers Empty and does nothing, and its Create and Update hand the provider the
// properties only, not the request's `timeout`. Nor does a signal stand in for them: the engine starts
// each plugin in a process group of its own (sdk/go/common/resource/plugin/plugin.go, `ExecPlugin`:
// `cmdutil.RegisterProcessGroup`), so a terminal's Ctrl-C reaches only the CLI, and the engine sends
// the plugin's group SIGINT only when it closes the plugin, after the requests under way have ended.
// So the runtime takes them from the host's gRPC server as the requests arrive.

const RPC = "/pulumirpc.ResourceProvider/";
type Callback = (...args: unknown[]) => unknown;
interface RequestFields {
  getUrn(): string;
  getTimeout(): number;
}
interface Handler {
  func: (call: { request: unknown }, callback: Callback) => unknown;
}
type Retrieve = (this: unknown, path: string) => Handler | null | undefined;
let boundHost = false;

/**
 * In the dynamic-provider host (started with its script as `argv[1]`), runs each Create and Update as
 * an operation with the request's deadline, makes the host's Cancel stop them, and has its Diff answer
 * carry what the runtime's diff says of each path (./detailed-diff.ts): a wrapper of the
 * handler grpc-js looks up for each call (`Server.prototype._retrieveHandler`, @grpc/grpc-js 1.14; the
 * host's server and its service exist before the provider's code is loaded, so the lookup per call is
 * where a request can still be met). The host's own handler still answers every request. Elsewhere,
 * or with a grpc-js without that lookup, nothing changes.
 */
export function engineBoundsInDynamicHost(argv: string[] = process.argv): void {
  if (boundHost || !/[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/.test(argv[1] ?? "")) return;
  const { Server } = likePulumi<{ Server: { prototype: { _retrieveHandler?: Retrieve } } }>("@grpc/grpc-js");
  const retrieve = Server.prototype._retrieveHandler;
  if (typeof retrieve !== "function") return;
  boundHost = true;
  Server.prototype._retrieveHandler = function (path) {
    const handler = retrieve.call(this, path);
    if (!handler) return handler;
    if (path === `${RPC}Cancel`) {
      return { ...handler, func: (call, callback) => (cancelAll(), handler.func(call, callback)) };
    }
    if (path === `${RPC}Diff`) {
      return { ...handler, func: (call, callback) => answeringDiff((answer) => handler.func(call, answer), callback) };
    }
    const verb = path === `${RPC}Create` ? "create" : path === `${RPC}Update` ? "update" : undefined;
    if (!verb) return handler;
    return {
      ...handler,
      func: (call, callback) => {
        const request = call.request as RequestFields;
        asOperation(verb, request.getUrn(), request.getTimeout(), () => handler.func(call, callback), call as EngineCall);
      },
    };
  };
}
