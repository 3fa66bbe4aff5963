/**
 * Start: runs the requested command as a host process (see child.ts: nothing is isolated) and
 * streams its events. The sandbox's paths are mapped: cwd (default: the user's home) under
 * rootDir, HOME to the mapped home. The environment is envd's: PATH (the emulator's), HOME, USER,
 * LOGNAME, then the sandbox's envVars, then the request's envs, later ones winning.
 *
 * `Connect-Timeout-Ms` bounds the process's life: when it passes the process is killed and the
 * stream ends with deadline_exceeded. A client that disconnects leaves the process running.
 */
import { stat } from "node:fs/promises";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { ProcessConfig, StartRequest } from "../../../sdk/gen/process/process_pb";
import { hostPathOf, resolveSandboxPath } from "../paths";
import { ensureHome, scopeOf, type RequestScope } from "../scope";
import type { SpawnSpec } from "./child";
import { ManagedProcess } from "./managed";
import { startEvent, streamUpdates } from "./stream";

/** The Start RPC. */
export async function* start(req: StartRequest, ctx: HandlerContext) {
  const scope = scopeOf(ctx);
  const config = req.process;
  if (!config?.cmd) throw new ConnectError("process.cmd is required", Code.InvalidArgument);
  const spec = await spawnSpec(req, config, scope);
  const proc = new ManagedProcess(spec, config, req.tag);
  // Attached in the same tick as the spawn: child output is only delivered on a later turn of the
  // event loop, so this stream misses none of it.
  const sub = proc.subscribe();
  scope.registry.add(proc);
  killAtDeadline(proc, ctx);
  try {
    yield startEvent(proc.pid);
    yield* streamUpdates(sub, ctx);
  } finally {
    // A stream dropped before it got going must not stay attached: it would hold the child back.
    sub.close();
  }
}

/** The host-side description of what a Start request runs. */
async function spawnSpec(req: StartRequest, config: ProcessConfig, scope: RequestScope): Promise<SpawnSpec> {
  const home = await ensureHome(scope);
  const cwd = resolveSandboxPath(config.cwd ?? "", home);
  const hostCwd = hostPathOf(scope.runtime, cwd);
  const isDir = await stat(hostCwd).then((s) => s.isDirectory(), () => false);
  if (!isDir) throw new ConnectError(`cwd '${cwd}' does not exist`, Code.InvalidArgument);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: hostPathOf(scope.runtime, home),
    USER: scope.user,
    LOGNAME: scope.user,
    ...scope.runtime.envVars,
    ...config.envs,
  };
  return {
    cmd: config.cmd,
    args: config.args,
    cwd: hostCwd,
    env,
    // Absent means true: envd keeps stdin open for clients older than the field.
    stdin: req.stdin ?? true,
    ...(req.pty ? { pty: { cols: req.pty.size?.cols ?? 0, rows: req.pty.size?.rows ?? 0 } } : {}),
  };
}

/** Kills the process when the call's deadline passes (the stream itself ends on the same signal). */
function killAtDeadline(proc: ManagedProcess, ctx: HandlerContext): void {
  const remaining = ctx.timeoutMs();
  if (remaining === undefined) return;
  const timer = setTimeout(() => proc.signal("SIGKILL"), Math.max(remaining, 0));
  timer.unref();
  void proc.waitEnd().then(() => clearTimeout(timer));
}
