/**
 * Start: runs the requested command in the sandbox's namespaces as the calling user (or, without
 * isolation, as a host process whose cwd and HOME are mapped under rootDir) and streams its events.
 * cwd defaults to the user's home. The environment is envd's: PATH (the emulator's), HOME, USER,
 * LOGNAME, then the sandbox's envVars under envd's own variables (../sandbox-env.ts), then the
 * request's envs, later ones winning.
 *
 * `Connect-Timeout-Ms` bounds the process's life: when it passes the process is killed and the
 * stream ends with deadline_exceeded. A client that disconnects leaves the process running.
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { ProcessConfig, StartRequest } from "../../../sdk/gen/process/process_pb";
import { locateDirIn, using } from "../links";
import { hostPathOf, resolveSandboxPath } from "../paths";
import { limitArgv, orphanGuardArgv } from "../limits";
import { makeDirAs } from "../ownership";
import { sandboxEnv } from "../sandbox-env";
import { homeOf, scopeOf, type RequestScope } from "../scope";
import type { SpawnSpec } from "./child";
import { ManagedProcess } from "./managed";
import { startEvent, streamUpdates } from "./stream";

/** The PATH of a login shell in E2B's base image. */
const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The Start RPC. */
export async function* start(req: StartRequest, ctx: HandlerContext) {
  const scope = scopeOf(ctx);
  const config = req.process;
  if (!config?.cmd) throw new ConnectError("process.cmd is required", Code.InvalidArgument);
  const running = scope.registry.list().length;
  if (running >= scope.limits.processes) {
    throw new ConnectError(`the sandbox runs ${running} processes, its limit: end one before starting another`, Code.ResourceExhausted);
  }
  const spec = await spawnSpec(req, config, scope);
  const proc = new ManagedProcess(spec, config, req.tag);
  // Attached in the same tick as the spawn: child output is only delivered on a later turn of the
  // event loop, so this stream misses none of it.
  const sub = proc.subscribe();
  scope.registry.spawned(proc);
  // The pid is known once the command runs in the sandbox, and the registry and the SDK key on it.
  // Registered whatever becomes of this stream: a stream dropped meanwhile leaves the process running.
  const registered = proc.started.then(() => scope.registry.add(proc));
  killAtDeadline(proc, ctx);
  try {
    await registered;
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
  // No cwd: the template's WORKDIR when it set one, else the user's home.
  const cwd = resolveSandboxPath(config.cwd || (scope.runtime.defaults?.workdir ?? ""), home);
  // Links a command made are followed inside the sandbox (../links.ts), as its shell's `cd` will.
  const isDir = await using(locateDirIn(scope.runtime, cwd), async () => true).catch(() => false);
  if (!isDir) throw new ConnectError(`cwd '${cwd}' does not exist`, Code.InvalidArgument);
  // Used only without namespaces, where the OS follows links for the command anyway.
  const hostCwd = hostPathOf(scope.runtime, cwd);
  const ns = await scope.namespace()?.catch((err: unknown) => {
    throw new ConnectError((err as Error).message, Code.Unavailable);
  });
  const env: Record<string, string> = {
    // Inside its namespaces a sandbox has the usual PATH; outside, the emulator's own.
    PATH: ns ? SANDBOX_PATH : (process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"),
    HOME: ns ? home : hostPathOf(scope.runtime, home),
    USER: scope.user.name,
    LOGNAME: scope.user.name,
    ...sandboxEnv(scope.runtime),
    ...config.envs,
  };
  return {
    cmd: config.cmd,
    args: config.args,
    cwd: hostCwd,
    ...(ns
      ? { launch: ns.launch({ uid: scope.user.uid, gid: scope.user.gid }, cwd, [config.cmd, ...config.args], limitArgv(scope.limits, true), { reportPid: !req.pty }) }
      : { prefix: [...orphanGuardArgv(), ...limitArgv(scope.limits, false)] }),
    env,
    // Absent means true: envd keeps stdin open for clients older than the field.
    stdin: req.stdin ?? true,
    ...(req.pty ? { pty: { cols: req.pty.size?.cols ?? 0, rows: req.pty.size?.rows ?? 0 } } : {}),
  };
}

/**
 * Makes sure the user's home exists, as the user's (the platform creates `home/user`; `/root` is
 * made on first use so root's default cwd works). Made in the sandbox's tree, so a home the sandbox
 * replaced with a link is made where the link leads in the sandbox, never on the host; when it
 * cannot be made, the cwd check that follows says so.
 */
async function ensureHome(scope: RequestScope): Promise<string> {
  const home = homeOf(scope);
  await using(locateDirIn(scope.runtime, home, { makeParent: makeDirAs(scope) }), async () => undefined).catch(() => undefined);
  return home;
}

/** Kills the process when the call's deadline passes (the stream itself ends on the same signal). */
function killAtDeadline(proc: ManagedProcess, ctx: HandlerContext): void {
  const remaining = ctx.timeoutMs();
  if (remaining === undefined) return;
  const timer = setTimeout(() => proc.signal("SIGKILL"), Math.max(remaining, 0));
  timer.unref();
  void proc.waitEnd().then(() => clearTimeout(timer));
}
