/**
 * The engine's bounds on a Create or Update: the deadline it sends with the request (the resource's
 * `customTimeouts`, in seconds; 0 when none is set) and its Cancel (the first Ctrl-C of `pulumi up`,
 * sent to every plugin). The engine enforces neither itself: a provider that ignores them keeps the
 * engine waiting until its own work ends.
 *
 * Each request runs as an operation of the runtime (../runtime/operation.ts) whose signal fires at the
 * deadline, on Cancel, or when the request's connection closes (the engine was killed): ./serve.ts starts one per Create or Update, and ./provider.ts's cancel stops
 * them all. What it stops is the operation's long waits (a template build, a provisioning command, a
 * wait for a free slot at the team's limit): a wait under way ends at once, and one started later
 * ends before it begins; the short calls around the waits run on, each under its own request deadline.
 * The machinery is the runtime's, as the dynamic provider's host needs the same.
 */
export { asOperation, cancelAll, type EngineCall } from "../runtime/operation";
