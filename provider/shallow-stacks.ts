/**
 * Registering a resource makes @pulumi/pulumi create four promises per property, and each records a
 * `new Error().stack` for its promise-leak report (runtime/debuggable.js). The Node language host
 * formats every stack through ts-node's source-map hook, so a Sandbox (29 registered properties) spent
 * ~6 ms of the program's CPU per resource on stacks nobody reads (`npm run bench -- --only=engine`,
 * profiled). They are read only when PULUMI_DEBUG_PROMISE_LEAKS is set, so otherwise a class's
 * registration runs with stacks of no frames. The resource's source position, which the engine shows
 * beside its diagnostics, is unaffected: Pulumi takes it with its own, unlimited, stack limit.
 */

/**
 * Stacks of no frames until the returned function runs: call it in a `finally`, and in a `catch` with
 * the error thrown, which then gets its stack taken again, there, with frames: a registration that
 * fails (a resource with no name) still points at the program's line. `above`: the function whose
 * frame and those it called are left out of that stack (the shared base of the classes: the stack
 * then starts at the kind's own class).
 */
export function shallowStacks(above?: Function): (thrown?: unknown) => unknown {
  if (process.env.PULUMI_DEBUG_PROMISE_LEAKS) return (thrown) => thrown;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const done = (thrown?: unknown): unknown => {
    Error.stackTraceLimit = limit;
    if (thrown instanceof Error) Error.captureStackTrace(thrown, above ?? done);
    return thrown;
  };
  return done;
}
